/** Type-level tests of `laconic-research/eval`: datasets, grading, cassettes, `evaluate` and its results. */
import { describe, expectTypeOf, it } from 'vitest'
import type {
  Cassette,
  Comparison,
  compareResults,
  htmlReport,
  CassetteMode,
  CassetteOptions,
  ColumnMapping,
  ConfigSummary,
  Dataset,
  DatasetFormat,
  DatasetProblem,
  EvalConfig,
  EvalEndReason,
  EvalEvent,
  EvalOptions,
  EvalRow,
  EvalRowResult,
  Evidence,
  ModelGrade,
  ReadDatasetOptions,
  RowGrades,
  containsAnswer,
  evaluate,
  exactMatch,
  normalizeAnswer,
  openCassette,
  parseDataset,
  parseGrade,
  readDataset,
  readResults,
  summarize,
  tokenF1,
} from '../../src/eval/index.js'
import type { AgentOptions, LLMProvider } from '../../src/index.js'

describe('laconic-research/eval', () => {
  it('datasets: rows with answers, evidence and tags; problems by line; formats and mappings', () => {
    expectTypeOf<EvalRow>().toEqualTypeOf<{ id: string; question: string; answers: string[]; evidence?: Evidence[]; tags?: string[] }>()
    expectTypeOf<Evidence>().toEqualTypeOf<{ url?: string; text?: string }>()
    expectTypeOf<Dataset['problems']>().toEqualTypeOf<DatasetProblem[]>()
    expectTypeOf<DatasetProblem>().toEqualTypeOf<{ line: number; message: string }>()
    expectTypeOf<DatasetFormat>().toEqualTypeOf<'jsonl' | 'simpleqa' | 'frames' | 'hotpotqa' | 'csv'>()
    expectTypeOf<ColumnMapping['question']>().toEqualTypeOf<string>()
    expectTypeOf<ReadDatasetOptions['mapping']>().toEqualTypeOf<ColumnMapping | undefined>()
    expectTypeOf<typeof readDataset>().returns.toEqualTypeOf<Promise<Dataset>>()
    expectTypeOf<typeof parseDataset>().returns.toEqualTypeOf<Dataset>()
  })

  it('grading: text scores and the total grade parser', () => {
    expectTypeOf<typeof normalizeAnswer>().toEqualTypeOf<(text: string) => string>()
    expectTypeOf<typeof exactMatch>().returns.toEqualTypeOf<boolean>()
    expectTypeOf<typeof containsAnswer>().returns.toEqualTypeOf<boolean>()
    expectTypeOf<typeof tokenF1>().returns.toEqualTypeOf<number>()
    expectTypeOf<typeof parseGrade>().toEqualTypeOf<(reply: string) => ModelGrade | undefined>()
    expectTypeOf<ModelGrade>().toEqualTypeOf<'correct' | 'incorrect' | 'not-attempted'>()
  })

  it('cassettes wrap an agent’s options', () => {
    expectTypeOf<typeof openCassette>().toEqualTypeOf<(folder: string, options?: CassetteOptions) => Cassette>()
    expectTypeOf<CassetteMode>().toEqualTypeOf<'replay' | 'record' | 'record-missing'>()
    expectTypeOf<Cassette['wrap']>().toEqualTypeOf<<T extends AgentOptions>(options: T) => T>()
  })

  it('evaluate yields typed events; rows and summaries are plain data', () => {
    expectTypeOf<typeof evaluate>().parameters.toEqualTypeOf<[EvalOptions]>()
    expectTypeOf<ReturnType<typeof evaluate>>().toExtend<AsyncIterable<EvalEvent>>()
    expectTypeOf<EvalConfig>().toEqualTypeOf<{ name: string; agent: AgentOptions }>()
    expectTypeOf<EvalOptions['grader']>().toEqualTypeOf<LLMProvider | undefined>()
    expectTypeOf<Extract<EvalEvent, { type: 'eval-end' }>['reason']>().toEqualTypeOf<EvalEndReason>()
    expectTypeOf<Extract<EvalEvent, { type: 'row-end' }>['row']>().toEqualTypeOf<EvalRowResult>()
    expectTypeOf<EvalRowResult['grades']>().toEqualTypeOf<RowGrades>()
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
