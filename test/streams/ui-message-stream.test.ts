/**
 * The UI message stream read by the real AI SDK (`ai@6`): `DefaultChatTransport` (what
 * `useChat` uses) fetches our Response and validates every chunk against the SDK's own schema,
 * then `readUIMessageStream` folds the chunks into the `UIMessage` a chat UI renders.
 */
import { DefaultChatTransport, readUIMessageStream, validateUIMessages, type UIMessage, type UIMessageChunk } from 'ai'
import fc from 'fast-check'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { demoAgent } from '../../examples/sse-server/demo.js'
import { createAgent } from '../../src/index.js'
import type { ResearchEvent } from '../../src/index.js'
import { citedAnswer, type Strategy } from '../../src/strategy.js'
import { toUIMessageStream, toUIMessageStreamResponse, researchDataSchemas, researchMetadataSchema } from '../../src/streams/index.js'
import { mockFetch, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { zeroCost } from '../support/cost.js'
import { researchRun, trickyText } from './arbitraries.js'
import { collect, gate } from './helpers.js'

// The types a user of `laconic-research/streams` names, reached from its public values: the data
// parts and metadata its schemas validate (what `useChat`'s `dataPartSchemas` is given), the
// chunks `toUIMessageStream` yields, and the two functions' parameters.
type SchemaOutput<S> = S extends { readonly '~standard': { readonly types?: { readonly output: infer O } | undefined } } ? O : never
type ResearchDataParts = { -readonly [Name in keyof typeof researchDataSchemas]: SchemaOutput<(typeof researchDataSchemas)[Name]> }
type ResearchMessageMetadata = NonNullable<SchemaOutput<typeof researchMetadataSchema>>
type ResearchUIChunk = ReturnType<typeof toUIMessageStream> extends ReadableStream<infer Chunk> ? Chunk : never
type EventStream = Parameters<typeof toUIMessageStream>[0]
type UIMessageStreamResponseInit = NonNullable<Parameters<typeof toUIMessageStreamResponse>[1]>
type ResearchUIMessage = UIMessage<ResearchMessageMetadata, ResearchDataParts>

const EXPECTED_ANSWER =
  'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper [1]. ' +
  'Baker was honoured for computational protein design [2], and Hassabis and Jumper for predicting protein structures with AlphaFold [3].'

/** Reads a response as `useChat` does: the SDK's transport, its chunk schema, its message fold. */
async function readAsChat(response: Response): Promise<{ message: ResearchUIMessage; errors: Error[]; chunks: UIMessageChunk[] }> {
  const transport = new DefaultChatTransport<ResearchUIMessage>({ api: 'http://app.test/api/chat', fetch: async () => response })
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Who won?' }] }],
    abortSignal: undefined,
  })
  const [forChunks, forMessage] = stream.tee()
  const chunksPromise = collect(forChunks)
  const errors: Error[] = []
  let message: ResearchUIMessage | undefined
  for await (const snapshot of readUIMessageStream<ResearchUIMessage>({ stream: forMessage, onError: (e) => errors.push(e as Error) })) message = snapshot
  if (!message) throw new Error('the stream produced no message')
  return { message, errors, chunks: await chunksPromise }
}

function failingAgent() {
  const strategy: Strategy = {
    name: 'failing',
    async *run() {
      yield { type: 'plan', text: 'look it up' }
      throw new Error('the index is corrupt')
    },
  }
  return createAgent({ llm: scriptedLLM({ replies: [] }), strategy })
}

