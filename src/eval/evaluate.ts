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
import { type Cassette, cassetteModel, cassetteRun } from './cassette.js'
import type { Dataset, EvalRow } from './dataset.js'
import { evidenceRecall, watchPrompts } from './evidence-recall.js'
import { containsAnswer, exactMatch, tokenF1 } from './grade.js'
import { gradeWithModel } from './model-grader.js'
import { openResults, type ResultsWriter, rowKey } from './results-file.js'
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
export type EvalEndReason = Extract<EvalEvent, { type: 'eval-end' }>['reason']

/** What `evaluate` reports as it goes. */
export type EvalEvent =
  | { type: 'eval-start'; total: number; done: number; configs: string[]; out: string }
  | { type: 'row-start'; config: string; id: string }
  | { type: 'row-end'; row: EvalRowResult; done: number; total: number; spent: number }
  | { type: 'eval-warning'; message: string; config?: string; id?: string }
  /** `spent`: the dollars of every row in `out` (graders' included) and of the rows this run stopped before writing them. */
  | {
      type: 'eval-end'
      reason: 'done' | 'max-cost' | 'aborted' | 'error'
      done: number
      total: number
      spent: number
      summary: ConfigSummary[]
      error?: string
    }

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

/** What the rows of one eval share: the options, the results file, what is spent, and how the eval stops. */
interface EvalRun {
  options: EvalOptions
  results: ResultsWriter
  finished: EvalRowResult[]
  total: number
  /** Dollars of the rows written (graders' included). */
  spent: number
  /** The dearest row so far: what a row about to start may cost. */
  reserve: number
  /** Dollars spent so far by each row in flight. */
  live: Map<string, number>
  /** Dollars of rows stopped before they were written (in this process). */
  unwritten: number
  stop: AbortController
  end(reason: EvalEndReason, error?: string): void
  push(event: EvalEvent): void
}

const overBudget = (run: EvalRun, extra: number) =>
  run.options.maxCost !== undefined && run.spent + [...run.live.values()].reduce((sum, dollars) => sum + dollars, 0) + extra > run.options.maxCost

