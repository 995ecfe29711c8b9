/**
 * What the research handler needs of the place runs live: start one, say how it is doing, stream
 * its events from a point, cancel it, and (optionally) read the text of a source it named. Two
 * hosts ship: `inProcessRuns` (runs on an agent in this process) and `redisRuns` (the Redis
 * queue and event log of `laconic-research/redis`, runs on workers anywhere).
 */
import type { InterruptDecision } from '../core/contracts/interruption.js'
import type { ResearchResult } from '../core/contracts/result.js'
import type { EventStream } from '../streams/types.js'

/** `queued`: waiting for a worker; `running`: in progress; `done`: it ended (see `result.reason`); `failed`: it could not run to its end. */
export type RunState = 'queued' | 'running' | 'done' | 'failed'

/** A run as `GET /runs/:id` shows it. */
export interface RunStatus {
  /** The run's id, as `POST /runs` answered it. */
  runId: string
  /** Where the run is: see `RunState`. */
  state: RunState
  /** The question, trimmed. */
  question: string
  /** The strategy the run asked for, when it named one. */
  strategy?: string
  /** Set when `done`. */
  result?: ResearchResult
  /** Why it `failed`. */
  error?: string
  /** Whether it was cancelled. */
  cancelled: boolean
}

/** A source's text for the page's text view. */
export interface SourceText {
  /** The source's title, shown above its URL. */
  title?: string | undefined
  /** The source's text, served as plain text. */
  text: string
}

/** A run the host started: its id, and when it ends (the handler counts it in progress until then). */
export interface StartedRun {
  /** The run's id: its events are at `/runs/:id/events`. */
  runId: string
  /** Settles (never rejects) once the run has ended, failed or been given up. */
  ended: Promise<void>
}

/** Where the research handler's runs live. */
export interface RunHost {
  /**
   * Starts a run of the (trimmed, non-empty) question, with the strategy it names if any. With
   * a `conversation` (a chat id), the run is the next turn of that conversation: it builds on
   * what the conversation's earlier runs found (only when `conversations` is true).
   */
  start(question: string, options: { strategy?: string | undefined; conversation?: string | undefined }): Promise<StartedRun>
  /** True when `start` continues a `conversation`: the page then offers follow-up questions. Unset, `POST /runs` refuses a conversation. */
  readonly conversations?: boolean | undefined
  /** The run's state, and its result once done; undefined for an unknown (or expired) run. */
  status(runId: string): Promise<RunStatus | undefined>
  /**
   * The run's events after `after` (all of them without it), then live ones until `run-end`.
   * `'ended'` when the run's `run-end` is at or before `after`: nothing more will ever come.
   * Undefined for an unknown run. Cancelling the stream stops this reader only.
   */
  events(runId: string, options: { after?: number | undefined }): Promise<EventStream | 'ended' | undefined>
  /** Stops the run; false for an unknown one. */
  cancel(runId: string): Promise<boolean>
  /**
   * Answers what a paused run waits for (its `run-end` carries the request) and continues it as
   * a new run of this host, for `POST /runs/:id/decision`. Undefined for an unknown run; rejects
   * with a `config` `LaconicError` for a run that is not paused, or a decision that does not fit.
   * Without this method, decisions are off.
   */
  decide?(runId: string, decision: InterruptDecision): Promise<StartedRun | undefined>
  /**
   * The text of a source the run named, for `GET /runs/:id/source?url=`. Undefined when the run
   * never named that URL (or the host keeps no sources). Without this method the view is off.
   */
  readSource?(runId: string, url: string, signal: AbortSignal): Promise<SourceText | undefined>
}
