/**
 * A live research page over SSE: `GET /` serves one static page, `GET /research?q=…&run=…`
 * streams the run. Each run is broadcast, so a reconnecting browser (EventSource sends
 * `Last-Event-ID` by itself) resumes where it stopped, and a closed tab aborts the run after
 * a grace period. `npx tsx examples/sse-server/server.ts --demo` runs it on the scripted kit.
 */
import { readFileSync } from 'node:fs'
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { pathToFileURL } from 'node:url'
import type { ResearchEvent } from '../../src/core/index.js'
import { broadcast, pipeSSE, type Broadcast } from '../../src/streams/index.js'

/** What the server needs of an agent: `createAgent(...)` fits. */
export interface ResearchAgent {
  research(question: string): AsyncIterable<ResearchEvent> & { abort(reason?: unknown): void }
}

export interface ServerOptions {
  agent: ResearchAgent
  /** Label the page as a scripted demo. */
  demo?: boolean
  /**
   * How long a run with no viewer waits for one to come back before it is aborted.
   * @defaultValue 15000
   */
  graceMs?: number
  /**
   * How long a finished run stays replayable (a reload shows it again).
   * @defaultValue 300000
   */
  keepMs?: number
  /** @defaultValue 15000 */
  heartbeatMs?: number
}

const PAGE = readFileSync(new URL('./page.html', import.meta.url), 'utf8')
const DEMO_BANNER = '<p class="banner" id="demo-banner">Scripted demo: canned model replies and an in-memory search corpus, no network.</p>'
const MAX_QUESTION = 2000

/** The HTTP server; call `.listen(port)` on it. The CLI's `--serve` passes its own agent. */
export function createServer({ agent, demo = false, graceMs = 15_000, keepMs = 300_000, heartbeatMs }: ServerOptions): Server {
  const page = PAGE.replace('<!--banner-->', demo ? DEMO_BANNER : '')
  // Runs by the key the page picked, so a reconnection finds its run again.
  const runs = new Map<string, Broadcast>()

  const runFor = (key: string, question: string): Broadcast => {
    const existing = runs.get(key)
    if (existing) return existing
    const hub = broadcast(agent.research(question), { graceMs })
    runs.set(key, hub)
    void hub.finished.then(() => setTimeout(() => runs.delete(key), keepMs).unref())
    return hub
  }

  const research = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const question = url.searchParams.get('q')?.trim() ?? ''
    if (!question || question.length > MAX_QUESTION) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end(`pass a question of 1 to ${MAX_QUESTION} characters as ?q=`)
      return
    }
    const key = url.searchParams.get('run') || crypto.randomUUID()
    const lastEventId = req.headers['last-event-id']
    const fromSeq = typeof lastEventId === 'string' && /^\d+$/.test(lastEventId) ? Number(lastEventId) + 1 : 0
    const subscription = runFor(key, question).subscribe(fromSeq)
    pipeSSE(subscription, res, heartbeatMs === undefined ? {} : { heartbeatMs }).catch((error: unknown) => {
      console.error('research stream failed:', error)
    })
  }

  return createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(page)
    } else if (req.method === 'GET' && url.pathname === '/research') {
      research(req, res, url)
    } else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: try GET / or GET /research?q=…')
    }
  })
}

async function main(argv: readonly string[]): Promise<void> {
  const portFlag = argv.indexOf('--port')
  const port = Number(portFlag >= 0 ? argv[portFlag + 1] : (process.env.PORT ?? 8787))
  if (!argv.includes('--demo')) {
    console.error('No research backend is configured here. Run with --demo for the scripted demo, or use `laconic --serve` with a real model.')
    process.exitCode = 2
    return
  }
  const { demoAgent } = await import('./demo.js')
  const server = createServer({ agent: demoAgent(), demo: true })
  server.listen(port, () => console.log(`laconic live page (scripted demo) on http://localhost:${port}/`))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main(process.argv.slice(2))
}
