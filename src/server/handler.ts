/**
 * The research server as one Web-standard handler, `(request) => Promise<Response>`, over a run
 * host (`inProcessRuns`, or `redisRuns` of `laconic-research/redis`). It mounts as is in Hono,
 * Next.js route handlers, Bun and Deno; `createLiveServer` (`laconic-research/node`) is its
 * `node:http` shell. One protocol:
 *
 *   GET    /                        the live page (it works through the routes below)
 *   POST   /runs                    {question, strategy?, conversation?} → 201 {runId}
 *   GET    /runs/:id                the run's state, and its result once done
 *   GET    /runs/:id/events         Server-Sent Events; resumes after Last-Event-ID
 *   DELETE /runs/:id                cancel → 202
 *   GET    /runs/:id/source?url=U   the text of a `file:` source the run named
 *   POST   /runs/:id/decision       {action, reason?, queries?, args?}: answer a paused run → 201 {runId}
 *
 * Every error is JSON `{code, message}`. Every request passes the request guard once: a start,
 * a cancel or a decision must be a same-origin request carrying the page's token; a read must be a `GET`
 * with no cross-site marker; with `host`, the `Host` must name it (against DNS rebinding). Runs
 * in progress are limited server-wide and per client address.
 */
import type { InterruptDecision } from '../core/contracts/interruption.js'
import { SAFE_CHAT_ID } from '../conversations/session-store.js'
import type { EventStream } from '../streams/types.js'
import { sseResponse } from '../streams/index.js'
import { livePage } from './live-page.js'
import { readJsonObject } from '../wire/read-body.js'
import { createRequestGuard, type RequestGuardOptions, type RequestRefusal } from '../wire/request-guard.js'
import { contentSecurityPolicy, endedStream, failure, firstLine, json, pageResponse, sourceResponse, SSE_EXTRA_HEADERS, withoutFragment } from './responses.js'
import type { RunHost } from './run-host.js'

/** How many runs the handler lets be in progress. Beyond them a start gets `429` with `Retry-After`. */
export interface ResearchHandlerLimits {
  /** Runs in progress at once, all clients together. @defaultValue 8 */
  maxActiveRuns?: number | undefined
  /** Runs in progress at once from one client address (when the adapter tells the address). @defaultValue 2 */
  maxActiveRunsPerClient?: number | undefined
  /** The `Retry-After` of a 429, in seconds. @defaultValue 5 */
  retryAfterSeconds?: number | undefined
}

/**
 * Options of `createResearchHandler`. `host` and `token` are the request guard's
 * (`createRequestGuard`), as the chat handler's are; a shared token lets servers behind one load
 * balancer take each other's pages.
 */
export interface ResearchHandlerOptions extends RequestGuardOptions {
  /** Where the runs live: `inProcessRuns({ agent })`, or `redisRuns({ queue })` of `laconic-research/redis`. */
  runs: RunHost
  /** A banner on the page, e.g. "Scripted demo: …" or the model in use. */
  label?: string | undefined
  /** How many runs it lets be in progress; see `ResearchHandlerLimits`. */
  limits?: ResearchHandlerLimits | undefined
  /** Interval of SSE keep-alive comments, in ms; `0` turns them off. @defaultValue 15000 */
  heartbeatMs?: number | undefined
}

/** What an adapter knows of the client beyond the `Request`. */
export interface ClientInfo {
  /** The client's address (Node's `req.socket.remoteAddress`, Deno's `info.remoteAddr.hostname`, Bun's `server.requestIP(req)?.address`): the per-client limit counts by it. Unknown, only the server-wide limit applies. */
  address?: string | undefined
}

/** The handler: a `fetch`-style function. The second argument is optional, so it fits wherever `(request: Request) => Promise<Response>` does. */
export type ResearchHandler = (request: Request, client?: ClientInfo) => Promise<Response>

/** The longest question a run takes, in characters. */
const MAX_QUESTION_CHARS = 2000
/** A start's body is `{"question": "...", "strategy": "..."}`: a question of at most 2,000 characters fits in this many bytes. */
const MAX_START_BODY_BYTES = 16_384
const RETRY_MS = 3_000
const RUN_PATH = /^\/runs\/([A-Za-z0-9-]{1,64})(\/events|\/source|\/decision)?$/

const DECISION_ACTIONS: ReadonlySet<string> = new Set(['approve', 'reject', 'edit'])

const DEFAULT_LIMITS = { maxActiveRuns: 8, maxActiveRunsPerClient: 2, retryAfterSeconds: 5 } as const

