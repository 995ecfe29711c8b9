/**
 * `evaluate`: every question under every configuration, a bounded number at once, each finished
 * row appended to `results.jsonl` in the output folder (so a killed eval resumes where it
 * stopped), graded by text and optionally by a grader model, and reported as typed events.
 */
import { type AgentOptions, createAgent } from '../agent.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { LLMProvider } from '../core/contracts/providers.js'
import type { ResearchResult } from '../core/contracts/result.js'
import { type Cost, knownDollars } from '../core/contracts/run-cost.js'
import { type Cassette, cassetteModel, cassetteProviders } from './cassette.js'
import type { Dataset, EvalRow } from './dataset.js'
import { evidenceRecall, watchPrompts } from './evidence-recall.js'
import { containsAnswer, exactMatch, tokenF1 } from './grade.js'
import { gradeWithModel } from './model-grader.js'
import { openResults, rowKey } from './results-file.js'
import type { EvalRowResult, RowGrades } from './row-result.js'
import { type ConfigSummary, summarize } from './summary.js'

/** One configuration under test: a name (unique, it keys the results) and the agent's options (strategy, model, options). */
export interface EvalConfig {
  name: string
  agent: AgentOptions
}

/** Options of `evaluate`. */
export interface EvalOptions {
  /** The questions: a read dataset, or rows. */
  dataset: Dataset | readonly EvalRow[]
  configs: readonly EvalConfig[]
  /** The output folder: `results.jsonl` is appended there, and read first to resume. */
  out: string
  /** A grader model for SimpleQA's three grades; not one of the configurations' models. Absent: text grading only. */
  grader?: LLMProvider
  /** Rows running at once. @defaultValue 2 */
  concurrency?: number
  /** Record or replay every search, page read and model call (the grader's too). */
  cassette?: Cassette
  /** Dollars for the whole output folder (rows finished before count): no row starts that could pass it, and rows in flight stop when it would be. */
  maxCost?: number
  signal?: AbortSignal
}

/** Why an eval stopped. */
export type EvalEndReason = 'done' | 'max-cost' | 'aborted' | 'error'

/** What `evaluate` reports as it goes. */
export type EvalEvent =
  | { type: 'eval-start'; total: number; done: number; configs: string[]; out: string }
  | { type: 'row-start'; config: string; id: string }
  | { type: 'row-end'; row: EvalRowResult; done: number; total: number; spent: number }
  | { type: 'eval-warning'; message: string; config?: string; id?: string }
  /** `spent`: the dollars of every row in `out` (graders' included) and of the rows this run stopped before writing them. */
  | { type: 'eval-end'; reason: EvalEndReason; done: number; total: number; spent: number; summary: ConfigSummary[]; error?: string }

/** Citation markers (`[1]`, `[2, 3]`) are not part of the answer's words. */
const CITATION_MARKS = /\s*\[\d+(?:\s*[,;]\s*\d+)*\]/g

const dollarsOf = (row: EvalRowResult) => (row.cost ?? 0) + (row.graderCost ?? 0)

class EvalStop extends Error {}

function checkOptions(options: EvalOptions): { rows: readonly EvalRow[]; concurrency: number } {
  const rows = Array.isArray(options.dataset) ? (options.dataset as readonly EvalRow[]) : (options.dataset as Dataset).rows
  if (!Array.isArray(rows)) throw new LaconicError('evaluate needs a dataset: rows, or what readDataset returned', { code: 'config' })
  if (!options.configs?.length) throw new LaconicError('evaluate needs at least one configuration', { code: 'config' })
  const names = new Set<string>()
  for (const config of options.configs) {
    if (typeof config.name !== 'string' || !config.name.trim()) throw new LaconicError('each configuration needs a name', { code: 'config' })
    if (names.has(config.name)) throw new LaconicError(`two configurations are named "${config.name}"`, { code: 'config', hint: 'names key the results' })
    names.add(config.name)
  }
  if (typeof options.out !== 'string' || !options.out) throw new LaconicError('evaluate needs `out`, the folder results go to', { code: 'config' })
  const concurrency = options.concurrency ?? 2
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new LaconicError('`concurrency` must be a whole number >= 1', { code: 'config' })
  if (options.maxCost !== undefined && !(options.maxCost >= 0)) throw new LaconicError('`maxCost` must be a number of dollars >= 0', { code: 'config' })
  return { rows, concurrency }
}

/** The configuration whose model is the grader (the same object, or a model of the same name), if any. */
function graderUnderTest(options: EvalOptions): string | undefined {
  const grader = options.grader
  if (!grader) return undefined
  return options.configs.find((config) =>
    [config.agent.llm, ...Object.values(config.agent.models ?? {})].some(
      (model) => model && (model === grader || (grader.model !== undefined && model.model === grader.model)),
    ),
  )?.name
}

