/**
 * `aiSdkEmbeddings` over AI SDK embedding models: ai's own MockEmbeddingModelV3, and the real
 * OpenAI-compatible provider talking to a loopback server.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { APICallError, type EmbeddingModelV3 } from '@ai-sdk/provider'
import { MockEmbeddingModelV3 } from 'ai/test'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { aiSdkEmbeddings } from '../../../src/adapters/index.js'
import type { LLMRequest } from '../../../src/index.js'
import { loopbacks } from '../http/loopback.js'

type AiSdkEmbeddingModel = Parameters<typeof aiSdkEmbeddings>[0]

type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

const serve = loopbacks()
const vectorOf = (text: string) => [text.length, text.charCodeAt(0), 1]
const fast = { maxRetries: 2, backoff: { initialMs: 1, maxMs: 1 } }

describe('aiSdkEmbeddings', () => {
  it('takes any v3 embedding model by its shape', () => {
    expectTypeOf<EmbeddingModelV3>().toExtend<AiSdkEmbeddingModel>()
    expectTypeOf<MockEmbeddingModelV3>().toExtend<AiSdkEmbeddingModel>()
  })

  it('splits texts into batches the model accepts, one call at a time when it runs none in parallel, in input order', async () => {
    let inFlight = 0
    let most = 0
    const model = new MockEmbeddingModelV3({
      modelId: 'mock-embed',
      maxEmbeddingsPerCall: 2,
      supportsParallelCalls: false,
      doEmbed: async ({ values }) => {
        inFlight++
        most = Math.max(most, inFlight)
        await new Promise((resolve) => setImmediate(resolve))
        inFlight--
        return { embeddings: values.map(vectorOf), usage: { tokens: values.length * 2 }, warnings: [] }
      },
    })
    const texts = ['alpha', 'be', 'gamma', 'd', 'epsilon']
    const embed = aiSdkEmbeddings(model, { concurrency: 4 })
    const result = await embed.embed(texts)
    expect(model.doEmbedCalls.map((call) => call.values)).toEqual([['alpha', 'be'], ['gamma', 'd'], ['epsilon']])
    expect(most).toBe(1)
    expect(result.vectors).toEqual(texts.map((t) => Float32Array.from(vectorOf(t))))
    expect(result.inputTokens).toBe(10)
    expect(result.cost).toBeUndefined()
    expect(embed.model).toBe('mock-embed')
    expect(embed.dimensions).toBe(3)
  })

  it('passes the signal and provider options through, and retries what the AI SDK calls retryable', async () => {
    let calls = 0
    const model = new MockEmbeddingModelV3({
      doEmbed: async ({ values }) => {
        calls++
        if (calls === 1) throw new APICallError({ message: 'Too many requests', url: 'http://x', requestBodyValues: {}, statusCode: 429, isRetryable: true })
        return { embeddings: values.map(vectorOf), warnings: [] }
      },
    })
    const retries: RetryInfo[] = []
    const controller = new AbortController()
    const result = await aiSdkEmbeddings(model, { ...fast, providerOptions: { openai: { user: 'u1' } } }).embed(['a'], {
      signal: controller.signal,
      onRetry: (info) => retries.push(info),
    })
    expect(result.vectors).toEqual([Float32Array.from(vectorOf('a'))])
    expect(result.inputTokens).toBeUndefined()
    expect(retries).toMatchObject([{ attempt: 1, status: 429 }])
    expect(model.doEmbedCalls[1]?.providerOptions).toEqual({ openai: { user: 'u1' } })
    expect(model.doEmbedCalls[1]?.abortSignal?.aborted).toBe(false)
  })

  it('does not retry a failure the AI SDK calls final, and keeps its status', async () => {
    const model = new MockEmbeddingModelV3({
      doEmbed: async () => {
        throw new APICallError({ message: 'Invalid model', url: 'http://x', requestBodyValues: {}, statusCode: 400, isRetryable: false })
      },
    })
    await expect(aiSdkEmbeddings(model, fast).embed(['a'])).rejects.toMatchObject({ code: 'http', status: 400, message: 'mock-provider: Invalid model' })
    expect(model.doEmbedCalls).toHaveLength(1)
  })

  it('refuses a model that returns the wrong number of vectors', async () => {
    const model = new MockEmbeddingModelV3({ maxEmbeddingsPerCall: 10, doEmbed: async () => ({ embeddings: [[1, 2]], warnings: [] }) })
    await expect(aiSdkEmbeddings(model).embed(['a', 'b'])).rejects.toMatchObject({
      code: 'bad-response',
      message: expect.stringContaining('returned 1 vectors for 2 texts'),
    })
  })

  it('refuses what is not an embedding model, or one of an older specification', () => {
    expect(() => aiSdkEmbeddings({} as AiSdkEmbeddingModel)).toThrow('expects an AI SDK embedding model object (with doEmbed)')
    const v1 = { ...new MockEmbeddingModelV3(), specificationVersion: 'v1', doEmbed: async () => ({ embeddings: [] }) }
    expect(() => aiSdkEmbeddings(v1)).toThrow('specification v2 and v3, got v1')
  })

  it('embeds through the real OpenAI-compatible provider against a loopback server, priced from the table', async () => {
    const server = await serve((req, res) => {
      const { input } = JSON.parse(req.body) as { input: string[] }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          object: 'list',
          data: input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })),
          usage: { prompt_tokens: 7 },
        }),
      )
    })
    const provider = createOpenAICompatible({ name: 'compat', baseURL: `${server.url}/v1` })
    const result = await aiSdkEmbeddings(provider.embeddingModel('text-embedding-3-small')).embed(['sea', 'sky'])
    expect(server.requests[0]?.url).toBe('/v1/embeddings')
    expect(result).toEqual({ vectors: [Float32Array.from(vectorOf('sea')), Float32Array.from(vectorOf('sky'))], inputTokens: 7, cost: (7 * 0.02) / 1e6 })
  })
})
