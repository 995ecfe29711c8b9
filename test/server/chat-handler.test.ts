/**
 * createChatHandler read by the real AI SDK (`ai@6`): the body `useChat`'s transport posts, the
 * stream it folds into a message, the session each turn continues, the refusals, what a browser
 * may see of a failure, and the run aborted with the request, also through a
 * `createUIMessageStream` merge (which does not pass a cancel on).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createUIMessageStream,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  readUIMessageStream,
  safeValidateUIMessages,
  type UIMessageChunk,
  validateUIMessages,
} from 'ai'
import { describe, expect, it } from 'vitest'
import { DEMO_QUESTION, demoAgent } from '../../examples/sse-server/demo.js'
import { createAgent, LaconicError, memorySessions } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { createChatHandler, createRequestGuard } from '../../src/server/index.js'
import { type MaskedError, type ResearchUIMessage, researchDataSchemas, researchMetadataSchema } from '../../src/streams/index.js'
import { fileSessions } from '../../src/node/index.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { echoStrategy, gatedReply, recordingAgent } from './chat-agent.js'
import { collect } from '../streams/helpers.js'

const DEMO_ANSWER =
  'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper [1]. ' +
  'Baker was honoured for computational protein design [2], and Hassabis and Jumper for predicting protein structures with AlphaFold [3].'
const INTERNAL = 'http://10.0.0.7:8000/v1/chat/completions'

type Handle = (request: Request) => Promise<Response>

const user = (id: string, text: string): ResearchUIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

/** One turn as `useChat` runs it: the SDK's transport posts the chat, its fold reads the answer. */
async function chatTurn(handle: Handle, messages: ResearchUIMessage[], options: { chatId?: string; signal?: AbortSignal; regenerate?: string } = {}) {
  const transport = new DefaultChatTransport<ResearchUIMessage>({
    api: 'http://localhost/api/chat',
    fetch: async (url, init) => handle(new Request(url, init)),
  })
  const stream = await transport.sendMessages({
    trigger: options.regenerate === undefined ? 'submit-message' : 'regenerate-message',
    chatId: options.chatId ?? 'chat-1',
    messageId: options.regenerate,
    messages,
    abortSignal: options.signal,
  })
  const [forChunks, forMessage] = stream.tee()
  const chunks = collect(forChunks)
  const errors: Error[] = []
  let message: ResearchUIMessage | undefined
  for await (const snapshot of readUIMessageStream<ResearchUIMessage>({ stream: forMessage, onError: (e) => errors.push(e as Error) })) message = snapshot
  if (!message) throw new Error('the stream produced no message')
  return { message, errors, chunks: await chunks }
}

