/**
 * A chat backend in the AI SDK's UI message stream protocol: `POST /api/chat` takes the body
 * `useChat` sends and answers with `toUIMessageStreamResponse(run)`; `GET /` serves a plain-JS
 * page that reads the same stream. `npx tsx examples/ai-sdk-chat/server.ts --demo` runs it on
 * the scripted demo; without `--demo`, on a local Ollama with DuckDuckGo.
 *
 * With Next.js the whole backend is the route handler:
 *   export async function POST(req: Request) {
 *     const { messages } = await req.json()
 *     return toUIMessageStreamResponse(agent.research(lastUserText(messages), { signal: req.signal }))
 *   }
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import type { Agent } from '../../src/index.js'
import { createRequestGuard, type RequestGuard } from '../../src/server/index.js'
import { toUIMessageStreamResponse } from '../../src/streams/index.js'
import { exampleAgent } from '../shared/agent.js'

const PAGE = readFileSync(new URL('./index.html', import.meta.url), 'utf8')
const MAX_BODY_BYTES = 256 * 1024

interface ChatBody {
  messages?: { role?: string; parts?: { type?: string; text?: string }[] }[]
}

/** The text of the last user message in a `useChat` request body. */
export function lastUserText(body: ChatBody): string {
  const user = body.messages?.findLast((m) => m.role === 'user')
  return (user?.parts ?? [])
    .flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []))
    .join('\n')
    .trim()
}

/**
 * The chat server, not yet listening. Runs spend the model's keys, so it starts them only for
 * its own page, through the package's request guard: a POST carrying the token the page was
 * served with, addressed to loopback, with no browser marker of another site.
 */
export function createChatServer(agent: Agent): Server {
  const guard = createRequestGuard({ host: 'localhost' })
  const page = PAGE.replace('<meta name="laconic-token" content="">', `<meta name="laconic-token" content="${guard.token}">`)
  return createServer((req, res) => {
    handle(agent, guard, page, req, res).catch(() => res.destroy())
  })
}

async function handle(agent: Agent, guard: RequestGuard, page: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname
  if (path !== '/' && path !== '/api/chat') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('try GET / or POST /api/chat\n')
    return
  }
  const refused = path === '/' ? guard.checkRead(req) : guard.checkStart(req)
  if (refused) {
    res.writeHead(refused.status, { 'content-type': 'text/plain', ...refused.headers }).end(`${refused.message}\n`)
    return
  }
  if (path === '/') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page)
    return
  }
  let size = 0
  const parts: Buffer[] = []
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length
    if (size > MAX_BODY_BYTES) {
      res.writeHead(413, { 'content-type': 'text/plain' }).end('the request is too large\n')
      return
    }
    parts.push(part)
  }
  let question = ''
  try {
    question = lastUserText(JSON.parse(Buffer.concat(parts).toString('utf8')) as ChatBody)
  } catch {
    // not JSON: answered below as an empty question
  }
  if (!question) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('send { messages: [...] } with a user message\n')
    return
  }
  const response = toUIMessageStreamResponse(agent.research(question))
  res.writeHead(response.status, Object.fromEntries(response.headers))
  // When the browser goes away, pipeline destroys the body stream, which cancels it: the run aborts.
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res)
}

function main(argv: readonly string[]): void {
  const portFlag = argv.indexOf('--port')
  const port = Number(portFlag >= 0 ? argv[portFlag + 1] : (process.env.PORT ?? 8788))
  const { agent, demo } = exampleAgent(argv, { demoTokenDelayMs: 40 })
  createChatServer(agent).listen(port, '127.0.0.1', () =>
    console.log(`laconic AI SDK chat (${demo ? 'scripted demo' : 'Ollama + DuckDuckGo'}) on http://localhost:${port}/`),
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2))
}