/** The model and the agent's models, each telling `sink` its prompts. */
function watched(agent: AgentOptions, sink: string[]): AgentOptions {
  const models = agent.models
    ? (Object.fromEntries(Object.entries(agent.models).map(([role, model]) => [role, model ? watchPrompts(model, sink) : model])) as AgentOptions['models'])
    : undefined
  return { ...agent, ...(agent.llm ? { llm: watchPrompts(agent.llm, sink) } : {}), ...(models ? { models } : {}) }
}

function rowResult(
  config: string,
  row: EvalRow,
  result: ResearchResult,
  extra: { wallMs: number; prompts: readonly string[]; grades: RowGrades; graderCost?: number | null },
): EvalRowResult {
  const cost: Cost = result.cost
  const graded = extra.grades.model
  const supportRate = result.supportRate
  const recall = evidenceRecall(row.evidence, extra.prompts)
  return {
    config,
    id: row.id,
    question: row.question,
    answers: row.answers,
    answer: result.answer,
    reason: result.reason,
    ...(result.error ? { error: result.error.message } : {}),
    grades: extra.grades,
    correct: graded !== undefined ? graded === 'correct' : extra.grades.contains || extra.grades.exact,
    notAttempted: graded !== undefined ? graded === 'not-attempted' : !result.answer.trim(),
    cost: knownDollars(cost),
    ...(extra.graderCost !== undefined ? { graderCost: extra.graderCost } : {}),
    wallMs: Math.round(extra.wallMs),
    llmCalls: cost.llmCalls,
    inputTokens: cost.inputTokens,
    outputTokens: cost.outputTokens,
    searches: cost.searches,
    fetches: cost.fetches,
    citations: result.citations.length,
    ...(recall !== undefined ? { evidenceRecall: recall } : {}),
    ...(typeof supportRate === 'number' && Number.isFinite(supportRate) ? { supportRate } : {}),
    ...(row.tags ? { tags: row.tags } : {}),
  }
}

/**
 * Runs every question of `dataset` under every configuration and yields progress events: one
 * `eval-start`, a `row-start` and `row-end` per row run (rows already in `out` are skipped), and
 * one `eval-end` with the summary of every row in `out`. Breaking out of the loop or aborting
 * `signal` stops the rows in flight; they are not written, so a later run does them again.
 */
