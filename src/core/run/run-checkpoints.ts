import { CHECKPOINT_VERSION, toJson, type Checkpoint, type CheckpointStore, type ReleaseLock } from '../contracts/checkpoint.js'
import type { JsonValue } from '../util/json-value.js'
import type { Cost } from '../contracts/run-cost.js'
import { describeError, LaconicError } from '../contracts/laconic-error.js'
import type { Fact, RunEndReason, StrategyEvent } from '../contracts/events.js'
import type { IdSource } from '../util/ids.js'
import type { ResearchResult } from '../contracts/result.js'
import type { ResearchOptions, SharedOptions, Strategy } from '../contracts/strategy-types.js'

/**
 * What shapes a run's strategy, saved in its checkpoint and checked again on resume: the
 * search size when the agent sets one, and the strategy's own normalised `settings`.
 */
export function strategyOptionsOf(strategy: Strategy, options: Readonly<SharedOptions>): Checkpoint['options'] {
  const picked: Record<string, unknown> = {}
  if (options.searchLimit !== undefined) picked.searchLimit = options.searchLimit
  if (strategy.settings !== undefined) picked.settings = strategy.settings
  return toJson(picked) as Checkpoint['options']
}

/** The inputs a resumed run needs again (not the store, signal or `decide`); its own `language` and `sources` too, which a resume keeps. */
export function savedInput(input: Readonly<ResearchOptions>): Checkpoint['input'] {
  const kept: Record<string, unknown> = {}
  if (input.knowledge !== undefined) kept.knowledge = input.knowledge
  if (input.priorAnswers !== undefined) kept.priorAnswers = input.priorAnswers
  if (input.citations !== undefined) kept.citations = input.citations
  if (input.recalled !== undefined) kept.recalled = input.recalled
  if (input.verify !== undefined) kept.verify = input.verify
  if (input.language !== undefined) kept.language = input.language
  if (input.sources !== undefined) kept.sources = input.sources
  // The switches that are plain data, so a resumed run still asks; a predicate is the resume's to pass again.
  const review = {
    ...(typeof input.review?.plan === 'boolean' ? { plan: input.review.plan } : {}),
    ...(typeof input.review?.tools === 'boolean' ? { tools: input.review.tools } : {}),
  }
  if (Object.keys(review).length) kept.review = review
  return toJson(kept) as Checkpoint['input']
}

/** What the run has gathered when a checkpoint is taken. */
export interface Gathered {
  cost: Cost
  facts: Fact[]
  knowledge: string
}

export interface RunCheckpoints {
  /** Saves a step's state; returns a `warning` when the store failed (the run goes on). */
  step(state: JsonValue, seq: number, gathered: Gathered, ids?: Checkpoint['ids']): Promise<StrategyEvent | undefined>
  /** At the run's end: a paused run saves its last state as `paused`, a finished one its result as `final`. */
  end(reason: RunEndReason, result: ResearchResult, nextSeq: number, gathered: Gathered): Promise<void>
  /** Gives the run's lock back (once); settles when it is given back (a failure to is ignored). */
  release(): Promise<void>
}

/**
 * The runtime's side of checkpointing, kept out of the run loop: it builds each checkpoint, holds
 * the run's lock (taken at the first save of a new run, or by `resume` before it starts), and
 * turns a failing store into a warning instead of a failed run.
 */