function post(body: unknown, headers: Record<string, string> = {}, init: RequestInit = {}): Request {
  return new Request('http://localhost/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })
}

function echoAgent(replies: Parameters<typeof scriptedLLM>[0]['replies']) {
  const llm = scriptedLLM({ replies })
  return { llm, agent: recordingAgent(createAgent({ llm, strategy: echoStrategy })) }
}

describe('createChatHandler, posted to by useChat', () => {
  it("answers a turn with the streamed answer, its sources and the research, in the chat's session", async () => {
    const agent = recordingAgent(demoAgent({ tokenDelayMs: 0 }))
    const chat = createChatHandler({ agent })
    const { message, errors } = await chatTurn(chat, [user('u1', DEMO_QUESTION)])

    expect(errors).toEqual([])
    expect(message.parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual([DEMO_ANSWER])
    expect(message.parts.filter((p) => p.type === 'source-url').map((p) => p.sourceId)).toEqual(['1', '2', '3'])
    expect(message.parts.filter((p) => p.type === 'data-fact')).toHaveLength(4)
    expect(message.metadata).toMatchObject({ strategy: 'graph-reader', reason: 'answered' })
    expect(agent.opened).toEqual([{ chatId: 'chat-1', options: { state: { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] } } }])
  })

  it("continues from the messages sent back: the second turn's model sees the first turn's facts", async () => {
    const first = await chatTurn(createChatHandler({ agent: recordingAgent(demoAgent({ tokenDelayMs: 0 })) }), [user('u1', DEMO_QUESTION)])
    const { llm, agent } = echoAgent(['Baker designs proteins [2].'])
    const { message } = await chatTurn(createChatHandler({ agent }), [user('u1', DEMO_QUESTION), first.message, user('u2', 'What did Baker do?')])

    expect(message.parts.find((p) => p.type === 'text')?.text).toBe('Baker designs proteins [2].')
    const state = agent.opened[0]?.options?.state
    expect(state?.priorAnswers).toEqual([
      {
        query: DEMO_QUESTION,
        answer: DEMO_ANSWER,
        sources: [
          'https://www.nobelprize.org/prizes/chemistry/2024/summary/',
          'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/',
          'https://deepmind.google/technologies/alphafold/',
        ],
      },
    ])
    expect(state?.citations.map((c) => [c.index, c.url])).toEqual([
      [1, 'https://www.nobelprize.org/prizes/chemistry/2024/summary/'],
      [2, 'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/'],
      [3, 'https://deepmind.google/technologies/alphafold/'],
    ])
    // The superseded "2024" is not carried; the three facts that stand are, with their source and its title.
    expect(state?.facts.map((f) => f.text).sort()).toEqual([
      'Baker was honoured for computational protein design',
      'Hassabis and Jumper were honoured for protein structure prediction with AlphaFold',
      'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper',
    ])
    expect(state?.facts.find((f) => f.text.startsWith('Baker'))).toMatchObject({ url: 'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/' })
    expect(llm.calls[0]?.prompt).toContain('Baker was honoured for computational protein design')
    expect(llm.calls[0]?.prompt).toContain('What did Baker do?')
  })

  it('regenerate() replaces the stored answer to the question instead of adding a second, and keeps the ones before it', async () => {
    const { agent, llm } = echoAgent(['Blue light scatters most.', 'Grass reflects green.', 'Chlorophyll absorbs red and blue.'])
    const store = memorySessions()
    const chat = createChatHandler({ agent, store })
    await chatTurn(chat, [user('u1', 'Why is the sky blue?')], { chatId: 'c' })
    const asked = [user('u1', 'Why is the sky blue?'), user('u2', 'Why is grass green?')]
    const first = await chatTurn(chat, asked, { chatId: 'c' })
    // useChat's regenerate(): the messages end at the question, the trigger says what is asked.
    const again = await chatTurn(chat, asked, { chatId: 'c', regenerate: first.message.id })
    expect(again.message.parts.find((p) => p.type === 'text')?.text).toBe('Chlorophyll absorbs red and blue.')
    expect((await store.load('c'))?.priorAnswers.map((a) => [a.query, a.answer])).toEqual([
      ['Why is the sky blue?', 'Blue light scatters most.'],
      ['Why is grass green?', 'Chlorophyll absorbs red and blue.'],
    ])
    expect(llm.calls).toHaveLength(3)
  })

  it("with a store, continues after a restart from the question alone: the next turn's model sees the first turn's facts", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'laconic-chat-'))
    try {
      const first = recordingAgent(demoAgent({ tokenDelayMs: 0 }))
      await chatTurn(createChatHandler({ agent: first, store: fileSessions(dir) }), [user('u1', DEMO_QUESTION)], { chatId: 'nobel' })
      // A new process: another agent, another store over the same folder, and the client sends its last message only.
      const { llm, agent } = echoAgent(['Baker designs proteins [2].'])
      const store = fileSessions(dir)
      const { message } = await chatTurn(createChatHandler({ agent, store }), [user('u2', 'What did Baker do?')], { chatId: 'nobel' })

      expect(agent.opened).toEqual([{ chatId: 'nobel', options: { store } }])
      expect(message.parts.find((p) => p.type === 'text')?.text).toBe('Baker designs proteins [2].')
      expect(llm.calls[0]?.prompt).toContain('Baker was honoured for computational protein design')
      expect((await store.load('nobel'))?.priorAnswers.map((p) => p.query)).toEqual([DEMO_QUESTION, 'What did Baker do?'])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('keys the session with chatKey, and refuses a chat it does not map', async () => {
    const { agent } = echoAgent(['ok'])
    const chat = createChatHandler({ agent, chatKey: (id, request) => (request.headers.get('x-user') === 'ann' ? `ann-${id}` : undefined) })
    const refused = await chat(post({ id: 'c1', messages: [user('u1', 'hi')] }))
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({ code: 'forbidden', message: 'this chat is not yours to continue' })
    const answered = await chat(post({ id: 'c1', messages: [user('u1', 'hi')] }, { 'x-user': 'ann' }))
    expect(answered.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    await answered.text()
    expect(agent.opened.map((o) => o.chatId)).toEqual(['ann-c1'])
  })

  it.each([
    ['a GET', new Request('http://localhost/api/chat'), 405, 'method-not-allowed'],
    ['a cross-site post', post({ id: 'c', messages: [user('u', 'hi')] }, { 'sec-fetch-site': 'cross-site' }), 403, 'forbidden'],
    ['a post from another origin', post({ id: 'c', messages: [user('u', 'hi')] }, { origin: 'https://evil.example', host: 'app.test' }), 403, 'forbidden'],
    ['a form post', post('{"id":"c","messages":[]}', { 'content-type': 'text/plain' }), 415, 'unsupported-media-type'],
    ['a body over the limit', post({ id: 'c', messages: [user('u', 'x'.repeat(2_000_000))] }), 413, 'too-large'],
    ['a body that is not JSON', post('{"id":'), 400, 'bad-request'],
    ['no chat id', post({ messages: [user('u', 'hi')] }), 400, 'bad-request'],
    ['a chat id with a path in it', post({ id: '../etc', messages: [user('u', 'hi')] }), 400, 'bad-request'],
    ['a chat id no store takes', post({ id: 'a:b', messages: [user('u', 'hi')] }), 400, 'bad-request'],
    ['no user message', post({ id: 'c', messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] }] }), 400, 'bad-request'],
    ['a question over the limit', post({ id: 'c', messages: [user('u', 'y'.repeat(2001))] }), 400, 'bad-request'],
  ])('refuses %s with a JSON %i and starts nothing', async (_, request, status, code) => {
    const { agent, llm } = echoAgent(['never'])
    const response = await createChatHandler({ agent })(request)
    expect(response.status).toBe(status)
    expect(await response.json()).toMatchObject({ code, message: expect.any(String) })
    expect(agent.opened).toEqual([])
    expect(llm.calls).toEqual([])
  })

  it("lets a same-origin post through, and takes a shared request guard's refusal", async () => {
    const { agent } = echoAgent(['ok', 'ok'])
    const sameOrigin = await createChatHandler({ agent, host: 'app.test' })(
      post({ id: 'c', messages: [user('u', 'hi')] }, { origin: 'http://app.test', host: 'app.test', 'sec-fetch-site': 'same-origin' }),
    )
    expect(sameOrigin.status).toBe(200)
    await sameOrigin.text()
    const guard = createRequestGuard({ token: 'the-page-token-of-this-server' })
    const refused = await createChatHandler({ agent, guard })(post({ id: 'c', messages: [user('u', 'hi')] }))
    expect(await refused.json()).toEqual({ code: 'forbidden', message: "this needs the server's token in the x-laconic-token header (its own page sends it)" })
    const open = await createChatHandler({ agent, guard: false })(post({ id: 'c', messages: [user('u', 'hi')] }, { 'sec-fetch-site': 'cross-site' }))
    expect(open.status).toBe(200)
    await open.text()
  })
})