/** The grades of one answer: by text, and by the grader model when there is one. Throws EvalStop when the grader fails or misses. */
async function gradeRow(run: EvalRun, config: EvalConfig, row: EvalRow, answer: string, missed: () => string | undefined, onMiss: (message: string) => void) {
  const grades: RowGrades = { exact: exactMatch(answer, row.answers), f1: tokenF1(answer, row.answers), contains: containsAnswer(answer, row.answers) }
  const { grader: model, cassette } = run.options
  if (!model) return { grades }
  const grader = cassette ? cassetteModel(cassette, model, onMiss) : model
  try {
    const verdict = await gradeWithModel(grader, row.question, row.answers, answer, run.stop.signal)
    if (verdict.grade) grades.model = verdict.grade
    grades.graderReply = verdict.reply
    if (!verdict.grade)
      run.push({ type: 'eval-warning', config: config.name, id: row.id, message: `the grader's reply names no grade: "${verdict.reply.slice(0, 80)}"` })
    return { grades, graderCost: verdict.cost }
  } catch (error) {
    const miss = missed()
    if (miss !== undefined) throw new EvalStop(miss)
    if (run.stop.signal.aborted) return undefined
    // The eval stops rather than pay for rows it cannot grade; this row is not written, so a later run does it again.
    throw new EvalStop(`grading ${config.name} ${row.id} failed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** Runs one row; true when it was written. A cassette miss, or a replay that no longer matches its recording, throws EvalStop. */
async function runRow(run: EvalRun, config: EvalConfig, row: EvalRow): Promise<boolean> {
  const key = rowKey(config.name, row.id)
  let missed: string | undefined
  const onMiss = (message: string) => {
    missed ??= `${message}: record it with the cassette in 'record-missing' mode`
  }
  const prompts: string[] = []
  const { cassette } = run.options
  const through = cassette
    ? cassetteRun(cassette, config.agent, onMiss, JSON.stringify([config.name, row.id]))
    : { options: config.agent, unmet: () => [], written: async () => {} }
  const agent = createAgent(watched(through.options, prompts))
  const started = performance.now()
  run.live.set(key, 0)
  const research = agent.research(row.question, { signal: run.stop.signal })
  for await (const event of research) {
    if (event.type !== 'cost') continue
    run.live.set(key, knownDollars(event.total) ?? event.total.total)
    if (overBudget(run, 0)) run.end('max-cost')
  }
  const result = await research.result
  const wallMs = performance.now() - started
  if (missed !== undefined) throw new EvalStop(missed)
  if (run.stop.signal.aborted) return false
  const unmet = cassette?.mode === 'replay' ? through.unmet() : []
  if (unmet.length)
    throw new EvalStop(
      `the recording of ${config.name} ${row.id} in ${cassette?.folder} asked ${unmet[0]}, which this replay did not: the run no longer matches its recording (record it again with the cassette in 'record-missing' mode)`,
    )
  const answer = result.answer.replace(CITATION_MARKS, '').trim()
  const graded = await gradeRow(run, config, row, answer, () => missed, onMiss)
  if (!graded || run.stop.signal.aborted) return false
  const extra = { wallMs, prompts, grades: graded.grades, ...(run.options.grader ? { graderCost: graded.graderCost ?? null } : {}) }
  const finishedRow = rowResult(config.name, row, result, extra)
  // A row written is one a replay can repeat: the order its calls came in is in the cassette first.
  await through.written()
  await run.results.append(finishedRow)
  run.finished.push(finishedRow)
  run.spent += dollarsOf(finishedRow)
  run.reserve = Math.max(run.reserve, dollarsOf(finishedRow))
  run.push({ type: 'row-end', row: finishedRow, done: run.finished.length, total: run.total, spent: run.spent })
  return true
}

/** `concurrency` workers taking the tasks in turn, each starting a row only if the budget allows it. */
function startWorkers(run: EvalRun, tasks: readonly { config: EvalConfig; row: EvalRow }[], concurrency: number) {
  // Told when a row ends: a worker waiting for the budget to allow another row looks again then.
  let rowEnded: (() => void)[] = []
  const nextRowEnd = () => new Promise<void>((resolve) => rowEnded.push(resolve))
  const wakeAll = () => {
    const waiting = rowEnded
    rowEnded = []
    for (const resolve of waiting) resolve()
  }
  let next = 0
  const worker = async (): Promise<void> => {
    while (!run.stop.signal.aborted && next < tasks.length) {
      // Start a row only if it cannot pass the budget: what is spent, what rows in flight spend,
      // and the dearest row so far for this one.
      if (overBudget(run, run.reserve)) {
        if (run.live.size === 0) {
          run.end('max-cost')
          break
        }
        await nextRowEnd()
        continue
      }
      const task = tasks[next++]
      if (!task) break
      run.push({ type: 'row-start', config: task.config.name, id: task.row.id })
      const key = rowKey(task.config.name, task.row.id)
      let written = false
      try {
        written = await runRow(run, task.config, task.row)
      } catch (error) {
        run.end('error', error instanceof EvalStop || error instanceof LaconicError ? error.message : `row ${task.row.id}: ${String(error)}`)
      } finally {
        // What a row that was stopped spent is spent all the same: eval-end counts it.
        if (!written) run.unwritten += run.live.get(key) ?? 0
        run.live.delete(key)
        wakeAll()
      }
    }
  }
  const all = Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, () => worker())).then(() => {})
  return { all, wakeAll }
}

/** The warnings an eval starts with: unreadable or cut result lines, and a grader that is also under test. */
function startWarnings(options: EvalOptions, results: ResultsWriter): EvalEvent[] {
  const warnings: EvalEvent[] = results.unreadable.map((line) => ({
    type: 'eval-warning',
    message: `${options.out}/results.jsonl line ${line} is not a result row: ignored`,
  }))
  const graderAlsoUnderTest = graderUnderTest(options)
  if (graderAlsoUnderTest) {
    warnings.push({
      type: 'eval-warning',
      message: `the grader is also the model of configuration "${graderAlsoUnderTest}": a model grading its own answers may favour them; use another model`,
    })
  }
  if (results.repaired)
    warnings.push({ type: 'eval-warning', message: 'the last line of results.jsonl was cut off (a killed eval): removed, its row runs again' })
  return warnings
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
  const tasks = options.configs.flatMap((config) => rows.filter((row) => !done.has(rowKey(config.name, row.id))).map((row) => ({ config, row })))
  // Events from the workers, read by the generator in order.
  const queue: EvalEvent[] = []
  let wake: (() => void) | undefined
  let endReason: EvalEndReason | undefined
  let endError: string | undefined
  const run: EvalRun = {
    options,
    results,
    finished: [...results.rows],
    total: options.configs.length * rows.length,
    spent: results.rows.reduce((sum, row) => sum + dollarsOf(row), 0),
    reserve: results.rows.reduce((most, row) => Math.max(most, dollarsOf(row)), 0),
    live: new Map(),
    unwritten: 0,
    stop: new AbortController(),
    end(reason, error) {
      if (endReason === undefined) {
        endReason = reason
        endError = error
      }
      run.stop.abort(new DOMException(`eval stopped: ${reason}`, 'AbortError'))
    },
    push(event) {
      queue.push(event)
      wake?.()
    },
  }
  const onAbort = () => run.stop.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', onAbort, { once: true })
  if (options.signal?.aborted) onAbort()
  let workers: ReturnType<typeof startWorkers> | undefined
  try {
    yield { type: 'eval-start', total: run.total, done: run.finished.length, configs: options.configs.map((config) => config.name), out: options.out }
    yield* startWarnings(options, results)
    let running = true
    workers = startWorkers(run, tasks, concurrency)
    void workers.all.then(() => {
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
    await workers.all
    yield {
      type: 'eval-end',
      reason: endReason ?? (options.signal?.aborted ? 'aborted' : 'done'),
      done: run.finished.length,
      total: run.total,
      spent: run.spent + run.unwritten,
      summary: summarize(run.finished),
      ...(endError !== undefined ? { error: endError } : {}),
    }
  } finally {
    run.stop.abort(new DOMException('eval ended', 'AbortError'))
    options.signal?.removeEventListener('abort', onAbort)
    workers?.wakeAll()
    await workers?.all
    await results.close()
  }
}
