/**
 * `aiSdkModel` against the AI SDK's own mock language model (`ai/test`) and against a real
 * provider package, `@ai-sdk/openai-compatible`, talking to a loopback OpenAI-compatible server.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { aiSdkModel, searxng } from '../../../src/adapters/index.js'
import type { LLMChunk, LLMProvider, LLMRequest } from '../../../src/index.js'
import { createAgent } from '../../../src/index.js'
import { assertEventInvariants } from '../../../src/testing/index.js'
import { startFakeBackend, type FakeBackend } from '../../cli/fake-backend.js'
import { roleOf } from '../../support/roles.js'

type AiSdkLanguageModel = Parameters<typeof aiSdkModel>[0]

type AiSdkModelOptions = NonNullable<Parameters<typeof aiSdkModel>[1]>

type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

const usage = { inputTokens: { total: 12, noCache: 8, cacheRead: 4, cacheWrite: 0 }, outputTokens: { total: 5, text: 3, reasoning: 2 } }

function mockModel(parts: LanguageModelV3StreamPart[]) {
  return new MockLanguageModelV3({ modelId: 'mock-model', doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) })
}

async function collect(stream: AsyncIterable<LLMChunk>): Promise<LLMChunk[]> {
  const out: LLMChunk[] = []
  for await (const chunk of stream) out.push(chunk)
  return out
}

describe('aiSdkModel with the AI SDK mock model', () => {
  it('streams reasoning and text deltas, then the usage', async () => {
    const model = mockModel([
      { type: 'stream-start', warnings: [] },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'thinking…' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Blue ' },
      { type: 'text-delta', id: 't', delta: '' },
      { type: 'text-delta', id: 't', delta: 'light.' },
      { type: 'text-end', id: 't' },
      { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
    ])
    const llm = aiSdkModel(model)
    expect(llm.model).toBe('mock-model')
    expect(await collect(llm.stream({ prompt: 'Why is the sky blue?' }))).toEqual([
      { type: 'reasoning', text: 'thinking…' },
      { type: 'text', text: 'Blue ' },
      { type: 'text', text: 'light.' },
      { type: 'usage', inputTokens: 12, outputTokens: 5, cachedInputTokens: 4, cacheWriteTokens: 0 },
    ])
  })

  it('leaves out the counts a provider did not report (never 0)', async () => {
    const partial = {
      inputTokens: { total: 7, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    }
    const model = mockModel([{ type: 'finish', usage: partial, finishReason: { unified: 'stop', raw: undefined } }])
    expect(await collect(aiSdkModel(model, { pricing: { 'mock-model': { inputPerMillion: 1, outputPerMillion: 1 } } }).stream({ prompt: 'Q' }))).toEqual([
      { type: 'usage', inputTokens: 7 },
    ])
  })

  it('streams tool calls (deltas, then each call whole) and sends tools, the choice and the conversation so far', async () => {
    const model = mockModel([
      { type: 'tool-input-start', id: 'call-1', toolName: 'search' },
      { type: 'tool-input-delta', id: 'call-1', delta: '{"query":' },
      { type: 'tool-input-start', id: 'call-2', toolName: 'fetch' },
      { type: 'tool-input-delta', id: 'call-1', delta: '"sky"}' },
      { type: 'tool-input-delta', id: 'call-2', delta: '{"url":"https://example.org"}' },
      { type: 'tool-input-end', id: 'call-1' },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'search', input: '{"query":"sky"}' },
      { type: 'tool-call', toolCallId: 'call-2', toolName: 'fetch', input: '{"url":"https://example.org"}' },
      { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
    ])
    const parameters = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }
    const chunks = await collect(
      aiSdkModel(model).stream({
        prompt: 'Why is the sky blue?',
        tools: [{ name: 'search', description: 'Search the web', parameters }],
        toolChoice: { name: 'search' },
        turns: [
          {
            role: 'assistant',
            text: 'Let me look.',
            toolCalls: [
              { id: 'c0', name: 'search', args: '{"query":"blue"}' },
              { id: 'c9', name: 'search', args: 'not json' },
            ],
          },
          { role: 'tool', callId: 'c0', name: 'search', content: 'Rayleigh scattering.' },
          { role: 'tool', callId: 'c9', name: 'search', content: 'bad arguments', isError: true },
          { role: 'user', text: 'Go on.' },
        ],
      }),
    )
    expect(chunks.filter((c) => c.type !== 'usage')).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call-1', name: 'search', argsDelta: '' },
      { type: 'tool-call-delta', index: 0, id: 'call-1', name: 'search', argsDelta: '{"query":' },
      { type: 'tool-call-delta', index: 1, id: 'call-2', name: 'fetch', argsDelta: '' },
      { type: 'tool-call-delta', index: 0, id: 'call-1', name: 'search', argsDelta: '"sky"}' },
      { type: 'tool-call-delta', index: 1, id: 'call-2', name: 'fetch', argsDelta: '{"url":"https://example.org"}' },
      { type: 'tool-call', id: 'call-1', name: 'search', args: '{"query":"sky"}' },
      { type: 'tool-call', id: 'call-2', name: 'fetch', args: '{"url":"https://example.org"}' },
    ])
    const call = model.doStreamCalls[0]
    expect(call?.tools).toEqual([{ type: 'function', name: 'search', description: 'Search the web', inputSchema: parameters }])
    expect(call?.toolChoice).toEqual({ type: 'tool', toolName: 'search' })
    expect(call?.prompt.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', toolCallId: 'c0', toolName: 'search', input: { query: 'blue' } },
          { type: 'tool-call', toolCallId: 'c9', toolName: 'search', input: 'not json' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'search', output: { type: 'text', value: 'Rayleigh scattering.' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c9', toolName: 'search', output: { type: 'error-text', value: 'bad arguments' } }] },
      { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
    ])
  })

  it('sends the system and user turns, limits, and a schema as the JSON response format', async () => {
    const model = mockModel([{ type: 'finish', usage, finishReason: { unified: 'stop', raw: undefined } }])
    const schema = { type: 'object', properties: { answerable: { type: 'boolean' } }, required: ['answerable'] }
    const signal = new AbortController().signal
    await collect(aiSdkModel(model).stream({ system: 'Be brief.', prompt: 'Q?', json: schema, maxTokens: 64, temperature: 0.2, signal }))
    await collect(aiSdkModel(model).stream({ prompt: 'Q2?', json: true }))
    const [first, second] = model.doStreamCalls
    expect(first).toMatchObject({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Q?' }] },
      ],
      maxOutputTokens: 64,
      temperature: 0.2,
      responseFormat: { type: 'json', schema },
      abortSignal: signal,
    })
    expect(second?.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Q2?' }] }])
    expect(second?.responseFormat).toEqual({ type: 'json' })
  })

  it('prices the usage by model id when asked', async () => {
    const model = mockModel([{ type: 'finish', usage, finishReason: { unified: 'stop', raw: undefined } }])
    const chunks = await collect(
      aiSdkModel(model, { pricing: { 'mock-model': { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } } }).stream({ prompt: 'Q' }),
    )
    expect(chunks).toEqual([{ type: 'usage', inputTokens: 12, outputTokens: 5, cachedInputTokens: 4, cacheWriteTokens: 0, cost: 22 }])
  })

  it('reads a v2 usage (plain numbers)', async () => {
    const v2 = {
      specificationVersion: 'v2',
      provider: 'old',
      modelId: 'm',
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: 'text-delta', id: '1', delta: 'hi' },
          { type: 'finish', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } },
        ]),
      }),
    }
    expect(await collect(aiSdkModel(v2).stream({ prompt: 'Q' }))).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'usage', inputTokens: 3, outputTokens: 1 },
    ])
  })

  it('an error part fails the call with a ProviderError after what came before', async () => {
    const model = mockModel([
      { type: 'text-delta', id: 't', delta: 'partial' },
      { type: 'error', error: new APICallError({ message: 'overloaded', url: 'http://x', requestBodyValues: {}, statusCode: 529, isRetryable: true }) },
    ])
    const seen: LLMChunk[] = []
    const failure = await (async () => {
      for await (const chunk of aiSdkModel(model).stream({ prompt: 'Q' })) seen.push(chunk)
    })().catch((e: unknown) => e)
    expect(seen).toEqual([{ type: 'text', text: 'partial' }])
    // Data was already delivered: the failure is final, not retried.
    expect(failure).toMatchObject({ name: 'ProviderError', code: 'http', status: 529, retryable: false, provider: 'mock-provider' })
    expect(model.doStreamCalls).toHaveLength(1)
  })

  it('retries a retryable failure before the first token, and reports it', async () => {
    let calls = 0
    const model = new MockLanguageModelV3({
      doStream: async () => {
        calls += 1
        if (calls === 1) throw new APICallError({ message: 'Too many requests', url: 'http://x', requestBodyValues: {}, statusCode: 429, isRetryable: true })
        return { stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([{ type: 'text-delta', id: 't', delta: 'ok' }]) }
      },
    })
    const retries: RetryInfo[] = []
    const chunks = await collect(aiSdkModel(model, { backoff: { initialMs: 1, maxMs: 1 } }).stream({ prompt: 'Q', onRetry: (info) => retries.push(info) }))
    expect(chunks).toEqual([{ type: 'text', text: 'ok' }])
    expect(retries).toMatchObject([{ attempt: 1, status: 429, reason: expect.stringContaining('Too many requests') }])
  })

  it('an unauthorized call fails at once with an auth error', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => {
        throw new APICallError({ message: 'Invalid API key', url: 'http://x', requestBodyValues: {}, statusCode: 401, isRetryable: false })
      },
    })
    await expect(collect(aiSdkModel(model).stream({ prompt: 'Q' }))).rejects.toMatchObject({ code: 'auth', status: 401 })
  })

  it('abort stops the stream mid-answer, and leaving early cancels it', async () => {
    let cancelled = 0
    const model = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'first' })
            abortSignal?.addEventListener('abort', () => controller.error(abortSignal.reason))
          },
          cancel() {
            cancelled += 1
          },
        }),
      }),
    })
    const llm = aiSdkModel(model)
    const controller = new AbortController()
    const seen: string[] = []
    const aborted = (async () => {
      for await (const chunk of llm.stream({ prompt: 'Q', signal: controller.signal })) {
        if (chunk.type === 'text') seen.push(chunk.text)
        controller.abort()
      }
    })()
    await expect(aborted).rejects.toMatchObject({ code: 'aborted' })
    expect(seen).toEqual(['first'])

    for await (const _chunk of llm.stream({ prompt: 'Q' })) break
    expect(cancelled).toBe(1)
  })

  it('refuses what is not a language model object', () => {
    expect(() => aiSdkModel('openai/gpt-4o' as unknown as AiSdkLanguageModel)).toThrow(/doStream/)
    expect(() => aiSdkModel({ specificationVersion: 'v1', provider: 'p', modelId: 'm', doStream: async () => ({ stream: new ReadableStream() }) })).toThrow(
      /v2 and v3/,
    )
  })
})

describe('aiSdkModel with @ai-sdk/openai-compatible against a loopback server', () => {
  const ANSWER = 'The sky looks blue because air scatters blue light most [1].'
  let backend: FakeBackend
  const bodies: Record<string, unknown>[] = []

  beforeAll(async () => {
    backend = await startFakeBackend({
      reply: (turn) => {
        if (roleOf(turn.system) === 'scratchpad planner')
          return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: why is the sky blue' : 'Action: Answer'
        if (roleOf(turn.system) === 'scratchpad synthesizer') return 'Air scatters blue light most (https://example.org/rayleigh).'
        if (roleOf(turn.system) === 'scratchpad finalizer') return ANSWER
        return '{"ok": true}'
      },
      results: () => [{ title: 'Rayleigh scattering', url: 'https://example.org/rayleigh', snippet: 'Blue light is scattered more.' }],
    })
  })
  afterAll(() => backend.close())

  const provider = (supportsStructuredOutputs = false) =>
    createOpenAICompatible({
      name: 'loopback',
      supportsStructuredOutputs,
      baseURL: `${backend.url}/v1`,
      includeUsage: true,
      // Records each request body on its way to the loopback server.
      fetch: async (input, init) => {
        bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>)
        return fetch(input, init)
      },
    })

  it('a whole research run through the real provider package', async () => {
    const agent = createAgent({ llm: aiSdkModel(provider().chatModel('fake-model')), search: searxng({ baseURL: backend.url }), strategy: 'scratchpad' })
    const events = []
    for await (const event of agent.research('Why is the sky blue?')) events.push(event)
    assertEventInvariants(events)
    const end = events.at(-1)
    expect(end).toMatchObject({ type: 'run-end', reason: 'answered', answer: ANSWER })
    // Streamed: the answer arrived as several tokens.
    expect(events.filter((e) => e.type === 'answer-token').length).toBeGreaterThan(3)
    // Usage from the stream's last chunk counted: the fake reports 40 prompt tokens per call.
    expect(end?.type === 'run-end' && end.cost.inputTokens).toBe(40 * (end?.type === 'run-end' ? end.cost.llmCalls : 0))
    expect(backend.searches).toContain('why is the sky blue')
  })

  it('puts a schema in the request as response_format json_schema (json_object where the provider has no structured outputs)', async () => {
    const llm = aiSdkModel(provider(true).chatModel('fake-model'))
    bodies.length = 0
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }
    const text = (await collect(llm.stream({ system: 'Reply in JSON.', prompt: 'ok?', json: schema })))
      .flatMap((c) => (c.type === 'text' ? [c.text] : []))
      .join('')
    expect(JSON.parse(text)).toEqual({ ok: true })
    expect(bodies[0]).toMatchObject({
      model: 'fake-model',
      stream: true,
      messages: [
        { role: 'system', content: 'Reply in JSON.' },
        { role: 'user', content: 'ok?' },
      ],
      response_format: { type: 'json_schema', json_schema: { schema } },
    })
    await collect(aiSdkModel(provider(false).chatModel('fake-model')).stream({ prompt: 'ok?', json: schema }))
    expect(bodies[1]?.response_format).toEqual({ type: 'json_object' })
  })
})

describe('types', () => {
  it('takes AI SDK v3 models as they are, and gives an LLMProvider', () => {
    expectTypeOf<MockLanguageModelV3>().toExtend<AiSdkLanguageModel>()
    expectTypeOf<ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>>().toExtend<AiSdkLanguageModel>()
    expectTypeOf(aiSdkModel).parameters.toEqualTypeOf<[AiSdkLanguageModel, (AiSdkModelOptions | undefined)?]>()
    expectTypeOf(aiSdkModel).returns.toEqualTypeOf<LLMProvider>()
  })
})