const ROUTES = 'GET / (the live page), POST /runs, GET /runs/:id, GET /runs/:id/events, DELETE /runs/:id, GET /runs/:id/source?url=, POST /runs/:id/decision'

/** The research server as one Web-standard handler over `options.runs`. */
export function createResearchHandler(options: ResearchHandlerOptions): ResearchHandler {
  const { runs, label, host, heartbeatMs } = options
  const limits = { ...DEFAULT_LIMITS, ...definedOnly(options.limits ?? {}) }
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isSafeInteger(value) && value > 0)) throw new TypeError(`limits.${name} must be a positive integer, got ${value}`)
  }
  const guard = createRequestGuard({ host, token: options.token })
  const page = livePage(label, {
    token: guard.token,
    sourceView: runs.readSource !== undefined,
    decisions: runs.decide !== undefined,
    followUps: runs.conversations === true,
  })
  let policy: Promise<string> | undefined
  const active = activeRuns(limits)

  async function start(request: Request, client: string | undefined): Promise<Response> {
    const asked = await readStart(request, runs.conversations === true)
    if (asked instanceof Response) return asked
    // The slot is taken before the host is asked, so two starts at once cannot both squeeze in.
    const slot = active.take(client)
    if (slot instanceof Response) return slot
    try {
      const started = await runs.start(asked.question, { strategy: asked.strategy, conversation: asked.conversation })
      void started.ended.finally(() => active.release(slot))
      return json(201, { runId: started.runId })
    } catch (error) {
      active.release(slot)
      return failure(503, 'unavailable', `could not start the run: ${firstLine(error)}`)
    }
  }

  async function events(request: Request, runId: string): Promise<Response> {
    const header = request.headers.get('last-event-id')?.trim() ?? ''
    const after = /^\d{1,15}$/.test(header) ? Number(header) : undefined
    const stream: EventStream | 'ended' | undefined = await runs.events(runId, { after })
    if (stream === undefined) return noSuchRun(runId)
    if (stream === 'ended') return endedStream(RETRY_MS)
    return sseResponse(stream, { retryMs: RETRY_MS, headers: SSE_EXTRA_HEADERS, ...(heartbeatMs === undefined ? {} : { heartbeatMs }) })
  }

  async function route(request: Request, client: ClientInfo | undefined): Promise<Response> {
    const url = new URL(request.url)
    const method = request.method.toUpperCase()
    const path = url.pathname
    const read = method === 'GET' || method === 'HEAD'
    if (path === '/') {
      const refused = guard.checkRead(request)
      if (refused) return refuse(refused)
      policy ??= contentSecurityPolicy(page)
      return pageResponse(page, await policy)
    }
    if (path === '/runs') {
      // A GET never starts a run: an <img> or an EventSource on another site could send one.
      const refused = guard.checkStart(request)
      if (refused) return refuse(refused.status === 405 ? { ...refused, message: 'start a run with POST /runs and {"question": QUESTION}' } : refused)
      return start(request, client?.address)
    }
    const match = RUN_PATH.exec(path)
    if (!match) {
      const refused = guard.checkRead(request)
      return refused ? refuse(refused) : failure(404, 'not-found', `not found: try ${ROUTES}`)
    }
    const runId = match[1] as string
    const sub = match[2]
    if (sub === '/decision') {
      // A decision spends what the paused run was about to spend: the same proof as a start.
      const refused = guard.checkStart(request)
      return refused ? refuse(refused) : decide(runs, request, runId)
    }
    if (sub === undefined && method === 'DELETE') {
      // A cancel stops someone's paid run: it needs the same proof as a start.
      const refused = guard.checkChange(request)
      if (refused) return refuse(refused)
      return (await runs.cancel(runId)) ? json(202, { runId, cancelled: true }) : noSuchRun(runId)
    }
    const refused = guard.checkRead(request)
    if (refused) return refuse(sub === undefined && !read ? { ...refused, headers: { allow: 'GET, HEAD, DELETE' } } : refused)
    if (sub === '/events') return events(request, runId)
    if (sub === '/source') return source(runs, request, runId, url)
    const status = await runs.status(runId)
    return status ? json(200, status) : noSuchRun(runId)
  }

  return async (request, client) => {
    try {
      return await route(request, client)
    } catch (error) {
      // The host unreachable (Redis down, or slower than its deadline): say so instead of hanging the client.
      return failure(503, 'unavailable', firstLine(error))
    }
  }
}

/** What a start asks for: the question, and the strategy and conversation it names. */
interface StartRequest {
  question: string
  strategy: string | undefined
  conversation: string | undefined
}

