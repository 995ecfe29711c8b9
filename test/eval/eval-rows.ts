/**
 * Rows run through `evaluate`, the route a user takes, under an agent whose strategy the test
 * writes: what the eval graded and measured of each, and what it warned of.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type EvalRow, type EvalRowResult, evaluate } from '../../src/eval/index.js'
import type { LLMProvider } from '../../src/index.js'
import type { Strategy, StrategyContext, StrategyEvent } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'

/** What a row's run does: its events, given the row's question and the run's context. */
export type RowRun = (question: string, ctx: StrategyContext) => AsyncGenerator<StrategyEvent, void, undefined>

/** A run that answers `text`, whatever the question. */
export const answering = (text: string | ((question: string) => string)): RowRun =>
  async function* (question) {
    yield { type: 'answer', text: typeof text === 'string' ? text : text(question), citations: [] }
  }

export interface EvalRowsOptions {
  grader?: LLMProvider
  /** The agents' model (a scripted one answering "ok" by default). */
  llm?: LLMProvider
  /** The output folder (a new one by default). */
  out?: string
  /** The configuration's name. @defaultValue 'c' */
  config?: string
}

export async function evalRows(rows: readonly EvalRow[], run: RowRun, options: EvalRowsOptions = {}): Promise<{ rows: EvalRowResult[]; warnings: string[] }> {
  const strategy: Strategy = { name: 'under-test', run: (question, ctx) => run(question, ctx) }
  const llm = options.llm ?? scriptedLLM({ model: 'agent-model', replies: () => 'ok' })
  // A folder of its own unless given one, removed once read.
  const out = options.out ?? (await mkdtemp(join(tmpdir(), 'laconic-eval-rows-')))
  const results: EvalRowResult[] = []
  const warnings: string[] = []
  try {
    for await (const event of evaluate({
      dataset: rows,
      configs: [{ name: options.config ?? 'c', agent: { llm, strategy } }],
      out,
      concurrency: 1,
      ...(options.grader ? { grader: options.grader } : {}),
    })) {
      if (event.type === 'row-end') results.push(event.row)
      else if (event.type === 'eval-warning') warnings.push(event.message)
      else if (event.type === 'eval-end' && event.reason !== 'done') throw new Error(`the eval ended ${event.reason}: ${event.error ?? ''}`)
    }
  } finally {
    if (options.out === undefined) await rm(out, { recursive: true, force: true })
  }
  return { rows: results, warnings }
}