describe('toUIMessageStreamResponse, read by the AI SDK', () => {
  it('gives useChat the streamed answer, its sources and the research as data parts', async () => {
    const response = toUIMessageStreamResponse(demoAgent({ tokenDelayMs: 0 }).research('Who won the 2024 Nobel Prize in Chemistry?'))
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const { message, errors, chunks } = await readAsChat(response)

    expect(errors).toEqual([])
    const texts = message.parts.filter((p) => p.type === 'text')
    expect(texts).toHaveLength(1)
    expect(texts[0]).toMatchObject({ text: EXPECTED_ANSWER, state: 'done' })
    // Streamed: many deltas, not one.
    expect(chunks.filter((c) => c.type === 'text-delta').length).toBeGreaterThan(10)

    const sources = message.parts.filter((p) => p.type === 'source-url')
    expect(sources.map((s) => [s.sourceId, s.url])).toEqual([
      ['1', 'https://www.nobelprize.org/prizes/chemistry/2024/summary/'],
      ['2', 'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/'],
      ['3', 'https://deepmind.google/technologies/alphafold/'],
    ])

    const plan = message.parts.find((p) => p.type === 'data-plan')
    expect(plan?.data.text).toContain('2024 chemistry laureates')
    // One part per query, updated in place with its results.
    const queries = message.parts.filter((p) => p.type === 'data-query')
    expect(queries.map((q) => q.data.query)).toEqual([
      '2024 Nobel Prize Chemistry winners',
      'AlphaFold protein structure prediction Nobel',
      'David Baker computational protein design',
    ])
    expect(queries.every((q) => (q.data.results?.length ?? 0) > 0)).toBe(true)
    // The bare "2024" fact is kept but marked as replaced by the full sentence.
    const facts = message.parts.filter((p) => p.type === 'data-fact')
    const live = facts.filter((f) => f.data.supersededBy === undefined)
    expect(live).toHaveLength(3)
    expect(facts.find((f) => f.data.fact.text === '2024')?.data.supersededBy).toBeDefined()
    // One cost part, holding the final cost.
    const costs = message.parts.filter((p) => p.type === 'data-cost')
    expect(costs).toHaveLength(1)
    expect(costs[0]?.data.total.searches).toBe(3)
    // Progress-only parts went by without being kept.
    expect(chunks.some((c) => c.type === 'data-llm-call')).toBe(true)
    expect(message.parts.some((p) => p.type === 'data-llm-call' || p.type === 'data-knowledge')).toBe(false)

    expect(message.metadata).toMatchObject({ strategy: 'graph-reader', reason: 'answered' })
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', messageMetadata: expect.objectContaining({ reason: 'answered' }) })
  })

  it('with verify: a data-claim part per checked sentence, the revision as a second text part marked by data-revision, supportRate in the metadata', async () => {
    const source = 'The longest chain serves as proof of the sequence of events witnessed. It came from the largest pool of CPU power in 2008.'
    const answer = 'The longest chain serves as proof of the sequence of events [1]. It came from the largest pool of CPU power in 2009 [1].'
    const revision = 'The longest chain serves as proof of the sequence of events [1].'
    const agent = createAgent({
      llm: scriptedLLM({ replies: [answer, revision] }),
      verify: 'revise',
      strategy: {
        name: 'cited',
        async *run(_q, ctx) {
          yield* citedAnswer(ctx, { from: { request: { prompt: 'answer' } }, source: () => ({ url: 'https://bitcoin.example/', text: source }), empty: {} })
        },
      },
    })
    const { message, errors } = await readAsChat(toUIMessageStreamResponse(agent.research('What is the longest chain?'), { heartbeatMs: 0 }))
    expect(errors).toEqual([])
    expect(message.parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual([answer, revision])
    const claims = message.parts.filter((p) => p.type === 'data-claim')
    expect(claims.map((c) => [c.id, c.data.verdict])).toEqual([
      ['claim-0', 'supported'],
      ['claim-1', 'unsupported'],
    ])
    expect(claims[1]?.data.evidence).toContain('2008')
    expect(message.parts.find((p) => p.type === 'data-revision')?.data).toEqual({ text: revision })
    expect(message.metadata).toMatchObject({ reason: 'answered', supportRate: 0.5 })
    // The kept parts pass the schemas a chat checks stored messages with.
    await expect(
      validateUIMessages<ResearchUIMessage>({ messages: [message], dataSchemas: researchDataSchemas, metadataSchema: researchMetadataSchema }),
    ).resolves.toHaveLength(1)
  })

  it("a report's outline as data-outline and each section as a data-section part that finds it in the answer's text, in outline order", async () => {
    const outline = { title: 'Proteins', sections: ['Design <b>', 'Folding'].map((title) => ({ title, goal: 'g', questions: ['q?'] })) }
    const agent = createAgent({
      llm: scriptedLLM({ replies: [] }),
      strategy: {
        name: 'report',
        async *run() {
          yield { type: 'outline', outline }
          yield { type: 'answer-token', text: '# Proteins\n\n' }
          for (const [index, { title }] of outline.sections.entries()) {
            yield { type: 'section-start', index, title }
            yield { type: 'answer-token', text: `## ${title}\n\n`, section: index }
            yield { type: 'answer-token', text: `Body ${index} — ünïcode. `, section: index }
            yield { type: 'answer-token', text: 'More.\n\n', section: index }
            yield { type: 'section-end', index }
          }
          yield { type: 'answer-token', text: '## Summary\n\nDone.' }
          yield { type: 'answer', text: '', citations: [] }
        },
      },
    })
    const { message, errors } = await readAsChat(toUIMessageStreamResponse(agent.research('Proteins?'), { heartbeatMs: 0 }))
    expect(errors).toEqual([])
    expect(message.parts.find((p) => p.type === 'data-outline')?.data).toEqual({ outline })
    const text = message.parts.find((p) => p.type === 'text')?.text ?? ''
    const sections = message.parts.filter((p) => p.type === 'data-section')
    expect(sections.map((p) => [p.id, p.data.index, p.data.title])).toEqual([
      ['section-0', 0, 'Design <b>'],
      ['section-1', 1, 'Folding'],
    ])
    expect(sections.map((p) => text.slice(p.data.start, p.data.end))).toEqual([
      '## Design <b>\n\nBody 0 — ünïcode. More.\n\n',
      '## Folding\n\nBody 1 — ünïcode. More.\n\n',
    ])
    await expect(
      validateUIMessages<ResearchUIMessage>({ messages: [message], dataSchemas: researchDataSchemas, metadataSchema: researchMetadataSchema }),
    ).resolves.toHaveLength(1)
  })

  it("shows each model call's reasoning as a reasoning part, apart from the answer", async () => {
    const llm = scriptedLLM({
      replies: [
        { text: 'Action: Search\nQuery: why is the sky blue', reasoning: 'I should look this up.' },
        'Air scatters blue light most.',
        { text: 'Action: Answer', reasoning: 'The notes suffice.' },
        { text: 'Because air scatters blue light most.', reasoning: 'Say it plainly.' },
      ],
    })
    const agent = createAgent({
      llm,
      search: mockSearch({ corpus: [{ title: 'Sky', url: 'https://example.org/sky', snippet: 'Blue light scatters most.' }] }),
      strategy: 'scratchpad',
    })
    const { message, errors } = await readAsChat(toUIMessageStreamResponse(agent.research('Why is the sky blue?')))
    expect(errors).toEqual([])
    expect(message.parts.filter((p) => p.type === 'reasoning').map((p) => [p.text, p.state])).toEqual([
      ['I should look this up.', 'done'],
      ['The notes suffice.', 'done'],
      ['Say it plainly.', 'done'],
    ])
    expect(message.parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['Because air scatters blue light most.'])
  })

  it("shows a react run's tool calls as the AI SDK's dynamic tool parts, with their outputs", async () => {
    const llm = scriptedLLM({
      replies: [
        { text: '', toolCalls: [{ name: 'search', args: { query: 'Maurice Koechlin birthplace' } }] },
        { text: '', toolCalls: [{ name: 'read_page', args: { url: 'https://example.org/koechlin' } }] },
        'Maurice Koechlin was born in Buhl [1].',
      ],
    })
    const search = mockSearch({
      results: { 'Maurice Koechlin birthplace': [{ title: 'Maurice Koechlin', url: 'https://example.org/koechlin', snippet: 'Swiss engineer.' }] },
    })
    const fetch = mockFetch({
      pages: { 'https://example.org/koechlin': { title: 'Maurice Koechlin', text: 'Maurice Koechlin was born in Buhl, Haut-Rhin, in 1856.' } },
    })
    const agent = createAgent({ llm, search, fetch, strategy: 'react' })
    const { message, errors } = await readAsChat(toUIMessageStreamResponse(agent.research('Where was Maurice Koechlin born?')))
    expect(errors).toEqual([])
    const tools = message.parts.filter((p) => p.type === 'dynamic-tool')
    expect(tools.map((t) => [t.toolName, t.input, t.state])).toEqual([
      ['search', { query: 'Maurice Koechlin birthplace' }, 'output-available'],
      ['read_page', { url: 'https://example.org/koechlin' }, 'output-available'],
    ])
    expect(tools[1]?.state === 'output-available' && tools[1].output).toMatchObject({ summary: expect.any(String), chars: expect.any(Number) })
    expect(message.parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['Maurice Koechlin was born in Buhl [1].'])
  })

  it('keeps a tool call whose arguments have keys the AI SDK refuses, without those keys', async () => {
    // What a model may write: the SDK's prototype-poisoning guard rejects `__proto__` anywhere and
    // `constructor.prototype`, which would end the chat's stream with an error.
    const args = JSON.parse(
      '{"query":"q","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1},"name":"c"},"nested":[{"__proto__":1,"keep":2}]}',
    ) as Record<string, unknown>
    const events = [
      { type: 'run-start', question: 'q', strategy: 'react', runId: 'r', seq: 0, time: 0 },
      { type: 'tool-call', callId: 'c1', name: 'search', args, runId: 'r', seq: 1, time: 0 },
      { type: 'tool-result', callId: 'c1', ok: true, summary: 'one result', chars: 10, runId: 'r', seq: 2, time: 0 },
      { type: 'run-end', reason: 'answered', cost: zeroCost(), runId: 'r', seq: 3, time: 0 },
    ] as ResearchEvent[]
    const { message, errors } = await readAsChat(toUIMessageStreamResponse(fromArray(events), { heartbeatMs: 0 }))
    expect(errors).toEqual([])
    const tools = message.parts.filter((p) => p.type === 'dynamic-tool')
    expect(tools.map((t) => [t.toolName, t.input, t.state])).toEqual([
      ['search', { query: 'q', constructor: { name: 'c' }, nested: [{ keep: 2 }] }, 'output-available'],
    ])
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  it('ends a run that fails with an error chunk the chat reports, keeping what came before', async () => {
    const { message, errors, chunks } = await readAsChat(toUIMessageStreamResponse(failingAgent().research('anything')))
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('the index is corrupt')])
    expect(chunks.find((c) => c.type === 'error')).toEqual({ type: 'error', errorText: expect.stringContaining('the index is corrupt') })
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' })
    expect(message.parts.some((p) => p.type === 'data-plan')).toBe(true)
  })

  it('ends an aborted run cleanly: the text part closed, an abort chunk, then [DONE]', async () => {
    const agent = demoAgent({ tokenDelayMs: 0 })
    const run = agent.research('Who won?')
    const body = toUIMessageStreamResponse(run).body!.pipeThrough(new TextDecoderStream())
    let text = ''
    for await (const piece of body) {
      text += piece
      if (text.includes('"text-delta"')) run.abort()
    }
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
    const chunks = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice(6)) as { type: string })
    const types = chunks.map((c) => c.type)
    expect(types.at(-1)).toBe('abort')
    expect(types.lastIndexOf('text-end')).toBeGreaterThan(types.indexOf('text-start'))
    expect((await run.result).reason).toBe('aborted')
  })

  it('aborts the run when the reader cancels the stream', async () => {
    const run = demoAgent({ tokenDelayMs: 0 }).research('Who won?')
    const reader = toUIMessageStream(run).getReader()
    expect((await reader.read()).value).toMatchObject({ type: 'start' })
    await reader.cancel('the tab closed')
    expect((await run.result).reason).toBe('aborted')
  })

  it('streams a run whose result was awaited first: one reader, every event, no orphaned run', async () => {
    const run = demoAgent({ tokenDelayMs: 0 }).research('Who won?')
    // A route that awaits (or logs) the result before it builds the response.
    const result = run.result.then((r) => r)
    const { message, errors } = await readAsChat(toUIMessageStreamResponse(run))
    expect(errors).toEqual([])
    expect(message.parts.find((p) => p.type === 'text')).toMatchObject({ text: EXPECTED_ANSWER })
    expect((await result).answer).toBe(EXPECTED_ANSWER)
  })

  it('a stream built after the result was awaited still aborts the run when it is cancelled', async () => {
    // A finalizer that streams a token, then waits until its call is aborted.
    const finalizer = {
      async *stream(req: { signal?: AbortSignal }) {
        yield { type: 'text' as const, text: 'Paris' }
        await new Promise((_, reject) => req.signal?.addEventListener('abort', () => reject(req.signal?.reason), { once: true }))
      },
    }
    const agent = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] }),
        synthesizer: scriptedLLM({ replies: ['Paris.'] }),
        finalizer,
      },
      search: mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' }] }),
    })
    const run = agent.research('What is the capital of France?')
    const result = run.result.then((r) => r)
    const reader = toUIMessageStream(run).getReader()
    for (let chunk = await reader.read(); chunk.value?.type !== 'text-delta'; chunk = await reader.read());
    await reader.cancel('the tab closed')
    expect((await result).reason).toBe('aborted')
  })

  it('reports a source that fails or stops early as an error, and stays lazy until read', async () => {
    const pulled = gate()
    let started = false
    // biome-ignore lint/correctness/useYield: a source that fails before its first event
    async function* broken(): AsyncGenerator<ResearchEvent> {
      started = true
      pulled.open()
      throw new Error('subscriber cut off')
    }
    const stream = toUIMessageStream(broken())
    expect(started).toBe(false)
    const chunks = await collect(stream)
    await pulled.promise
    expect(chunks.map((c) => c.type)).toEqual(['start', 'error', 'finish'])
    expect(chunks[1]).toEqual({ type: 'error', errorText: 'subscriber cut off' })
    const ended = await collect(toUIMessageStream((async function* () {})()))
    expect(ended.map((c) => c.type)).toEqual(['start', 'error', 'finish'])
  })

  it('any run becomes chunks the AI SDK schema accepts, with the streamed answer as its one text', async () => {
    await fc.assert(
      fc.asyncProperty(answeredRun, async ({ events, answer }) => {
        const { message, chunks, errors } = await readAsChat(toUIMessageStreamResponse(fromArray(events), { heartbeatMs: 0 }))
        const end = events.at(-1)
        const texts = message.parts.filter((p) => p.type === 'text')
        expect(texts.map((p) => p.text)).toEqual(answer ? [answer] : [])
        expect(chunks.filter((c) => c.type === 'text-start').length).toBe(chunks.filter((c) => c.type === 'text-end').length)
        expect(chunks.at(-1)?.type).toBe(end?.type === 'run-end' && end.reason === 'aborted' ? 'abort' : 'finish')
        expect(errors.length).toBe(end?.type === 'run-end' && end.reason === 'error' ? 1 : 0)
        // Reasoning arrives whole, in order, in parts that all close.
        const reasoning = events.flatMap((e) => (e.type === 'reasoning-token' ? [e.text] : [])).join('')
        expect(message.parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : [])).join('')).toBe(reasoning)
        expect(chunks.filter((c) => c.type === 'reasoning-start').length).toBe(chunks.filter((c) => c.type === 'reasoning-end').length)
        // Every tool call reaches the chat with its arguments, less a `__proto__` key the SDK refuses.
        const calls = events.flatMap((e) => (e.type === 'tool-call' ? [Object.entries(e.args).filter(([key]) => key !== '__proto__')] : []))
        expect(chunks.flatMap((c) => (c.type === 'tool-input-available' ? [Object.entries(c.input as object)] : []))).toEqual(calls)
      }),
      { numRuns: 40 },
    )
  })
})

