/**
 * The live research server: `GET /` serves the live page, `POST /research` (from that page,
 * with its token) starts a run and answers its id, `GET /research?run=ID` streams the run as
 * Server-Sent Events. A reconnecting browser (EventSource sends `Last-Event-ID` by itself)
 * resumes where it stopped, and a closed tab aborts the run after a grace period. Runs are
 * limited server-wide and per client address, finished runs are kept for replay within a
 * count and a byte budget, and closing the server aborts every run. Given `readSource`, it also
 * serves `GET /source?run=ID&url=URL`: the text of a `file:` source that run's events named,
 * as plain text, so the page can open local-corpus sources.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { ResearchEvent } from '../core/index.js'
import { broadcast, pipeSSE, type Broadcast, type EventStream } from '../streams/index.js'
import { livePage } from './live-page.js'
import { createRequestGuard, type RequestRefusal } from './request-guard.js'

/** What the server needs of an agent: `createAgent(...)` fits. */
export interface LiveAgent {
  research(question: string, options: { signal: AbortSignal }): AsyncIterable<ResearchEvent> & { abort?(reason?: unknown): void }
}

/** How much one server takes on. Beyond the run limits a start gets `429` with `Retry-After`. */
export interface LiveServerLimits {
  /** Runs in progress at once, all clients together. @defaultValue 8 */
  maxActiveRuns?: number | undefined
  /** Runs in progress at once from one client address. @defaultValue 2 */
  maxActiveRunsPerClient?: number | undefined
  /** Finished runs kept for replay; the oldest is dropped first. @defaultValue 50 */
  maxRetainedRuns?: number | undefined
  /** Total size (as JSON) of the events of the finished runs kept; the oldest are dropped first. @defaultValue 16_000_000 */
  maxRetainedBytes?: number | undefined
  /** The `Retry-After` of a 429, in seconds. @defaultValue 5 */
  retryAfterSeconds?: number | undefined
}

export interface LiveServerOptions {
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
  /** Interval of SSE keep-alive comments; see `pipeSSE`. */
  heartbeatMs?: number | undefined
  /**
   * Serve only requests whose `Host` header names this host (any loopback name counts for a
   * loopback one): set it when listening on loopback, against DNS rebinding. Unset, any
   * `Host` is served.
   */
  host?: string | undefined
  /** How many runs it takes on and keeps; see `LiveServerLimits` for the defaults. */
  limits?: LiveServerLimits | undefined
  /**
   * Reads a `file:` source for the page's text view, `GET /source?run=ID&url=URL` (the page then
   * links `file:` sources there). Only a URL that run's `result` or `page` events named is ever
   * asked for; the text is served as `text/plain`, cut at 1,000,000 characters. A local
   * corpus's `fetch` fits: `(url, signal) => corpus.fetch(url, { signal })`. Unset, `file:`
   * sources are not links and `/source` answers 404.
   */
  readSource?: ((url: string, signal: AbortSignal) => Promise<{ title?: string | undefined; text: string }>) | undefined
}

export const MAX_QUESTION_CHARS = 2000

/** The most of a source's text the text view serves; the rest is cut with a note. */
const MAX_SOURCE_CHARS = 1_000_000

/** A start's body is `{"q": "..."}`: a question of at most 2,000 characters fits in this many bytes. */
const MAX_START_BODY_BYTES = 16_384

const DEFAULT_LIMITS = {
  maxActiveRuns: 8,
  maxActiveRunsPerClient: 2,
  maxRetainedRuns: 50,
  maxRetainedBytes: 16_000_000,
  retryAfterSeconds: 5,
} as const

interface RunRecord {
  readonly id: string
  readonly client: string
  readonly hub: Broadcast
  readonly controller: AbortController
  /** What the run's events have shown so far: see `observed`. */
  readonly ledger: Ledger
  finished: boolean
  /** Aborts a run nobody subscribed to in time. */
  unclaimed?: ReturnType<typeof setTimeout> | undefined
  forget?: ReturnType<typeof setTimeout> | undefined
}

