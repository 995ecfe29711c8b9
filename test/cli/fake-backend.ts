/**
 * One loopback `node:http` server playing an OpenAI-compatible model server (SSE chat completions,
 * as in WIRE.md, and `/v1/embeddings`) and a SearXNG instance (`/search?format=json`), so the CLI
 * can run end to end, in process or as a child process, with no network.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SearchResult } from '../../src/index.js'
import { fakeVector } from '../kb/fake-vector.js'

export interface ChatTurn {
  system: string
  prompt: string
  /** The whole request's messages, tool calls and results included. */
  messages: Record<string, unknown>[]
  /** The names of the tools the request offered. */
  tools: string[]
  /** The model the request named. */
  model: string
  /** The request's `authorization` header, when it had one. */
  authorization?: string
}

export interface ScriptedReply {
  text: string
  /** Tool calls streamed after the text, each call's arguments in two pieces (finish reason `tool_calls`). */
  toolCalls?: { id: string; name: string; arguments: string }[]
  /** Send this many word-tokens, then hold the stream open until the client goes away. */
  stallAfterTokens?: number
  /** Send this many word-tokens, then cut the connection (a server that dies mid-answer). */
  cutAfterTokens?: number
  /** The usage the reply reports. @defaultValue 40 prompt tokens, a completion token per word */
  usage?: { promptTokens: number; completionTokens: number }
}

export interface FakeBackend {
  /** `http://127.0.0.1:PORT` */
  url: string
  /** Every chat request, in order. */
  turns: ChatTurn[]
  searches: string[]
  /** Every text embedded through `POST /v1/embeddings`, in order. */
  embedded: string[]
  close(): Promise<void>
}

export interface FakeBackendOptions {
  reply: (turn: ChatTurn) => string | ScriptedReply
  results?: (query: string) => SearchResult[]
}

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fake-model',
    system_fingerprint: 'fp_test',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  })}\n\n`

function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => (res.destroyed ? resolve() : res.write(text, () => resolve())))
}

async function streamReply(res: ServerResponse, reply: ScriptedReply): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  await write(res, ': keep-alive\n\n')
  await write(res, chunk({ role: 'assistant', content: '' }))
  const tokens = reply.text.match(/\s*\S+/g) ?? []
  for (const [i, token] of tokens.entries()) {
    if (reply.stallAfterTokens !== undefined && i >= reply.stallAfterTokens) return // held open until the client leaves
    if (reply.cutAfterTokens !== undefined && i >= reply.cutAfterTokens) {
      res.destroy()
      return
    }
    await write(res, chunk({ content: token }))
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const half = Math.floor(call.arguments.length / 2)
    await write(res, chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, half) } }] }))
    await write(res, chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }))
  }
  await write(res, chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop'))
  const { promptTokens = 40, completionTokens = tokens.length } = reply.usage ?? {}
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens }
  await write(res, `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', choices: [], usage })}\n\n`)
  await write(res, 'data: [DONE]\n\n')
  res.end()
}

/** The CLI flags that point a run's model at `backend`'s chat endpoint. */
export function modelFlags(backend: Pick<FakeBackend, 'url'>): string[] {
  return ['--backend', 'openai', '--endpoint', backend.url, '--model', 'fake-model']
}

/** The CLI flags that point a run at `backend`: its chat endpoint as the model, its SearXNG endpoint as the search, no page reads. */
export function cliFlags(backend: Pick<FakeBackend, 'url'>): string[] {
  return [...modelFlags(backend), '--search', 'searxng', '--searxng-url', backend.url, '--no-fetch']
}

export async function startFakeBackend(options: FakeBackendOptions): Promise<FakeBackend> {
  const turns: ChatTurn[] = []
  const searches: string[] = []
  const embedded: string[] = []
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
        model: string
        messages: { role: string; content: string }[]
        tools?: { function: { name: string } }[]
      }
      const turn: ChatTurn = {
        system: body.messages.find((m) => m.role === 'system')?.content ?? '',
        prompt: body.messages.find((m) => m.role === 'user')?.content ?? '',
        messages: body.messages,
        tools: (body.tools ?? []).map((tool) => tool.function.name),
        model: body.model,
        ...(req.headers.authorization !== undefined ? { authorization: req.headers.authorization } : {}),
      }
      turns.push(turn)
      const reply = options.reply(turn)
      await streamReply(res, typeof reply === 'string' ? { text: reply } : reply)
      return
    }
    if (req.method === 'POST' && url.pathname === '/v1/embeddings') {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { model: string; input: string | string[] }
      const input = typeof body.input === 'string' ? [body.input] : body.input
      embedded.push(...input)
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(fakeVector(text, 64)) }))
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', model: body.model, data, usage: { prompt_tokens: input.length, total_tokens: input.length } }))
      return
    }
    if (req.method === 'GET' && url.pathname === '/search') {
      const query = url.searchParams.get('q') ?? ''
      searches.push(query)
      const results = (options.results?.(query) ?? []).map((r) => ({ url: r.url, title: r.title, content: r.snippet, engine: 'fake', score: 1 }))
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ query, number_of_results: results.length, results, answers: [], suggestions: [], unresponsive_engines: [] }))
      return
    }
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    turns,
    searches,
    embedded,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A port nothing listens on: bound, read, released. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
