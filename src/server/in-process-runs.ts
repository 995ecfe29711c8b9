/**
 * Runs on an agent in this process, for the research handler: each run is a `broadcast`, so
 * any number of readers follow it and a reconnecting one resumes after its `Last-Event-ID`. A
 * run nobody comes to read is aborted after a grace period, as is one whose readers all left;
 * finished runs are kept for replay within a count and a byte budget; `close()` aborts them all.
 */
import { resultOfEvents } from '../core/run/result-fold.js'
import type { CheckpointStore } from '../core/contracts/checkpoint.js'
import type { ResearchEvent } from '../core/contracts/events.js'
import type { InterruptDecision } from '../core/contracts/interruption.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { checkDecision } from '../core/run/decision.js'
import { memorySessions, type SessionStore } from '../conversations/session-store.js'
import { broadcast, type Broadcast } from '../streams/index.js'
import type { EventStream } from '../streams/types.js'
import { withoutFragment } from './responses.js'
import type { RunHost, RunStatus, SourceText, StartedRun } from './run-host.js'

/** A run as the in-process host reads it: its events, and how to stop it. */
type LiveRun = AsyncIterable<ResearchEvent> & { abort?(reason?: unknown): void }

/** What the in-process host needs of an agent: `createAgent(...)` fits. */
export interface LiveAgent {
  /** Starts a run of the question; aborting `signal` stops it (its last event is then `run-end` with reason `aborted`). */
  research(
    question: string,
    options: { signal: AbortSignal; checkpoints?: CheckpointStore; review?: { plan?: boolean; tools?: boolean } },
  ): AsyncIterable<ResearchEvent> & { abort?(reason?: unknown): void }
  /** Continues a paused run with the decision on what it waits for (needed for `POST /runs/:id/decision`). */
  resume?(
    runId: string,
    options: { checkpoints: CheckpointStore; decision: InterruptDecision; signal: AbortSignal },
  ): AsyncIterable<ResearchEvent> & { abort?(reason?: unknown): void }
  /** The conversation `chatId`, kept in `store` (needed for `POST /runs` with a `conversation`: follow-up questions). */
  session?(chatId: string, options: { store: SessionStore }): Pick<LiveAgent, 'research'>
}

/** Options of `inProcessRuns`. */
export interface InProcessRunsOptions {
  /** The agent that runs the research: `createAgent(...)`. */
  agent: LiveAgent
  /**
   * How long a run with no reader waits for one to come back (or, once started, for its first
   * one) before it is aborted.
   * @defaultValue 15000
   */
  graceMs?: number | undefined
  /** How long a finished run stays replayable. @defaultValue 300000 */
  keepMs?: number | undefined
  /** Finished runs kept for replay; the oldest is dropped first. @defaultValue 50 */
  maxRetainedRuns?: number | undefined
  /** Total size (as JSON) of the events of the finished runs kept; the oldest are dropped first. @defaultValue 16_000_000 */
  maxRetainedBytes?: number | undefined
  /**
   * Reads a `file:` source for the page's text view. Only a URL that run's `result` or `page`
   * events named is ever asked for; the text is served as `text/plain`, cut at 1,000,000
   * characters. A local corpus's `fetch` fits: `(url, signal) => corpus.fetch(url, { signal })`.
   * Unset, the view is off.
   */
  readSource?: ((url: string, signal: AbortSignal) => Promise<SourceText>) | undefined
  /**
   * Where runs save their checkpoints: with it, a run that pauses for a decision (a plan with
   * `review.plan`, a `react` tool call with `review.tools` or of a tool marked `needsApproval`) is answered from the page,
   * `POST /runs/:id/decision`, and goes on as a new run of this host (the agent's `resume`).
   * Unset, runs save no checkpoints and decisions are off.
   */
  checkpoints?: CheckpointStore | undefined
  /**
   * Which requests of every run wait for the page's decision (needs `checkpoints`): `plan` ends
   * each run `paused` right after its plan (a report's outline), `tools` at each `react` tool
   * call. The page approves or rejects; the agent's `resume` goes on. @defaultValue off
   */
  review?: { plan?: boolean; tools?: boolean } | undefined
  /**
   * Where conversations live: a run started with a `conversation` is that chat's next turn
   * (`agent.session(conversation, { store })`), so the page's follow-up questions build on what
   * earlier runs found. `fileSessions(dir)` of `laconic-research/node` keeps them across restarts.
   * A run continued after a decision is not a turn of the conversation.
   * @defaultValue memorySessions()
   */
  sessions?: SessionStore | undefined
}

