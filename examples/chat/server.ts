/**
 * The chat example's server: the built React page, `POST /api/chat` (the library's
 * `createChatHandler`, continuing each chat's research session from a file store), and
 * `GET /api/chats/:id/messages` (the conversation as the page last showed it, for a reload).
 *
 *   npx tsx examples/chat/server.ts --demo      # the scripted demo: no model, no network, canned answers
 *   npx tsx examples/chat/server.ts             # a local Ollama with DuckDuckGo
 *   npx tsx examples/chat/server.ts --backend openai --endpoint http://localhost:8080 --model NAME
 *                                               # any OpenAI-compatible server (OPENAI_API_KEY for a hosted one)
 *
 * With a model (not the demo), the page's Report toggle runs a turn as a long report (the
 * `report` strategy): the page sends `strategy: 'report'` in the turn's body.
 *
 * It builds the page first (Vite, into examples/chat/dist) and keeps conversations in
 * examples/chat/.data (or CHAT_DATA_DIR): stop it, start it again, reload the page, and the
 * conversation goes on where it was.
 */
import { readdir, readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { extname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { UIMessage } from 'ai'
import { type Agent, createAgent } from '../../src/index.js'
import { duckduckgo, httpFetch } from '../../src/adapters/index.js'
import { fileSessions, nodeListener } from '../../src/node/index.js'
import { createChatHandler, createRequestGuard, type RequestGuard } from '../../src/server/index.js'
import { exampleAgent } from '../shared/agent.js'
import { buildApp } from './build.js'
import { CHAT_ID, fileChatLog } from './chat-log.js'

type ChatHandlerOptions = NonNullable<Parameters<typeof createChatHandler>[0]>
type RequestRefusal = NonNullable<ReturnType<RequestGuard['checkStart']>>

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

export interface ChatServerOptions {
  agent: Agent
  /**
   * The agent of a turn asked as a report (the page's Report toggle sends `strategy: 'report'`
   * in the body): one whose strategy is `report`, over the same sessions. Without it the page
   * has no toggle.
   */
  reportAgent?: Agent
  /** The built page (`buildApp(appDir)`). */
  appDir: string
  /** Where conversations are kept: `sessions/` (what the research learned) and `messages/` (what the page showed). */
  dataDir: string
  /** Where failures hidden from the page go (their full text). @defaultValue one `console.error` line each */
  onError?: ChatHandlerOptions['onError']
  /** The agent is the scripted demo: the page says so above the chat (its answers are canned). */
  demo?: boolean
  /**
   * What the page says when a turn fails because the model server did not answer: which server,
   * and what to do (`exampleAgent`'s `fix`). The handler masks the error itself (`the research failed (network)`).
   */
  unreachable?: string
}

/** Above the chat when the agent is the scripted demo: every question gets the same canned research. */
export const DEMO_BANNER =
  'Scripted demo: no model and no web. Every question gets the same canned research (the 2024 Nobel Prize in Chemistry), ' +
  'whatever you ask. Start the server without --demo for real research: a local Ollama, or --backend openai --endpoint URL --model NAME.'

/** Text for an HTML attribute or element: the page's own words, never markup. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The chat server, not yet listening. Turns spend the model's keys, so the chat endpoint takes
 * only its own page's requests: the request guard's token, served in the page, on loopback.
 */
export async function createChatServer(options: ChatServerOptions): Promise<Server> {
  const files = await readApp(options.appDir)
  const guard = createRequestGuard({ host: 'localhost' })
  const page = (files.get('/index.html')?.body ?? '')
    .replace('<meta name="laconic-token" content="">', `<meta name="laconic-token" content="${guard.token}">`)
    .replace('<meta name="laconic-unreachable" content="">', `<meta name="laconic-unreachable" content="${escapeHtml(options.unreachable ?? '')}">`)
    .replace('<meta name="laconic-report" content="">', `<meta name="laconic-report" content="${options.reportAgent ? 'on' : ''}">`)
    .replace('<!--laconic-banner-->', options.demo ? `<p class="demo-banner" role="note">${escapeHtml(DEMO_BANNER)}</p>` : '')
  const store = fileSessions(join(options.dataDir, 'sessions'))
  const chat = createChatHandler({ agent: options.agent, store, guard, onError: options.onError })
  const reportChat = options.reportAgent && createChatHandler({ agent: options.reportAgent, store, guard, onError: options.onError })
  const log = fileChatLog(join(options.dataDir, 'messages'))

  return createServer(
    nodeListener(async (request) => {
      const path = new URL(request.url).pathname
      if (path === '/api/chat') return turn(request)
      const refused = guard.checkRead(request)
      if (refused) return refuse(refused)
      if (path === '/' || path === '/index.html')
        return new Response(page, { headers: { 'content-type': CONTENT_TYPES['.html'] as string, 'cache-control': 'no-store' } })
      const saved = /^\/api\/chats\/([^/]+)\/messages$/.exec(path)?.[1]
      if (saved !== undefined) {
        if (!CHAT_ID.test(saved)) return new Response('no such chat\n', { status: 404 })
        return Response.json(await log.messages(saved), { headers: { 'cache-control': 'no-store' } })
      }
      const file = files.get(path)
      if (file) return new Response(file.body, { headers: { 'content-type': file.type } })
      return new Response('not found: try GET /, POST /api/chat or GET /api/chats/:id/messages\n', { status: 404 })
    }),
  )

  // The handler reads the turn's body (within its size limit); the log reads a copy once the
  // handler has taken the turn, so the copy is the body the handler accepted.
  async function turn(request: Request): Promise<Response> {
    const copy = request.clone()
    const response = await (reportChat && (await askedForReport(request)) ? reportChat : chat)(request)
    if (!response.ok) {
      await copy.body?.cancel()
      return response
    }
    const body = parseTurn(await copy.text())
    return body ? log.record(body.id, body.messages, response) : response
  }

  /** The turn's body (a copy, read within the handler's size limit) asks for a report: `strategy: 'report'`. Only a request the guard lets through is read. */
  async function askedForReport(request: Request): Promise<boolean> {
    if (guard.checkStart(request)) return false
    const text = await boundedText(request.clone(), MAX_BODY_BYTES).catch(() => undefined)
    try {
      return text !== undefined && (JSON.parse(text) as { strategy?: unknown } | null)?.strategy === 'report'
    } catch {
      return false
    }
  }
}

/** A request body's text, or undefined past `maxBytes` (the rest is not read): a hostile client may send any amount. */
async function boundedText(request: Request, maxBytes: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) return undefined
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for await (const chunk of request.body ?? []) {
    size += chunk.byteLength
    if (size > maxBytes) return undefined
    text += decoder.decode(chunk, { stream: true })
  }
  return text + decoder.decode()
}

/** The largest turn body read (the chat handler's default limit). */
const MAX_BODY_BYTES = 1_048_576

/** The chat id and messages of a `useChat` body, when it has both (else the turn is not logged). */
function parseTurn(text: string): { id: string; messages: UIMessage[] } | undefined {
  try {
    const body = JSON.parse(text) as { id?: unknown; messages?: unknown }
    if (typeof body.id === 'string' && CHAT_ID.test(body.id) && Array.isArray(body.messages)) return { id: body.id, messages: body.messages as UIMessage[] }
  } catch {
    // not JSON: the handler has answered 400 already
  }
  return undefined
}

function refuse(refusal: RequestRefusal): Response {
  return new Response(`${refusal.message}\n`, { status: refusal.status, headers: refusal.headers })
}

/** The built page's files, by URL path, read once: a request can only ever name one of these. */
async function readApp(dir: string): Promise<Map<string, { body: string; type: string }>> {
  const files = new Map<string, { body: string; type: string }>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    const type = CONTENT_TYPES[extname(entry.name)]
    if (type) files.set(`/${relative(dir, path).split('\\').join('/')}`, { body: await readFile(path, 'utf8'), type })
  }
  if (!files.has('/index.html')) throw new Error(`${dir} has no index.html: build the page first (buildApp)`)
  return files
}

async function main(argv: readonly string[]): Promise<void> {
  const { agent, llm, demo, label, model, fix, port = Number(process.env.PORT ?? 8789) } = exampleAgent(argv, { demoTokenDelayMs: 40, verify: 'annotate' })
  const appDir = fileURLToPath(new URL('./dist', import.meta.url))
  await buildApp(appDir)
  const dataDir = process.env.CHAT_DATA_DIR ?? fileURLToPath(new URL('./.data', import.meta.url))
  // A report turn runs on the same model, with the `report` strategy (the demo has no report: its answers are canned).
  const reportAgent = llm && createAgent({ llm, search: duckduckgo(), fetch: httpFetch(), strategy: 'report' })
  const server = await createChatServer({
    agent,
    reportAgent,
    appDir,
    dataDir,
    demo,
    unreachable: `The model server (${model}) could not be reached. To fix: ${fix}`,
  })
  server.listen(port, '127.0.0.1', () => console.log(`laconic chat (${label}) on http://localhost:${port}/ · conversations in ${dataDir}`))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
