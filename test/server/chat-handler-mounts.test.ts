/**
 * The chat handler where users mount it: a Hono route, a `node:http` server (through the
 * `nodeListener` of `laconic-research/node`, on loopback) and a Next.js-style route module
 * (`export const POST = chat`). Each answers a `useChat` turn, and each stops the run's model
 * call when the client goes away.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DefaultChatTransport, readUIMessageStream } from 'ai'
import { Hono } from 'hono'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import { nodeListener } from '../../src/node/index.js'
import { createChatHandler } from '../../src/server/index.js'
import type { ResearchUIMessage } from '../../src/streams/index.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { echoStrategy, gatedReply, recordingAgent } from './chat-agent.js'

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

type Fetch = (url: string, init?: RequestInit) => Promise<Response>

async function answerVia(fetch: Fetch, api: string): Promise<ResearchUIMessage> {
  const transport = new DefaultChatTransport<ResearchUIMessage>({ api, fetch: (url, init) => fetch(String(url), init) })
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Why is the sky blue?' }] }],
    abortSignal: undefined,
  })
  let message: ResearchUIMessage | undefined
  for await (const snapshot of readUIMessageStream<ResearchUIMessage>({ stream })) message = snapshot
  if (!message) throw new Error('no message')
  return message
}

function answering() {
  return createChatHandler({ agent: recordingAgent(createAgent({ llm: scriptedLLM({ replies: ['Air scatters blue light most.'] }), strategy: echoStrategy })) })
}

function gatedChat() {
  const gated = gatedReply()
  const chat = createChatHandler({ agent: recordingAgent(createAgent({ llm: scriptedLLM({ replies: (req) => gated.reply(req) }), strategy: echoStrategy })) })
  return { chat, gated }
}

const BODY = JSON.stringify({ id: 'chat-1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }], trigger: 'submit-message' })

async function listening(server: Server): Promise<string> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function honoApp(chat: ReturnType<typeof createChatHandler>): Hono {
  const app = new Hono()
  app.post('/api/chat', (c) => chat(c.req.raw))
  return app
}

describe('the chat handler mounted', () => {
  it('answers useChat as a Hono route', async () => {
    const app = honoApp(answering())
    const message = await answerVia(async (url, init) => app.request(url, init), 'http://localhost/api/chat')
    expect(message.parts.find((p) => p.type === 'text')?.text).toBe('Air scatters blue light most.')
    expect(message.metadata?.reason).toBe('answered')
  })

  it('answers useChat in node:http through nodeListener, over loopback', async () => {
    const origin = await listening(createServer(nodeListener(answering())))
    const message = await answerVia(fetch, `${origin}/api/chat`)
    expect(message.parts.find((p) => p.type === 'text')?.text).toBe('Air scatters blue light most.')
  })

  it('answers useChat as a Next.js route module (export const POST = chat)', async () => {
    const route = { POST: answering() }
    const message = await answerVia(async (url, init) => route.POST(new Request(url, init)), 'http://localhost/api/chat')
    expect(message.metadata?.reason).toBe('answered')
  })

  it("stops the model call when the client aborts, in Hono (the request's signal)", async () => {
    const { chat, gated } = gatedChat()
    const client = new AbortController()
    const response = await honoApp(chat).request('http://localhost/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
      signal: client.signal,
    })
    const reading = response.body!.pipeTo(new WritableStream()).catch(() => {})
    await gated.started
    client.abort()
    await gated.aborted
    await response.body?.cancel().catch(() => {})
    await reading
  })

  it('stops the model call when the client goes away, in node:http', async () => {
    const { chat, gated } = gatedChat()
    const origin = await listening(createServer(nodeListener(chat)))
    const client = new AbortController()
    const response = await fetch(`${origin}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, signal: client.signal })
    const reading = response.body!.pipeTo(new WritableStream()).catch(() => {})
    await gated.started
    client.abort()
    await gated.aborted
    await reading
  })
})