/** The in-process run host: give it to `createResearchHandler`; `close()` aborts every run. */
export interface InProcessRuns extends RunHost {
  /** Aborts every run (each open stream gets its `run-end`) and every source read; later starts are refused. */
  close(): void
}

interface RunRecord {
  readonly id: string
  readonly question: string
  readonly hub: Broadcast
  readonly controller: AbortController
  readonly ledger: Ledger
  readonly history: ResearchEvent[]
  readonly ended: Promise<void>
  finished: boolean
  cancelled: boolean
  /** The run that answered this one's request (`decide`), so a second decision is refused. */
  continuedBy?: string | undefined
  /** Aborts a run nobody subscribed to in time. */
  unclaimed?: ReturnType<typeof setTimeout> | undefined
  forget?: ReturnType<typeof setTimeout> | undefined
  /** Settles `ended` when the run is dropped before it finished. */
  dropped(): void
}

/** The switches every run gets (undefined when none is on): they need `checkpoints`, and the removed `pauseAfterPlan` names them. */
function reviewSwitches(options: InProcessRunsOptions): InProcessRunsOptions['review'] {
  if ((options as { pauseAfterPlan?: unknown }).pauseAfterPlan !== undefined) {
    throw new LaconicError('`pauseAfterPlan` was replaced: use `review: { plan: true }`', { code: 'config' })
  }
  const { review } = options
  if (review?.plan !== true && review?.tools !== true) return undefined
  if (!options.checkpoints) throw new TypeError('`review` needs `checkpoints`: a paused run is resumed from its checkpoint')
  return { ...review }
}

