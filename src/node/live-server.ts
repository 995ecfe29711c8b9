/**
 * The live research server: `GET /` serves the live page, `GET /research?q=…&run=…` streams a
 * run as Server-Sent Events. Each run is broadcast under the key the page picked, so a
 * reconnecting browser (EventSource sends `Last-Event-ID` by itself) resumes where it stopped,
 * and a closed tab aborts the run after a grace period. Closing the server aborts every run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { ResearchEvent } from '../core/index.js'
import { broadcast, pipeSSE, type Broadcast } from '../streams/index.js'
import { hostAllowed } from './allowed-host.js'
import { livePage } from './live-page.js'

/** What the server needs of an agent: `createAgent(...)` fits. */
export interface LiveAgent {
  research(question: string, options: { signal: AbortSignal }): AsyncIterable<ResearchEvent> & { abort?(reason?: unknown): void }
}

export interface LiveServerOptions {
  agent: LiveAgent
  /** A banner on the page, e.g. "Scripted demo: …" or the model in use. */
  label?: string | undefined
  /**
   * How long a run with no viewer waits for one to come back before it is aborted.
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
}

export const MAX_QUESTION_CHARS = 2000

/** The HTTP server, not yet listening: call `.listen(port, host)` on it. */
export function createLiveServer({ agent, label, graceMs = 15_000, keepMs = 300_000, heartbeatMs, host }: LiveServerOptions): Server {
  const page = livePage(label)
  const closing = new AbortController()
  // Runs by the key the page picked, so a reconnection finds its run again.
  const runs = new Map<string, Broadcast>()

  const runFor = (key: string, question: string): Broadcast => {
    const existing = runs.get(key)
    if (existing) return existing
    const hub = broadcast(agent.research(question, { signal: closing.signal }), { graceMs })
    runs.set(key, hub)
    void hub.finished.then(() => setTimeout(() => runs.delete(key), keepMs).unref())
    return hub
  }

  const research = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const question = url.searchParams.get('q')?.trim() ?? ''
    if (!question || question.length > MAX_QUESTION_CHARS) {
      text(res, 400, `pass a question of 1 to ${MAX_QUESTION_CHARS} characters as ?q=`)
      return
    }
    const key = url.searchParams.get('run') || crypto.randomUUID()
    const lastEventId = req.headers['last-event-id']
    const fromSeq = typeof lastEventId === 'string' && /^\d+$/.test(lastEventId) ? Number(lastEventId) + 1 : 0
    pipeSSE(runFor(key, question).subscribe(fromSeq), res, heartbeatMs === undefined ? {} : { heartbeatMs }).catch(() => res.destroy())
  }

  const server = createServer((req, res) => {
    if (host !== undefined && !hostAllowed(req.headers.host, host)) {
      text(res, 403, `this server answers requests addressed to ${host} only`)
      return
    }
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(page)
    } else if (req.method === 'GET' && url.pathname === '/research') {
      research(req, res, url)
    } else {
      text(res, 404, 'not found: try GET / (the live page) or GET /research?q=QUESTION (Server-Sent Events)')
    }
  })
  server.on('close', () => closing.abort(new DOMException('the live server closed', 'AbortError')))
  return server
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${body}\n`)
}