describe('the request guard a chat shares with the research handler', () => {
  it('asks for the token given as `token`, as the research handler does', async () => {
    const { agent, llm } = echoAgent(['ok'])
    const chat = createChatHandler({ agent, token: 'the-page-token-of-this-server' })
    const without = await chat(post({ id: 'c', messages: [user('u', 'hi')] }))
    expect(without.status).toBe(403)
    expect(llm.calls).toEqual([])
    const wrong = await chat(post({ id: 'c', messages: [user('u', 'hi')] }, { 'x-laconic-token': 'another-token-of-the-same-size' }))
    expect(wrong.status).toBe(403)
    const sent = await chat(post({ id: 'c', messages: [user('u', 'hi')] }, { 'x-laconic-token': 'the-page-token-of-this-server' }))
    expect(sent.status).toBe(200)
    await sent.text()
    expect(llm.calls).toHaveLength(1)
  })

  it('refuses a guard beside host or token, which it would ignore', () => {
    const { agent } = echoAgent([])
    const guard = createRequestGuard()
    for (const extra of [{ host: 'chat.example.com' }, { token: 'the-page-token-of-this-server' }, { host: false as const }]) {
      expect(() => createChatHandler({ agent, guard, ...extra })).toThrow(
        expect.objectContaining({ code: 'config', message: expect.stringMatching(/`guard` or `host`\/`token`/) }),
      )
    }
  })

  it('lets a guard made for the page through with its token', async () => {
    const { agent } = echoAgent(['ok'])
    const guard = createRequestGuard({ host: 'localhost' })
    const served = await createChatHandler({ agent, guard })(post({ id: 'c', messages: [user('u', 'hi')] }, { 'x-laconic-token': guard.token as string }))
    expect(served.status).toBe(200)
    await served.text()
  })
})

