/**
 * A web node of the scale-out: no agent of its own; it submits runs to the queue and streams any
 * run's events from the Redis log, so a browser may reach any node and resume on another.
 *
 *   POST   /runs              {question, strategy?} → 201 {runId}
 *   GET    /runs/:id          the run's state, and its result once done
 *   GET    /runs/:id/events   Server-Sent Events; resumes after Last-Event-ID
 *   DELETE /runs/:id          cancel
 *   GET    /                  the live page, working through the above
 *
 * Every request passes `createRequestGuard` (laconic-research/node), the check every server of
 * the package shares: a start, and a cancel alike, needs the same proof (same origin, the page's
 * token); a read needs the right `Host` and no cross-site marker.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createRequestGuard, livePage, MAX_QUESTION_CHARS, type RequestRefusal } from '../../node/index.js'
import { pageHeaders, readBody } from '../../node/live-server.js'
import type { ResearchQueue } from '../../redis/index.js'
import { pipeSSE } from '../../streams/index.js'

export interface WebNodeOptions {
  queue: ResearchQueue
  /** Serve only requests addressed to this host (against DNS rebinding), as the CLI does on loopback. */
  host?: string | undefined
  /** The token the page sends to start and cancel runs (shared by the nodes behind one load balancer). @defaultValue random */
  token?: string | undefined
  heartbeatMs?: number | undefined
  label?: string | undefined
}

const MAX_BODY_BYTES = 16 * 1024
const RUN_PATH = /^\/runs\/([A-Za-z0-9-]{1,64})(\/events)?$/

export function createWebNode({ queue, host, token, heartbeatMs, label }: WebNodeOptions): Server {
  const guard = createRequestGuard({ host, token })
  const page = livePage(label, { runsToken: guard.token })
  const headers = pageHeaders(page)

  async function start(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req)
    const question = typeof body?.question === 'string' ? body.question.trim() : ''
    if (!question || question.length > MAX_QUESTION_CHARS) {
      return json(res, 400, { error: `send {"question": "..."} with 1 to ${MAX_QUESTION_CHARS} characters` })
    }
    const strategy = typeof body?.strategy === 'string' && body.strategy ? body.strategy : undefined
    const { runId } = await queue.submit(question, strategy === undefined ? {} : { strategy })
    json(res, 201, { runId })
  }

  async function events(req: IncomingMessage, res: ServerResponse, runId: string): Promise<void> {
    const status = await queue.get(runId)
    if (!status) return json(res, 404, { error: `no run ${runId} (unknown, or expired)` })
    const reader = queue.researchEvents(runId, { lastEventId: req.headers['last-event-id'] })
    await pipeSSE(reader, res, heartbeatMs === undefined ? {} : { heartbeatMs })
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost')
    const method = req.method ?? 'GET'
    // A cancel stops someone's paid run: it needs the same proof as a start.
    const refused = method === 'GET' || method === 'HEAD' ? guard.checkRead(req) : guard.checkChange(req)
    if (refused) return refuse(res, refused)
    if (pathname === '/' && method === 'GET') {
      res.writeHead(200, headers).end(page)
      return
    }
    if (pathname === '/runs' && method === 'POST') return start(req, res)
    const match = RUN_PATH.exec(pathname)
    if (match) {
      const runId = match[1] as string
      if (match[2] && method === 'GET') return events(req, res, runId)
      if (!match[2] && method === 'GET') {
        const status = await queue.get(runId)
        return status ? json(res, 200, status) : json(res, 404, { error: `no run ${runId} (unknown, or expired)` })
      }
      if (!match[2] && method === 'DELETE') {
        return (await queue.cancel(runId)) ? json(res, 202, { runId, cancelled: true }) : json(res, 404, { error: `no run ${runId}` })
      }
    }
    json(res, 404, { error: 'not found: POST /runs, GET /runs/:id, GET /runs/:id/events, DELETE /runs/:id, or GET / for the live page' })
  }

  return createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      // Redis unreachable (or slower than its deadline): say so instead of hanging the client.
      const message = error instanceof Error ? error.message : String(error)
      if (!res.headersSent) json(res, 503, { error: message })
      else res.destroy()
    })
  })
}

function refuse(res: ServerResponse, refusal: RequestRefusal): void {
  res.writeHead(refusal.status, { ...refusal.headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(`${JSON.stringify({ error: refusal.message })}\n`)
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(`${JSON.stringify(body)}\n`)
}

/** The request body as a JSON object, or undefined when it is not one (or too big). */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const body = await readBody(req, MAX_BODY_BYTES)
  if (body === undefined) return undefined
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