/** Runs on `agent` in this process. */
export function inProcessRuns(options: InProcessRunsOptions): InProcessRuns {
  const { agent, readSource, checkpoints } = options
  const sessions = options.sessions ?? memorySessions()
  const review = reviewSwitches(options)
  const graceMs = positive('graceMs', options.graceMs ?? 15_000)
  const keepMs = positive('keepMs', options.keepMs ?? 300_000)
  const maxRetainedRuns = positive('maxRetainedRuns', options.maxRetainedRuns ?? 50)
  const maxRetainedBytes = positive('maxRetainedBytes', options.maxRetainedBytes ?? 16_000_000)
  const runs = new Map<string, RunRecord>()
  // Finished runs, oldest first: the ones dropped when the retention budget is exceeded.
  const retained: RunRecord[] = []
  // Source reads in progress: closing aborts them.
  const readings = new Set<AbortController>()
  let closed = false

  const forget = (record: RunRecord): void => {
    clearTimeout(record.unclaimed)
    clearTimeout(record.forget)
    runs.delete(record.id)
    record.dropped()
    const index = retained.indexOf(record)
    if (index !== -1) retained.splice(index, 1)
  }

  const retain = (record: RunRecord): void => {
    record.finished = true
    clearTimeout(record.unclaimed)
    if (!runs.has(record.id)) return
    retained.push(record)
    record.forget = setTimeout(() => forget(record), keepMs)
    unref(record.forget)
    let bytes = retained.reduce((sum, kept) => sum + kept.ledger.bytes, 0)
    while (retained.length > maxRetainedRuns || (bytes > maxRetainedBytes && retained.length > 0)) {
      const oldest = retained[0] as RunRecord
      bytes -= oldest.ledger.bytes
      forget(oldest)
    }
  }

  const abort = (record: RunRecord, why: string): void => record.controller.abort(new DOMException(why, 'AbortError'))

  /** Hosts a run whose events `open` starts reading (given the signal that stops it). */
  const host = (question: string, open: (signal: AbortSignal) => LiveRun): RunRecord => {
    if (closed) throw new Error('the server is closing')
    const controller = new AbortController()
    const ledger: Ledger = { bytes: 0, sources: readSource ? new Set() : undefined }
    const history: ResearchEvent[] = []
    const hub = broadcast(observed(open(controller.signal), ledger, history), { graceMs })
    let dropped = () => {}
    const ended = Promise.race([hub.finished, new Promise<void>((resolve) => (dropped = resolve))])
    const record: RunRecord = { id: crypto.randomUUID(), question, controller, ledger, hub, history, ended, finished: false, cancelled: false, dropped }
    runs.set(record.id, record)
    // A run whose page never comes to read it would hold its slot forever.
    record.unclaimed = setTimeout(() => {
      if (record.hub.subscriberCount > 0) return
      abort(record, 'nobody read the run')
      forget(record)
    }, graceMs)
    unref(record.unclaimed)
    void hub.finished.then(() => retain(record))
    return record
  }

  const decide = async (runId: string, decision: InterruptDecision): Promise<StartedRun | undefined> => {
    const record = runs.get(runId)
    if (!record) return undefined
    const end = pausedEnd(record)
    const { resume } = agent
    if (!checkpoints || !resume) return undefined
    const checked = checkDecision(decision, end.request, runId)
    // The agent's own id of the run (its checkpoints are saved under it), from its events.
    const agentRunId = end.runId
    const next = host(record.question, (signal) => resume.call(agent, agentRunId, { checkpoints, decision: checked, signal }))
    record.continuedBy = next.id
    return { runId: next.id, ended: next.ended }
  }

  return {
    async start(question, { conversation }) {
      if (conversation !== undefined && !agent.session) throw new TypeError('this agent keeps no conversations: it has no `session` method')
      // A conversation's turn runs on the session, which loads what earlier turns found first.
      const researcher = conversation !== undefined && agent.session ? agent.session(conversation, { store: sessions }) : agent
      const record = host(question, (signal) =>
        researcher.research(question, { signal, ...(checkpoints ? { checkpoints } : {}), ...(review ? { review } : {}) }),
      )
      return { runId: record.id, ended: record.ended }
    },

    conversations: agent.session !== undefined,

    ...(checkpoints && agent.resume ? { decide } : {}),

    async status(runId) {
      const record = runs.get(runId)
      return record ? statusOf(record) : undefined
    },

    async events(runId, { after }) {
      const record = runs.get(runId)
      if (!record) return undefined
      const last = record.history.at(-1)
      if (after !== undefined && record.finished && last?.type === 'run-end' && last.seq <= after) return 'ended'
      return record.hub.subscribe(after === undefined ? 0 : after + 1)
    },

    async cancel(runId) {
      const record = runs.get(runId)
      if (!record) return false
      record.cancelled = true
      abort(record, 'the run was cancelled')
      // A run nobody reads has not started: it will never end by itself.
      if (record.hub.subscriberCount === 0 && !record.finished) forget(record)
      return true
    },

    ...(readSource
      ? {
          async readSource(runId: string, url: string, signal: AbortSignal) {
            const named = withoutFragment(url)
            if (!runs.get(runId)?.ledger.sources?.has(named)) return undefined
            return readUntilClosed(readSource, named, signal, readings)
          },
        }
      : {}),

    close() {
      closed = true
      for (const record of [...runs.values()]) {
        abort(record, 'the live server closed')
        forget(record)
      }
      for (const reading of readings) reading.abort(new DOMException('the live server closed', 'AbortError'))
    },
  }
}