/** Any run whose answer is streamed as tokens (none, some) and then given whole, as the runtime promises. */
const answeredRun = fc.tuple(researchRun, fc.array(trickyText, { maxLength: 5 }), fc.boolean()).map(([run, tokens, answered]) => {
  const [start, ...rest] = run
  const end = rest.pop()!
  const middle = rest.filter((e) => e.type !== 'answer' && e.type !== 'answer-token')
  const answer = tokens.join('')
  const tail = [
    ...tokens.map((text) => ({ type: 'answer-token' as const, text })),
    ...(answered ? [{ type: 'answer' as const, text: answer, citations: [] }] : []),
  ]
  const events = [start!, ...middle, ...tail, end].map((event, seq) => ({ ...event, seq })) as ResearchEvent[]
  return { events, answer }
})

function fromArray(events: readonly ResearchEvent[]): EventStream {
  return (async function* () {
    yield* events
  })()
}

describe('types', () => {
  it('our chunks are AI SDK UI message chunks of our message type', () => {
    expectTypeOf<ResearchUIChunk>().toExtend<UIMessageChunk<ResearchMessageMetadata, ResearchDataParts>>()
    expectTypeOf(toUIMessageStream).returns.toEqualTypeOf<ReadableStream<ResearchUIChunk>>()
    expectTypeOf(toUIMessageStreamResponse).parameters.toEqualTypeOf<[EventStream, (UIMessageStreamResponseInit | undefined)?]>()
    expectTypeOf(toUIMessageStreamResponse).returns.toEqualTypeOf<Response>()
  })

  it('answers with the UI message stream headers, and no others', () => {
    const headers = Object.fromEntries(toUIMessageStreamResponse(fromArray([])).headers)
    expect(headers).toEqual({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-vercel-ai-ui-message-stream': 'v1',
      'x-accel-buffering': 'no',
    })
  })
})

describe("a query part's results keep a scholarly result's meta", () => {
  const validate = (results: unknown) => researchDataSchemas.query['~standard'].validate({ queryId: 'q1', query: 'turing', results })
  const paper = { title: 'Computing Machinery and Intelligence', url: 'https://doi.org/10.1093/mind/lix.236.433', snippet: '' }

  it('accepts meta with its documented fields', async () => {
    const meta = {
      authors: ['A. M. Turing'],
      year: 1950,
      venue: 'Mind',
      doi: '10.1093/mind/lix.236.433',
      arxivId: '2202.12139',
      pdfUrl: 'https://arxiv.org/pdf/2202.12139',
    }
    expect(await validate([{ ...paper, meta }])).not.toHaveProperty('issues')
  })

  it('refuses meta whose fields have the wrong type', async () => {
    expect(await validate([{ ...paper, meta: { year: '1950', authors: 'A. M. Turing' } }])).toMatchObject({
      issues: [{ path: ['results', 0, 'meta', 'authors'] }, { path: ['results', 0, 'meta', 'year'] }],
    })
  })
})
