/** Type-level tests of `laconic-research/eval`: datasets, cassettes, `evaluate` and its results and reports. */
import { describe, expectTypeOf, it } from 'vitest'
import type {
  Cassette,
  CassetteOptions,
  Comparison,
  ConfigSummary,
  compareResults,
  Dataset,
  EvalConfig,
  EvalEvent,
  EvalOptions,
  EvalRow,
  EvalRowResult,
  evaluate,
  htmlReport,
  openCassette,
  ReadDatasetOptions,
  readDataset,
  readResults,
  summarize,
} from '../../src/eval/index.js'
import type { AgentOptions, LLMProvider } from '../../src/index.js'

describe('laconic-research/eval', () => {
  it('datasets: rows with answers, evidence and tags; problems by line; formats and mappings', () => {
    expectTypeOf<EvalRow>().toEqualTypeOf<{ id: string; question: string; answers: string[]; evidence?: { url?: string; text?: string }[]; tags?: string[] }>()
    expectTypeOf<Dataset['problems']>().toEqualTypeOf<{ line: number; message: string }[]>()
    expectTypeOf<NonNullable<ReadDatasetOptions['format']>>().toEqualTypeOf<'jsonl' | 'simpleqa' | 'frames' | 'hotpotqa' | 'csv'>()
    expectTypeOf<NonNullable<ReadDatasetOptions['mapping']>['question']>().toEqualTypeOf<string>()
    expectTypeOf<typeof readDataset>().toEqualTypeOf<(path: string, options?: ReadDatasetOptions) => Promise<Dataset>>()
  })

  it('cassettes wrap an agent’s options', () => {
    expectTypeOf<typeof openCassette>().toEqualTypeOf<(folder: string, options?: CassetteOptions) => Cassette>()
    expectTypeOf<CassetteOptions['mode']>().toEqualTypeOf<'replay' | 'record' | 'record-missing' | undefined>()
    expectTypeOf<Cassette['wrap']>().toEqualTypeOf<<T extends AgentOptions>(options: T) => T>()
  })

  it('evaluate yields typed events; rows and summaries are plain data', () => {
    expectTypeOf<typeof evaluate>().parameters.toEqualTypeOf<[EvalOptions]>()
    expectTypeOf<ReturnType<typeof evaluate>>().toExtend<AsyncIterable<EvalEvent>>()
    expectTypeOf<EvalConfig>().toEqualTypeOf<{ name: string; agent: AgentOptions }>()
    expectTypeOf<EvalOptions['grader']>().toEqualTypeOf<LLMProvider | undefined>()
    expectTypeOf<Extract<EvalEvent, { type: 'eval-end' }>['reason']>().toEqualTypeOf<'done' | 'max-cost' | 'aborted' | 'error'>()
    expectTypeOf<Extract<EvalEvent, { type: 'row-end' }>['row']>().toEqualTypeOf<EvalRowResult>()
    expectTypeOf<EvalRowResult['grades']['model']>().toEqualTypeOf<'correct' | 'incorrect' | 'not-attempted' | undefined>()
    expectTypeOf<EvalRowResult['grades']['f1']>().toEqualTypeOf<number>()
    expectTypeOf<EvalRowResult['cost']>().toEqualTypeOf<number | null>()
    expectTypeOf<typeof readResults>().returns.toEqualTypeOf<Promise<EvalRowResult[]>>()
    expectTypeOf<typeof summarize>().returns.toEqualTypeOf<ConfigSummary[]>()
    expectTypeOf<ConfigSummary['interval']>().toEqualTypeOf<[number, number]>()
  })

  it('reports: an HTML page of rows, and a paired comparison of two folders', () => {
    expectTypeOf<typeof htmlReport>().parameters.toEqualTypeOf<[readonly EvalRowResult[], { title?: string }?]>()
    expectTypeOf<typeof htmlReport>().returns.toEqualTypeOf<string>()
    expectTypeOf<typeof compareResults>().returns.toEqualTypeOf<Comparison[]>()
    expectTypeOf<Comparison['verdict']>().toEqualTypeOf<'a-better' | 'b-better' | 'no-significant-difference'>()
  })
})