/** The `run-end` of a run paused for a decision not given yet; else a `config` LaconicError saying why not. */
function pausedEnd(record: RunRecord): Extract<ResearchEvent, { type: 'run-end' }> & { reason: 'paused' } {
  const end = record.history.at(-1)
  if (!record.finished || end?.type !== 'run-end' || end.reason !== 'paused') {
    throw new LaconicError(`run ${record.id} is not paused: nothing waits for a decision`, { code: 'config' })
  }
  if (record.continuedBy !== undefined) {
    throw new LaconicError(`run ${record.id} was answered already: follow run ${record.continuedBy}`, { code: 'config' })
  }
  return end as Extract<ResearchEvent, { type: 'run-end' }> & { reason: 'paused' }
}

/** The run's state, and its result once done. */
function statusOf(record: RunRecord): RunStatus {
  const status: RunStatus = { runId: record.id, state: 'running', question: record.question, cancelled: record.cancelled }
  if (!record.finished) return status
  if (record.history.at(-1)?.type === 'run-end') {
    status.state = 'done'
    status.result = resultOfEvents(record.history)
  } else {
    status.state = 'failed'
    status.error = 'the run stopped without its run-end'
  }
  return status
}

/** Reads a source; the read stops when its reader leaves (`signal`) or the host closes (it aborts every one of `readings`). */
async function readUntilClosed(
  read: NonNullable<InProcessRunsOptions['readSource']>,
  url: string,
  signal: AbortSignal,
  readings: Set<AbortController>,
): Promise<SourceText> {
  const reading = new AbortController()
  const stop = () => reading.abort(signal.reason)
  signal.addEventListener('abort', stop, { once: true })
  readings.add(reading)
  try {
    return await read(url, reading.signal)
  } finally {
    signal.removeEventListener('abort', stop)
    readings.delete(reading)
  }
}

/** What a run's events have shown, gathered as they pass. */
interface Ledger {
  /** JSON size of the events so far: what keeping the run for replay costs. */
  bytes: number
  /** The `file:` URLs (without fragment) its `result` and `page` events named: all the text view serves. Undefined when the host reads no sources. */
  readonly sources: Set<string> | undefined
}

/** The run, entering each event in the ledger and the history as it passes. */
function observed(run: LiveRun, ledger: Ledger, history: ResearchEvent[]): EventStream {
  return {
    [Symbol.asyncIterator]() {
      const iterator = run[Symbol.asyncIterator]()
      return {
        async next() {
          const step = await iterator.next()
          if (!step.done) {
            history.push(step.value)
            ledger.bytes += JSON.stringify(step.value).length
            if (ledger.sources) for (const url of sourcesNamed(step.value)) ledger.sources.add(url)
          }
          return step
        },
        async return(value?: unknown) {
          return (await iterator.return?.(value)) ?? { done: true, value: undefined }
        },
      }
    },
    ...(run.abort ? { abort: (reason?: unknown) => run.abort?.(reason) } : {}),
  }
}

/** The `file:` URLs an event names as sources: a search's results, or a page read. */
function sourcesNamed(event: ResearchEvent): string[] {
  // Total: an agent other than createAgent may yield events of any shape.
  const urls: unknown[] =
    event.type === 'result' && Array.isArray(event.results) ? event.results.map((result) => result?.url) : event.type === 'page' ? [event.url] : []
  return urls.filter((url): url is string => typeof url === 'string' && /^file:/i.test(url)).map(withoutFragment)
}

function positive(name: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value > 0)) throw new TypeError(`\`${name}\` must be a positive integer, got ${value}`)
  return value
}

/** Timers of a long-lived server must not keep a Node process alive; elsewhere there is no unref. */
function unref(timer: ReturnType<typeof setTimeout>): void {
  ;(timer as { unref?: () => void }).unref?.()
}