/** The HTTP server, not yet listening: call `.listen(port, host)` on it. */
export function createLiveServer(options: LiveServerOptions): Server {
  const { agent, label, graceMs = 15_000, keepMs = 300_000, heartbeatMs, host, readSource } = options
  const limits = { ...DEFAULT_LIMITS, ...definedOnly(options.limits ?? {}) }
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isSafeInteger(value) && value > 0)) throw new TypeError(`limits.${name} must be a positive integer, got ${value}`)
  }
  const guard = createRequestGuard({ host })
  const page = livePage(label, { token: guard.token, sourceView: readSource !== undefined })
  const headers = pageHeaders(page)
  const runs = new Map<string, RunRecord>()
  // Source reads in progress: closing the server aborts them.
  const readings = new Set<AbortController>()
  // Finished runs, oldest first: the ones dropped when the retention budget is exceeded.
  const retained: RunRecord[] = []
  let closed = false

  const forget = (record: RunRecord): void => {
    clearTimeout(record.unclaimed)
    clearTimeout(record.forget)
    runs.delete(record.id)
    const index = retained.indexOf(record)
    if (index !== -1) retained.splice(index, 1)
  }

  const retain = (record: RunRecord): void => {
    record.finished = true
    clearTimeout(record.unclaimed)
    if (!runs.has(record.id)) return
    retained.push(record)
    record.forget = setTimeout(() => forget(record), keepMs).unref()
    let bytes = retained.reduce((sum, kept) => sum + kept.ledger.bytes, 0)
    while (retained.length > limits.maxRetainedRuns || (bytes > limits.maxRetainedBytes && retained.length > 0)) {
      const oldest = retained[0] as RunRecord
      bytes -= oldest.ledger.bytes
      forget(oldest)
    }
  }

  const activeRuns = (client?: string): number => {
    let count = 0
    for (const record of runs.values()) if (!record.finished && (client === undefined || record.client === client)) count++
    return count
  }

  const startRun = (question: string, client: string): RunRecord => {
    const controller = new AbortController()
    const ledger: Ledger = { bytes: 0, sources: readSource ? new Set() : undefined }
    const hub = broadcast(observed(agent.research(question, { signal: controller.signal }), ledger), { graceMs })
    const record: RunRecord = { id: crypto.randomUUID(), client, controller, ledger, hub, finished: false }
    runs.set(record.id, record)
    // A run whose page never comes to read it would hold its slot forever.
    record.unclaimed = setTimeout(() => {
      if (record.hub.subscriberCount > 0) return
      controller.abort(new DOMException('nobody read the run', 'AbortError'))
      forget(record)
    }, graceMs).unref()
    void record.hub.finished.then(() => retain(record))
    return record
  }

  const start = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = guard.checkStart(req)
    if (refused) return refuse(res, refused)
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
      return text(res, 415, 'send the question as JSON: {"q": "..."}')
    }
    const body = await readBody(req, MAX_START_BODY_BYTES)
    const question = questionOf(body)
    if (question === undefined) return text(res, 400, `send {"q": QUESTION} with a question of 1 to ${MAX_QUESTION_CHARS} characters`)
    const client = req.socket.remoteAddress ?? 'unknown'
    if (closed) return text(res, 503, 'the server is closing')
    if (activeRuns() >= limits.maxActiveRuns) return busy(res, `the server is running ${limits.maxActiveRuns} runs already`)
    if (activeRuns(client) >= limits.maxActiveRunsPerClient) return busy(res, `you have ${limits.maxActiveRunsPerClient} runs in progress already`)
    const record = startRun(question, client)
    res
      .writeHead(201, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
      .end(JSON.stringify({ run: record.id, events: `/research?run=${record.id}` }))
  }

  const busy = (res: ServerResponse, why: string): void => {
    res
      .writeHead(429, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': String(limits.retryAfterSeconds), 'x-content-type-options': 'nosniff' })
      .end(`${why}; try again in ${limits.retryAfterSeconds} s\n`)
  }

  const read = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    if (url.searchParams.has('q') && !url.searchParams.has('run')) {
      refuse(res, { status: 405, message: 'start a run with POST /research and {"q": QUESTION}; GET only reads a run', headers: { allow: 'POST' } })
      return
    }
    const record = runs.get(url.searchParams.get('run') ?? '')
    if (!record) {
      text(res, 404, 'no such run (finished runs are kept for a while only)')
      return
    }
    const lastEventId = req.headers['last-event-id']
    const fromSeq = typeof lastEventId === 'string' && /^\d+$/.test(lastEventId) ? Number(lastEventId) + 1 : 0
    pipeSSE(record.hub.subscribe(fromSeq), res, heartbeatMs === undefined ? {} : { heartbeatMs }).catch(() => res.destroy())
  }

  // The text of a `file:` source the run named; any other URL is unknown here, whatever its path says.
  const serveSource = async (res: ServerResponse, url: URL): Promise<void> => {
    const record = runs.get(url.searchParams.get('run') ?? '')
    const named = withoutFragment(url.searchParams.get('url') ?? '')
    if (!readSource || !record?.ledger.sources?.has(named)) {
      return text(res, 404, 'no such source: the view serves file: sources that a run kept here named in its results')
    }
    // A read stops when its reader leaves or the server closes.
    const reading = new AbortController()
    readings.add(reading)
    res.once('close', () => reading.abort(new DOMException('the reader left', 'AbortError')))
    try {
      const source = await readSource(named, reading.signal)
      res.writeHead(200, SOURCE_HEADERS).end(sourceText(named, source))
    } catch (error) {
      const notFound = (error as { code?: unknown } | null)?.code === 'not-found'
      text(res, notFound ? 404 : 500, `could not read ${named}: ${firstLine(error)}`)
    } finally {
      readings.delete(reading)
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname === '/research' && req.method === 'POST') {
      start(req, res).catch(() => res.destroy())
      return
    }
    const refused = guard.checkRead(req)
    if (refused) return refuse(res, refused)
    if (url.pathname === '/') res.writeHead(200, headers).end(page)
    else if (url.pathname === '/research') read(req, res, url)
    else if (url.pathname === '/source') serveSource(res, url).catch(() => res.destroy())
    else text(res, 404, 'not found: try GET / (the live page)')
  })
  const abortAll = (): void => {
    closed = true
    for (const record of [...runs.values()]) {
      record.controller.abort(new DOMException('the live server closed', 'AbortError'))
      forget(record)
    }
    for (const reading of readings) reading.abort(new DOMException('the live server closed', 'AbortError'))
  }
  // `close()` aborts the runs first: each open stream then gets its `run-end` (aborted) and
  // ends, so a viewer learns the run stopped instead of seeing the connection drop.
  const closeServer = server.close.bind(server)
  server.close = (callback?: (error?: Error) => void) => {
    abortAll()
    return closeServer(callback)
  }
  server.on('close', abortAll)
  return server
}

