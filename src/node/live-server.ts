/**
 * The live research server on `node:http`: the research handler of `laconic-research/server`
 * over runs on an agent in this process, in a `node:http` shell. See `createResearchHandler`
 * for the protocol; this file adds only what Node needs (the listener, `431` for oversized
 * headers, and `close()` aborting the runs).
 */
import type { Server } from 'node:http'
import { createResearchHandler, type ResearchHandlerLimits } from '../server/handler.js'
import { inProcessRuns, type InProcessRunsOptions, type LiveAgent } from '../server/in-process-runs.js'
import type { RequestGuardOptions } from '../wire/request-guard.js'
import { createHandlerServer } from './node-listener.js'

/** How much one server takes on. Beyond the run limits a start gets `429` with `Retry-After`. */
export interface LiveServerLimits extends ResearchHandlerLimits {
  /** Finished runs kept for replay; the oldest is dropped first. @defaultValue 50 */
  maxRetainedRuns?: number | undefined
  /** Total size (as JSON) of the events of the finished runs kept; the oldest are dropped first. @defaultValue 16_000_000 */
  maxRetainedBytes?: number | undefined
}

/** Options of `createLiveServer`. `host` and `token` are the request guard's, as on `createResearchHandler`. */
export interface LiveServerOptions extends RequestGuardOptions {
  /** The agent that runs the research: `createAgent(...)`. */
  agent: LiveAgent
  /** A banner on the page, e.g. "Scripted demo: …" or the model in use. */
  label?: string | undefined
  /**
   * How long a run with no viewer waits for one to come back (or, once started, for its
   * first one) before it is aborted.
   * @defaultValue 15000
   */
  graceMs?: number | undefined
  /**
   * How long a finished run stays replayable (a reload of the same run shows it again).
   * @defaultValue 300000
   */
  keepMs?: number | undefined
  /** Interval of SSE keep-alive comments, in ms; `0` turns them off. @defaultValue 15000 */
  heartbeatMs?: number | undefined
  /** How many runs it takes on and keeps; see `LiveServerLimits` for the defaults. */
  limits?: LiveServerLimits | undefined
  /** Reads a `file:` source a run named for the page's text view, `GET /runs/:id/source?url=URL`; see `InProcessRunsOptions.readSource`. Unset, the view is off. */
  readSource?: InProcessRunsOptions['readSource']
  /** Where runs save their checkpoints, so the page can answer a paused run (`POST /runs/:id/decision`); see `InProcessRunsOptions.checkpoints`. */
  checkpoints?: InProcessRunsOptions['checkpoints']
  /** Which requests of every run wait for the page's decision (needs `checkpoints`); see `InProcessRunsOptions.review`. @defaultValue off */
  review?: InProcessRunsOptions['review']
  /** Where the page's conversations live (follow-up questions build on earlier runs); see `InProcessRunsOptions.sessions`. @defaultValue memorySessions() */
  sessions?: InProcessRunsOptions['sessions']
}

/** The HTTP server, not yet listening: call `.listen(port, host)` on it. Closing it aborts every run. */
export function createLiveServer(options: LiveServerOptions): Server {
  const { agent, label, graceMs, keepMs, heartbeatMs, host, token, readSource, checkpoints, review, sessions, limits = {} } = options
  const { maxRetainedRuns, maxRetainedBytes, ...runLimits } = limits
  // The removed option goes on to the host, which refuses it naming `review`.
  const removed = 'pauseAfterPlan' in options ? { pauseAfterPlan: (options as { pauseAfterPlan?: unknown }).pauseAfterPlan } : {}
  const runs = inProcessRuns({ agent, graceMs, keepMs, readSource, checkpoints, review, sessions, maxRetainedRuns, maxRetainedBytes, ...removed })
  const handler = createResearchHandler({ runs, label, host, token, heartbeatMs, limits: runLimits })
  const server = createHandlerServer(handler)
  // `close()` aborts the runs first: each open stream then gets its `run-end` (aborted) and
  // ends, so a viewer learns the run stopped instead of seeing the connection drop.
  const closeServer = server.close.bind(server)
  server.close = (callback?: (error?: Error) => void) => {
    runs.close()
    return closeServer(callback)
  }
  server.on('close', () => runs.close())
  return server
}