export function runCheckpoints(args: {
  store: CheckpointStore
  base: Pick<Checkpoint, 'runId' | 'question' | 'strategy' | 'options' | 'input'>
  ids: IdSource
  /** The state of the checkpoint a resumed run started from. */
  state?: JsonValue
  /** The lock, when `resume` took it already. */
  lock?: ReleaseLock
}): RunCheckpoints {
  const { store, base, ids } = args
  let lock = args.lock
  let state: JsonValue = args.state ?? null
  let refused = false
  let released = false

  const checkpoint = (status: Checkpoint['status'], seq: number, gathered: Gathered, result?: ResearchResult, counters = ids.counters()): Checkpoint => ({
    version: CHECKPOINT_VERSION,
    ...base,
    status,
    state,
    cost: gathered.cost,
    seq,
    facts: gathered.facts,
    knowledge: gathered.knowledge,
    ids: counters,
    ...(result ? { result: toJson(result) as unknown as ResearchResult } : {}),
    savedAt: Date.now(),
  })

  const save = async (value: Checkpoint): Promise<StrategyEvent | undefined> => {
    try {
      if (!lock && !refused && !released) {
        lock = await store.acquire(base.runId)
        refused = lock === undefined
      }
      if (refused) return { type: 'warning', code: 'checkpoint-locked', message: `run ${base.runId} is locked by another process; no checkpoint saved` }
      if (released) return undefined
      await store.save(value)
      return undefined
    } catch (error) {
      return { type: 'warning', code: 'checkpoint-failed', message: `saving the checkpoint failed: ${describeError(error).message}` }
    }
  }

  return {
    step(next, seq, gathered, counters) {
      state = next
      return save(checkpoint('running', seq, gathered, undefined, counters))
    },
    async end(reason, result, nextSeq, gathered) {
      if (reason === 'paused') await save({ ...checkpoint('paused', nextSeq, gathered), ...(result.request ? { request: result.request } : {}) })
      else if (reason === 'answered' || reason === 'max-iterations') await save(checkpoint('final', nextSeq, gathered, result))
    },
    async release() {
      if (released) return
      released = true
      await lock?.().catch(() => undefined)
    },
  }
}

/**
 * Checks that a loaded checkpoint is this run's and fits this agent: the same run id, strategy,
 * strategy options and (when the caller names one) question. Anything else is a `config` error
 * naming the difference; nothing runs and the checkpoint stays as it is.
 */
export function assertResumable(
  checkpoint: Checkpoint,
  expected: { runId: string; strategy: Strategy; options: Readonly<SharedOptions>; question?: string },
): void {
  const fail = (problem: string) =>
    new LaconicError(`run ${expected.runId} cannot be resumed: ${problem}`, { code: 'config', hint: 'the checkpoint is left as it is; nothing was run' })
  if (checkpoint.runId !== expected.runId) throw fail(`its checkpoint is for run ${checkpoint.runId}`)
  const { name } = expected.strategy
  if (checkpoint.strategy !== name) {
    throw fail(`its checkpoint is for the \`${checkpoint.strategy}\` strategy, this agent runs \`${name}\``)
  }
  const mine = strategyOptionsOf(expected.strategy, expected.options)
  const differing = differingOptions(mine, checkpoint.options)
  // An option only the checkpoint has is one this version no longer has (`needsApproval` of react before 0.2).
  const gone = differing.filter((key) => !(key in flatOptions(mine)))
  if (gone.length) {
    throw fail(`its checkpoint was saved with ${gone.map((k) => `\`${k}\``).join(', ')}, which this version of laconic no longer has: run the question again`)
  }
  if (differing.length) throw fail(`the agent's ${differing.map((k) => `\`${k}\``).join(', ')} differ from the checkpoint's`)
  if (expected.question !== undefined && expected.question.trim() !== checkpoint.question) {
    throw fail(`its checkpoint is for the question "${checkpoint.question}"`)
  }
}

/** The options that differ, by name: `searchLimit`, or a field of the strategy's settings (`maxSteps`). */
function differingOptions(mine: Checkpoint['options'], saved: Checkpoint['options']): string[] {
  const [a, b] = [flatOptions(mine), flatOptions(saved)]
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]))
}

/** The shared options and the strategy's settings in one record, by name. */
function flatOptions(options: Checkpoint['options']): Record<string, JsonValue> {
  const { settings, ...shared } = options
  const own = settings !== null && typeof settings === 'object' && !Array.isArray(settings) ? settings : settings === undefined ? {} : { settings }
  return { ...shared, ...own }
}