/** A start's JSON body, checked; a refusal as a `Response`. */
async function readStart(request: Request, keepsConversations: boolean): Promise<StartRequest | Response> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    return failure(415, 'unsupported-media-type', 'send the run as JSON: {"question": "..."}')
  }
  const body = await readJsonObject(request, MAX_START_BODY_BYTES)
  const question = typeof body === 'object' && typeof body.question === 'string' ? body.question.trim() : ''
  if (body === 'too-large' || !question || question.length > MAX_QUESTION_CHARS) {
    return failure(400, 'bad-request', `send {"question": QUESTION} with a question of 1 to ${MAX_QUESTION_CHARS} characters`)
  }
  const strategy = typeof body === 'object' && typeof body.strategy === 'string' && body.strategy ? body.strategy : undefined
  const conversation = typeof body === 'object' ? body.conversation : undefined
  if (conversation === undefined) return { question, strategy, conversation }
  if (!keepsConversations) return failure(400, 'bad-request', 'this server keeps no conversations: send {"question": QUESTION} alone')
  if (typeof conversation !== 'string' || !SAFE_CHAT_ID.test(conversation)) {
    return failure(400, 'bad-request', 'a conversation is its chat id: 1 to 128 letters, digits, _ and -, starting with a letter or digit (a UUID fits)')
  }
  return { question, strategy, conversation }
}

/** Runs started here and not ended yet, with the client that started each (undefined: unknown), against the limits. */
function activeRuns(limits: Required<ResearchHandlerLimits>) {
  const active = new Map<symbol, string | undefined>()
  const count = (client?: string): number => {
    let n = 0
    for (const owner of active.values()) if (client === undefined || owner === client) n++
    return n
  }
  const busy = (why: string): Response =>
    failure(429, 'busy', `${why}; try again in ${limits.retryAfterSeconds} s`, { 'retry-after': String(limits.retryAfterSeconds) })
  return {
    /** A slot for a run of `client`, or the 429 when the limits are reached. */
    take(client: string | undefined): symbol | Response {
      if (count() >= limits.maxActiveRuns) return busy(`the server is running ${limits.maxActiveRuns} runs already`)
      if (client !== undefined && count(client) >= limits.maxActiveRunsPerClient)
        return busy(`you have ${limits.maxActiveRunsPerClient} runs in progress already`)
      const slot = Symbol('run')
      active.set(slot, client)
      return slot
    },
    release(slot: symbol): void {
      active.delete(slot)
    },
  }
}

/** The text of a `file:` source the run named; any other URL is unknown here, whatever its path says. */
async function source(runs: RunHost, request: Request, runId: string, url: URL): Promise<Response> {
  const named = withoutFragment(url.searchParams.get('url') ?? '')
  const unknown = () => failure(404, 'not-found', 'no such source: the view serves the file: sources a run kept here named in its results')
  if (!runs.readSource || !named) return unknown()
  try {
    const text = await runs.readSource(runId, named, request.signal)
    return text === undefined ? unknown() : sourceResponse(named, text)
  } catch (error) {
    const notFound = (error as { code?: unknown } | null)?.code === 'not-found'
    return failure(notFound ? 404 : 500, notFound ? 'not-found' : 'source-unreadable', `could not read ${named}: ${firstLine(error)}`)
  }
}

/** The answer to a paused run's request: the run goes on as a new run, whose id is answered. */
async function decide(runs: RunHost, request: Request, runId: string): Promise<Response> {
  if (!runs.decide) return failure(404, 'not-found', 'this server takes no decisions: resume the run where its checkpoints are (laconic resume)')
  const body = await readJsonObject(request, MAX_START_BODY_BYTES)
  if (typeof body !== 'object' || !DECISION_ACTIONS.has(body.action as string)) {
    return failure(400, 'bad-request', 'send the decision as JSON: {"action": "approve"}, {"action": "reject", "reason": "..."} or {"action": "edit", ...}')
  }
  try {
    const continued = await runs.decide(runId, body as unknown as InterruptDecision)
    return continued ? json(201, { runId: continued.runId }) : noSuchRun(runId)
  } catch (error) {
    // Not paused, answered already, or an edit that does not fit what the run waits for.
    if ((error as { code?: unknown } | null)?.code === 'config') return failure(409, 'conflict', firstLine(error))
    throw error
  }
}

function noSuchRun(runId: string): Response {
  return failure(404, 'not-found', `no run ${runId} (unknown, or finished a while ago: finished runs are kept for a while only)`)
}

function refuse(refusal: RequestRefusal): Response {
  return failure(refusal.status, refusal.status === 405 ? 'method-not-allowed' : 'forbidden', refusal.message, refusal.headers)
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