/** What a run's events have shown, gathered as they pass. */
interface Ledger {
  /** JSON size of the events so far: what keeping the run for replay costs. */
  bytes: number
  /** The `file:` URLs (without fragment) its `result` and `page` events named: all the text view serves. Undefined when the server serves no sources. */
  readonly sources: Set<string> | undefined
}

/** The run, entering each event in the ledger as it passes. */
function observed(run: ReturnType<LiveAgent['research']>, ledger: Ledger): EventStream {
  return {
    [Symbol.asyncIterator]() {
      const iterator = run[Symbol.asyncIterator]()
      return {
        async next() {
          const step = await iterator.next()
          if (!step.done) {
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

const withoutFragment = (url: string): string => url.split('#', 1)[0] as string

/**
 * The text view's headers: plain text that is never sniffed into markup, and a policy that
 * would load nothing and run nothing even if a browser did (`sandbox`: an opaque origin).
 */
const SOURCE_HEADERS: Record<string, string> = {
  'content-type': 'text/plain; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

/** The text view: the title and URL, a blank line, then the text, cut at `MAX_SOURCE_CHARS`. */
function sourceText(url: string, source: { title?: string | undefined; text: string }): string {
  const title = typeof source.title === 'string' && source.title.trim() ? `${source.title.trim().slice(0, 300)}\n` : ''
  const body = typeof source.text === 'string' ? source.text : ''
  const cut =
    body.length > MAX_SOURCE_CHARS
      ? `${body.slice(0, MAX_SOURCE_CHARS)}\n\n[cut at ${MAX_SOURCE_CHARS.toLocaleString('en')} of ${body.length.toLocaleString('en')} characters]`
      : body
  return `${title}${url}\n\n${cut}\n`
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return (message.split('\n', 1)[0] ?? '').slice(0, 300)
}

/**
 * The headers a page holding a start token is served with: never stored, never framed, never
 * sniffed, and a Content-Security-Policy allowing its own inline script and style only.
 */
export function pageHeaders(page: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': contentSecurityPolicy(page),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  }
}

/** The page's Content-Security-Policy: its own inline script and style (by hash), requests to itself only. */
function contentSecurityPolicy(page: string): string {
  const hash = (tag: string) => {
    const body = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(page)?.[1] ?? ''
    return `'sha256-${createHash('sha256').update(body).digest('base64')}'`
  }
  return [
    "default-src 'none'",
    `script-src ${hash('script')}`,
    `style-src ${hash('style')}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The request body as text, or undefined past `maxBytes` (the rest is not read). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const parts: Buffer[] = []
  let size = 0
  for await (const part of req) {
    size += (part as Buffer).byteLength
    if (size > maxBytes) return undefined
    parts.push(part as Buffer)
  }
  return Buffer.concat(parts).toString('utf8')
}

function questionOf(body: string | undefined): string | undefined {
  if (body === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  const q = (parsed as { q?: unknown } | null)?.q
  const question = typeof q === 'string' ? q.trim() : ''
  return question && question.length <= MAX_QUESTION_CHARS ? question : undefined
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

function refuse(res: ServerResponse, refusal: RequestRefusal): void {
  res
    .writeHead(refusal.status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', ...refusal.headers })
    .end(`${refusal.message}\n`)
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(`${body}\n`)
}
