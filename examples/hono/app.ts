/**
 * The research server inside a Hono app: the live page and its runs are one Web-standard handler
 * (`createResearchHandler` of `laconic-research/server`), mounted beside the app's own routes.
 * `server.ts` beside it serves it with Bun or Deno.
 */
import { Hono } from 'hono'
import { createResearchHandler, inProcessRuns } from '../../src/server/index.js'

/** Any agent `createAgent` makes. */
type LiveAgent = Parameters<typeof inProcessRuns>[0]['agent']
type InProcessRuns = Awaited<ReturnType<typeof inProcessRuns>>

/** The app, and the runs to close on shutdown (closing aborts them: each open page gets its run-end). */
export function createApp(agent: LiveAgent, options: { label?: string; host?: string } = {}): { app: Hono; runs: InProcessRuns } {
  const runs = inProcessRuns({ agent })
  const research = createResearchHandler({ runs, ...options })
  const app = new Hono()
  // The app's own routes live beside the handler's.
  app.get('/health', (c) => c.json({ ok: true }))
  // The handler owns `/`, `/runs` and `/runs/*`: the live page calls them by those paths.
  app.all('/', (c) => research(c.req.raw))
  app.all('/runs', (c) => research(c.req.raw))
  app.all('/runs/*', (c) => research(c.req.raw))
  return { app, runs }
}