export async function* evaluate(options: EvalOptions): AsyncGenerator<EvalEvent, void, undefined> {
  const { rows, concurrency } = checkOptions(options)
  const results = await openResults(options.out)
  const done = new Set(results.rows.map((row) => rowKey(row.config, row.id)))
  const finished: EvalRowResult[] = [...results.rows]
  const tasks = options.configs.flatMap((config) => rows.filter((row) => !done.has(rowKey(config.name, row.id))).map((row) => ({ config, row })))
  const total = options.configs.length * rows.length
  let spent = finished.reduce((sum, row) => sum + dollarsOf(row), 0)
  let reserve = finished.reduce((most, row) => Math.max(most, dollarsOf(row)), 0)
  const live = new Map<string, number>()
  /** Dollars of rows stopped before they were written (in this process). */
  let unwritten = 0
  const liveDollars = () => [...live.values()].reduce((sum, dollars) => sum + dollars, 0)

  const stop = new AbortController()
  const onAbort = () => stop.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', onAbort, { once: true })
  if (options.signal?.aborted) onAbort()
  let endReason: EvalEndReason | undefined
  let endError: string | undefined
  const end = (reason: EvalEndReason, error?: string) => {
    if (endReason === undefined) {
      endReason = reason
      endError = error
    }
    stop.abort(new DOMException(`eval stopped: ${reason}`, 'AbortError'))
  }

  // Events from the workers, read by the generator in order.
  const queue: EvalEvent[] = []
  let wake: (() => void) | undefined
  const push = (event: EvalEvent) => {
    queue.push(event)
    wake?.()
  }

  const overBudget = (extra: number) => options.maxCost !== undefined && spent + liveDollars() + extra > options.maxCost

  /** Runs one row; true when it was written. */
  const runRow = async (config: EvalConfig, row: EvalRow): Promise<boolean> => {
    const key = rowKey(config.name, row.id)
    let missed: string | undefined
    const onMiss = (description: string) => {
      missed ??= description
    }
    const prompts: string[] = []
    const providers = options.cassette ? cassetteProviders(options.cassette, config.agent, onMiss) : config.agent
    const agent = createAgent(watched(providers, prompts))
    const started = performance.now()
    live.set(key, 0)
    const run = agent.research(row.question, { signal: stop.signal })
    for await (const event of run) {
      if (event.type !== 'cost') continue
      live.set(key, knownDollars(event.total) ?? event.total.total)
      if (overBudget(0)) end('max-cost')
    }
    const result = await run.result
    const wallMs = performance.now() - started
    if (missed !== undefined)
      throw new EvalStop(`the cassette in ${options.cassette?.folder} has no recorded ${missed}: record it with the cassette in 'record-missing' mode`)
    if (stop.signal.aborted) return false
    const answer = result.answer.replace(CITATION_MARKS, '').trim()
    const grades: RowGrades = { exact: exactMatch(answer, row.answers), f1: tokenF1(answer, row.answers), contains: containsAnswer(answer, row.answers) }
    let graderCost: number | null | undefined
    if (options.grader) {
      const grader = options.cassette ? cassetteModel(options.cassette, options.grader, onMiss) : options.grader
      try {
        const verdict = await gradeWithModel(grader, row.question, row.answers, answer, stop.signal)
        if (verdict.grade) grades.model = verdict.grade
        grades.graderReply = verdict.reply
        graderCost = verdict.cost
        if (!verdict.grade)
          push({ type: 'eval-warning', config: config.name, id: row.id, message: `the grader's reply names no grade: "${verdict.reply.slice(0, 80)}"` })
      } catch (error) {
        if (missed !== undefined)
          throw new EvalStop(`the cassette in ${options.cassette?.folder} has no recorded ${missed}: record it with the cassette in 'record-missing' mode`)
        if (stop.signal.aborted) return false
        // The eval stops rather than pay for rows it cannot grade; this row is not written, so a later run does it again.
        throw new EvalStop(`grading ${config.name} ${row.id} failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    if (stop.signal.aborted) return false
    const finishedRow = rowResult(config.name, row, result, { wallMs, prompts, grades, ...(options.grader ? { graderCost: graderCost ?? null } : {}) })
    await results.append(finishedRow)
    finished.push(finishedRow)
    spent += dollarsOf(finishedRow)
    reserve = Math.max(reserve, dollarsOf(finishedRow))
    push({ type: 'row-end', row: finishedRow, done: finished.length, total, spent })
    return true
  }

  // Told when a row ends: a worker waiting for the budget to allow another row looks again then.
  let rowEnded: (() => void)[] = []
  const nextRowEnd = () => new Promise<void>((resolve) => rowEnded.push(resolve))
  let next = 0
  const worker = async (): Promise<void> => {
    while (!stop.signal.aborted && next < tasks.length) {
      // Start a row only if it cannot pass the budget: what is spent, what rows in flight spend,
      // and the dearest row so far for this one.
      if (overBudget(reserve)) {
        if (live.size === 0) {
          end('max-cost')
          break
        }
        await nextRowEnd()
        continue
      }
      const task = tasks[next++]
      if (!task) break
      push({ type: 'row-start', config: task.config.name, id: task.row.id })
      let written = false
      try {
        written = await runRow(task.config, task.row)
      } catch (error) {
        end('error', error instanceof EvalStop || error instanceof LaconicError ? error.message : `row ${task.row.id}: ${String(error)}`)
      } finally {
        // What a row that was stopped spent is spent all the same: eval-end counts it.
        if (!written) unwritten += live.get(rowKey(task.config.name, task.row.id)) ?? 0
        live.delete(rowKey(task.config.name, task.row.id))
        const waiting = rowEnded
        rowEnded = []
        for (const resolve of waiting) resolve()
      }
    }
  }

  let running = true
  let all: Promise<void> = Promise.resolve()
  try {
    yield { type: 'eval-start', total, done: finished.length, configs: options.configs.map((config) => config.name), out: options.out }
    for (const line of results.unreadable) yield { type: 'eval-warning', message: `${options.out}/results.jsonl line ${line} is not a result row: ignored` }
    const graderAlsoUnderTest = graderUnderTest(options)
    if (graderAlsoUnderTest) {
      yield {
        type: 'eval-warning',
        message: `the grader is also the model of configuration "${graderAlsoUnderTest}": a model grading its own answers may favour them; use another model`,
      }
    }
    if (results.repaired) yield { type: 'eval-warning', message: 'the last line of results.jsonl was cut off (a killed eval): removed, its row runs again' }
    all = Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, () => worker())).then(() => {
      running = false
      wake?.()
    })
    while (running || queue.length > 0) {
      const event = queue.shift()
      if (event) {
        yield event
        continue
      }
      await new Promise<void>((resolve) => {
        wake = resolve
      })
      wake = undefined
    }
    await all
    const reason: EvalEndReason = endReason ?? (options.signal?.aborted ? 'aborted' : 'done')
    yield {
      type: 'eval-end',
      reason,
      done: finished.length,
      total,
      spent: spent + unwritten,
      summary: summarize(finished),
      ...(endError !== undefined ? { error: endError } : {}),
    }
  } finally {
    stop.abort(new DOMException('eval ended', 'AbortError'))
    options.signal?.removeEventListener('abort', onAbort)
    for (const resolve of rowEnded) resolve()
    await all
    await results.close()
  }
}
