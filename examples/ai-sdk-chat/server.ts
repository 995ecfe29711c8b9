/**
 * A chat backend in the AI SDK's UI message stream protocol: `POST /api/chat` is
 * `createChatHandler`, which takes the body `useChat` sends, continues the conversation from the
 * messages the page sends back, and streams the turn; `GET /` serves a plain-JS page that reads
 * the same stream. `npx tsx examples/ai-sdk-chat/server.ts --demo` runs it on the scripted demo;
 * without `--demo`, on a local Ollama with DuckDuckGo.
 *
 * With Next.js the whole backend is the route module:
 *   export const POST = createChatHandler({ agent })
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { pathToFileURL } from 'node:url'
import type { Agent } from '../../src/index.js'
import { nodeListener } from '../../src/node/index.js'
import { createChatHandler, createRequestGuard } from '../../src/server/index.js'
import { exampleAgent } from '../shared/agent.js'

const PAGE = readFileSync(new URL('./index.html', import.meta.url), 'utf8')

/**
 * The chat server, not yet listening. Turns spend the model's keys, so the handler starts them
 * only for its own page, through the package's request guard: a POST carrying the token the
 * page was served with, addressed to loopback, with no browser marker of another site.
 */
export function createChatServer(agent: Agent): Server {
  const guard = createRequestGuard({ host: 'localhost' })
  const page = PAGE.replace('<meta name="laconic-token" content="">', `<meta name="laconic-token" content="${guard.token}">`)
  const chat = createChatHandler({ agent, guard })
  return createServer(
    nodeListener(async (request) => {
      const path = new URL(request.url).pathname
      if (path === '/api/chat') return chat(request)
      if (path !== '/') return new Response('try GET / or POST /api/chat\n', { status: 404, headers: { 'content-type': 'text/plain' } })
      const refused = guard.checkRead(request)
      if (refused) return new Response(`${refused.message}\n`, { status: refused.status, headers: { 'content-type': 'text/plain', ...refused.headers } })
      return new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } })
    }),
  )
}

function main(argv: readonly string[]): void {
  const portFlag = argv.indexOf('--port')
  const port = Number(portFlag >= 0 ? argv[portFlag + 1] : (process.env.PORT ?? 8788))
  const { agent, label } = exampleAgent(argv, { demoTokenDelayMs: 40 })
  createChatServer(agent).listen(port, '127.0.0.1', () => console.log(`laconic AI SDK chat (${label}) on http://localhost:${port}/`))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2))
}
