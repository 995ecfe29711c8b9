import pLimit from 'p-limit'
import type { Cost } from '../contracts/run-cost.js'
import { abortError, LaconicError } from '../contracts/laconic-error.js'
import { onAbort } from '../util/abort-listener.js'
import type { ErrorInfo, StrategyEvent } from '../contracts/events.js'
import type { IdSource } from '../util/ids.js'
import type { OpenCalls } from './open-calls.js'
import type { ResultDate } from './allowed-sources.js'
import type { LLMProvider, RetryInfo } from '../contracts/providers.js'
import type { ModelRole, ResearchOptions, Resumption, Schedule, SharedOptions } from '../contracts/strategy-types.js'

/** What every scope of one run shares: its identity, options, model lookup and id counters. */
export interface RunShared {
  runId: string
  question: string
  options: Readonly<SharedOptions>
  input: Readonly<ResearchOptions>
  model(role: ModelRole): LLMProvider
  newId(prefix: string): string
  ids: IdSource
  resumed: Resumption | undefined
  /** The plan is put to the caller once per run, and never after a resume: true once that is settled. */
  planReviewed: boolean
  ledger: Ledger
  /** Each role's last prompt, to tell the role's next call how much of it stays the same. */
  lastPrompts: Map<ModelRole, string>
  /** The run's own signal (a scope's may abort alone): once it aborts, the runtime stops reading the strategy. */
  runSignal: AbortSignal
  /** Model calls with output not yet counted (see `OpenCalls`). */
  openCalls: OpenCalls
  /** With `sources` dates: how each result the run's searches kept was dated, by URL, so a page read of it with no date of its own is judged by it. */
  resultDates: Map<string, ResultDate>
  /** The run's one limit: every search, page read and model call of every scope holds a slot of its lane while in flight. */
  limit: RunLimit
}

/** What the run's scopes spent and how its searches went, for the budget and the no-search check. */
export interface Ledger {
  /** Known dollars spent (models and searches). */
  dollars: number
  /** The most one model call has cost so far: the reserve kept for the final answer is twice it. */
  priciestCall: number
  searchesOk: number
  firstSearchFailure: ErrorInfo | undefined
}

/**
 * A run's ledger. A resumed run's budget counts what was spent before the checkpoint (`spent`);
 * its searches then are taken to have worked (the ledger is not saved, and "every search failed"
 * must not end a run that had results before it was resumed).
 */
export function createLedger(spent?: Cost): Ledger {
  return { dollars: spent?.total ?? 0, priciestCall: 0, searchesOk: spent?.searches ?? 0, firstSearchFailure: undefined }
}

/** Runs work at once: nested work in a slot already held. */
export const runNow: Schedule = (work) => work()

/** A run's model calls, and its searches and page reads, in flight at once when its strategy sets no `concurrency`. */
export const DEFAULT_CONCURRENCY = 4

/** What a request holds a slot for: the model server, or another host (a search, a page, a tool). */
export type RequestKind = 'model' | 'network'

/**
 * The one limit of a run: a lane of `concurrency` slots per kind of request, each served first
 * come first served. Model calls have a lane of their own because they are what a small local
 * model's server has room for a few of at once, while a search or page read waits on another
 * host: in one shared lane, searches a streaming reply starts early (pipelining) would wait for
 * the slots the model calls hold, and gain nothing.
 */
export type RunLimit = Readonly<Record<RequestKind, Schedule>>

export function createLimit(concurrency = DEFAULT_CONCURRENCY): RunLimit {
  return { model: pLimit(concurrency), network: pLimit(concurrency) }
}

/** The lane of `kind`: a `config` error names the kinds when it is neither (a caller's JavaScript may pass anything). */
export function laneOf(limit: RunLimit, kind: unknown): Schedule {
  if (kind === 'model' || kind === 'network') return limit[kind]
  throw new LaconicError(`no lane of the run's limit is called ${JSON.stringify(kind)}`, {
    code: 'config',
    hint: "ctx.limit's `kind` is 'model' (work that calls a model) or 'network' (any other request: the default)",
  })
}

/**
 * The run's limit as a scope uses it: work still waiting for a slot when `signal` aborts rejects
 * with the abort error at once and never starts (its place in line is given up), so cancelling
 * a run or a scope stops its queued requests as well as those in flight.
 */
export function limitFor(limit: Schedule, signal: AbortSignal): Schedule {
  return <T>(work: () => Promise<T>) => {
    if (signal.aborted) return Promise.reject(abortError(signal))
    return new Promise<T>((resolve, reject) => {
      let started = false
      const stop = onAbort(signal, () => {
        if (!started) reject(abortError(signal))
      })
      void limit(async () => {
        if (signal.aborted) return
        started = true
        stop()
        try {
          resolve(await work())
        } catch (error) {
          reject(error)
        }
      })
    })
  }
}

/** Retries happen inside a provider call; their notices are emitted once the call returns. */
export function retryNotices(label: string): { pending: StrategyEvent[]; onRetry: (info: RetryInfo) => void } {
  const pending: StrategyEvent[] = []
  const onRetry = (info: RetryInfo) => {
    pending.push({
      type: 'warning',
      code: 'retry',
      message: `${label}: attempt ${info.attempt} failed (${info.reason}); retrying in ${Math.round(info.delayMs)} ms`,
    })
  }
  return { pending, onRetry }
}