describe('the host a chat answers (DNS rebinding)', () => {
  /** A same-origin post as a browser sends it to the name in its address bar. */
  const browserPost = (host: string) => post({ id: 'c', messages: [user('u', 'hi')] }, { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })

  it('serves only loopback names by default: a page on a name rebound to 127.0.0.1 is refused', async () => {
    const { agent, llm } = echoAgent(['ok', 'ok', 'ok'])
    const chat = createChatHandler({ agent })
    const rebound = await chat(browserPost('evil.example:3000'))
    expect(rebound.status).toBe(403)
    expect(await rebound.json()).toEqual({
      code: 'forbidden',
      message: 'this server answers requests addressed to localhost only (the host option)',
    })
    // A request built by hand with no Host header is judged by its URL's host.
    const byUrl = await chat(new Request('http://evil.example/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
    expect(byUrl.status).toBe(403)
    expect(llm.calls).toEqual([])
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000']) {
      const served = await chat(browserPost(host))
      expect(served.status, host).toBe(200)
      await served.text()
    }
  })

  it('serves the host it is given, or any with host: false', async () => {
    const { agent } = echoAgent(['ok', 'ok'])
    const deployed = createChatHandler({ agent, host: 'chat.example.com' })
    expect((await deployed(browserPost('localhost:3000'))).status).toBe(403)
    const served = await deployed(browserPost('chat.example.com'))
    expect(served.status).toBe(200)
    await served.text()
    const open = await createChatHandler({ agent, host: false })(browserPost('anything.example'))
    expect(open.status).toBe(200)
    await open.text()
  })
})

describe('what a browser sees of a failure', () => {
  const failing = () => echoAgent([{ text: '', error: new LaconicError(`openai: http 500 from ${INTERNAL}: upstream down`, { code: 'http' }) }])

  it('masks the run error to a short message and its code; the full text goes to onError with the chat', async () => {
    const { agent } = failing()
    const hidden: MaskedError[] = []
    const chat = createChatHandler({ agent, onError: (error) => hidden.push(error) })
    const { message, errors, chunks } = await chatTurn(chat, [user('u1', 'hi')])

    expect(JSON.stringify(chunks)).not.toContain('10.0.0.7')
    expect(errors.map((e) => e.message)).toEqual(['the research failed (http)'])
    expect(message.metadata).toMatchObject({ reason: 'error', error: { code: 'http', message: 'the research failed (http)' } })
    expect(hidden).toEqual([
      { kind: 'run', code: 'http', message: `openai: http 500 from ${INTERNAL}: upstream down`, runId: message.metadata?.runId, chatId: 'chat-1' },
    ])
  })

  it('shows the full text with maskErrors: false', async () => {
    const { agent } = failing()
    const { errors } = await chatTurn(createChatHandler({ agent, maskErrors: false }), [user('u1', 'hi')])
    expect(errors.map((e) => e.message)).toEqual([`openai: http 500 from ${INTERNAL}: upstream down`])
  })

  it("ends an answer from nothing after failed calls as an error, masking the failures' warnings but not the library's own", async () => {
    const strategy: Strategy = {
      name: 'unlucky',
      async *run(_question, ctx) {
        yield ctx.warning(`exploring "x" failed: http 503 from ${INTERNAL}`, 'node-failed')
        yield ctx.warning('the notebook is empty; nothing to answer from', 'no-facts')
        yield { type: 'answer-token', text: 'No facts were found for this question.' }
        yield { type: 'answer', text: 'No facts were found for this question.', citations: [] }
      },
    }
    const agent = recordingAgent(createAgent({ llm: scriptedLLM({ replies: [] }), strategy }))
    const hidden: MaskedError[] = []
    const { message, errors, chunks } = await chatTurn(createChatHandler({ agent, onError: (e) => hidden.push(e) }), [user('u1', 'hi')])

    expect(JSON.stringify(chunks)).not.toContain('10.0.0.7')
    expect(message.parts.filter((p) => p.type === 'data-warning').map((p) => p.data)).toEqual([
      { code: 'node-failed', message: 'a research step failed (node-failed)' },
      { code: 'no-facts', message: 'the notebook is empty; nothing to answer from' },
    ])
    expect(message.metadata).toMatchObject({ reason: 'error', error: { code: 'node-failed', message: 'the research failed (node-failed)' } })
    expect(errors.map((e) => e.message)).toEqual(['the research failed (node-failed)'])
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' })
    expect(hidden.map((e) => [e.kind, e.code])).toEqual([
      ['warning', 'node-failed'],
      ['run', 'node-failed'],
    ])
    expect(hidden[1]?.message).toBe(`nothing was found to answer from because a call failed: exploring "x" failed: http 503 from ${INTERNAL}`)
  })

  it("masks failed searches' and tool calls' text too", async () => {
    const strategy: Strategy = {
      name: 'tools',
      async *run() {
        yield { type: 'query', queryId: 'q1', query: 'sky' }
        yield { type: 'result', queryId: 'q1', results: [], error: { message: `brave: http 502 from ${INTERNAL}`, code: 'http' } }
        yield { type: 'tool-call', callId: 'c1', name: 'read_page', args: { url: 'https://a.example/' } }
        yield { type: 'tool-result', callId: 'c1', ok: false, summary: `fetch failed: ${INTERNAL} refused`, chars: 0 }
        yield { type: 'answer', text: 'Blue [1].', citations: [{ index: 1, url: 'https://a.example/' }] }
      },
    }
    const agent = recordingAgent(createAgent({ llm: scriptedLLM({ replies: [] }), strategy }))
    const hidden: MaskedError[] = []
    const { message, chunks } = await chatTurn(createChatHandler({ agent, onError: (e) => hidden.push(e) }), [user('u1', 'hi')])
    expect(JSON.stringify(chunks)).not.toContain('10.0.0.7')
    expect(message.parts.find((p) => p.type === 'data-query')?.data.error).toEqual({ code: 'http', message: 'the search failed (http)' })
    expect(message.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({ state: 'output-error', errorText: 'the tool call failed (error)' })
    // Failures, but an answer with a citation: it stands.
    expect(message.metadata?.reason).toBe('answered')
    expect(hidden.map((e) => e.kind)).toEqual(['search', 'tool'])
  })

  it('answers a failed start (a session that throws) with a masked 500, reported with the chat', async () => {
    const hidden: MaskedError[] = []
    const agent = {
      session(): never {
        throw new Error(`redis at ${INTERNAL} refused`)
      },
    }
    const response = await createChatHandler({ agent, onError: (e) => hidden.push(e) })(post({ id: 'c9', messages: [user('u', 'hi')] }))
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ code: 'error', message: 'the chat could not start (error)' })
    expect(hidden).toEqual([{ kind: 'request', code: 'error', message: `redis at ${INTERNAL} refused`, chatId: 'c9' }])
  })
})

describe('stopping a turn', () => {
  it("aborts the model call when the request's signal fires, though createUIMessageStream never cancels the merged stream", async () => {
    const gated = gatedReply()
    const { agent } = echoAgent((req) => gated.reply(req))
    const chat = createChatHandler({ agent })
    const tab = new AbortController()
    const turn = await chat.turn(post({ id: 'c1', messages: [user('u1', 'hi')] }, {}, { signal: tab.signal }))
    if (turn instanceof Response) throw new Error(`refused: ${await turn.text()}`)

    const stream = createUIMessageStream<ResearchUIMessage>({
      execute({ writer }) {
        writer.write({ type: 'data-warning', data: { code: 'resumed', message: 'welcome back' } })
        writer.merge(turn.stream as ReadableStream<UIMessageChunk> as never)
      },
    })
    const response = createUIMessageStreamResponse({ stream })
    const reader = response.body!.getReader()
    void (async () => {
      while (!(await reader.read()).done) {}
    })().catch(() => {})
    await gated.started
    // The tab closes: the runtime aborts the request's signal and cancels the response body.
    tab.abort(new DOMException('the tab closed', 'AbortError'))
    await reader.cancel()
    await gated.aborted
    expect((await turn.run.result).reason).toBe('aborted')
  })
})

describe('the data part and metadata schemas', () => {
  it("pass a real run's messages through the AI SDK's validateUIMessages, and catch a forged part", async () => {
    const { message } = await chatTurn(createChatHandler({ agent: recordingAgent(demoAgent({ tokenDelayMs: 0 })) }), [user('u1', DEMO_QUESTION)])
    const messages: ResearchUIMessage[] = [user('u1', DEMO_QUESTION), message]
    const validated = await validateUIMessages<ResearchUIMessage>({ messages, dataSchemas: researchDataSchemas, metadataSchema: researchMetadataSchema })
    expect(validated).toEqual(messages)

    const forged = structuredClone(messages)
    const fact = forged[1]?.parts.find((p) => p.type === 'data-fact')
    if (fact?.type === 'data-fact') (fact.data.fact as unknown as { sources: unknown }).sources = 'https://evil.example'
    const checked = await safeValidateUIMessages<ResearchUIMessage>({ messages: forged, dataSchemas: researchDataSchemas })
    expect(checked.success).toBe(false)
    if (!checked.success) expect(checked.error.message).toContain('messages[1].parts')

    const badMetadata = structuredClone(messages)
    ;(badMetadata[1] as { metadata: unknown }).metadata = { runId: 7 }
    expect((await safeValidateUIMessages<ResearchUIMessage>({ messages: badMetadata, metadataSchema: researchMetadataSchema })).success).toBe(false)
  })
})
