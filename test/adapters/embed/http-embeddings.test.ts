/**
 * `openAIEmbeddings` and `ollamaEmbeddings` against loopback servers that answer with the wire
 * bodies their APIs document: the exact request, batches in order under the concurrency bound,
 * replies cut anywhere, retries, bounds, cancellation and cost.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ollamaEmbeddings, openAIEmbeddings } from '../../../src/adapters/index.js'
import { LaconicError, ProviderError, type LLMRequest } from '../../../src/index.js'
import { cutAt, loopbacks, writePieces } from '../http/loopback.js'

type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

const serve = loopbacks()
const fast = { maxRetries: 2, backoff: { initialMs: 1, maxMs: 1 } }

/** A deterministic vector per text: its length and its first character code, then ones. */
const vectorOf = (text: string, dimensions = 4) => [text.length, text.charCodeAt(0) || 0, ...Array.from({ length: dimensions - 2 }, () => 1)]

/** OpenAI's documented reply for `input`, as the API sends it. */
function openAIReply(input: string[], dimensions = 4, order: 'in-order' | 'reversed' = 'in-order') {
  const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, dimensions) }))
  return {
    object: 'list',
    data: order === 'reversed' ? data.reverse() : data,
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 },
  }
}

const json = (res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

const inputOf = (body: string) => (JSON.parse(body) as { input: string[] }).input

describe('openAIEmbeddings', () => {
  it('posts the documented body to /embeddings and reads data[].embedding and usage.prompt_tokens', async () => {
    const server = await serve((req, res) => json(res, 200, openAIReply(inputOf(req.body))))
    const embed = openAIEmbeddings({ baseURL: `${server.url}/v1/`, apiKey: 'sk-test-1234', model: 'text-embedding-3-small' })
    const result = await embed.embed(['tides', 'moon'])
    expect(server.requests).toHaveLength(1)
    const [request] = server.requests
    expect(request?.method).toBe('POST')
    expect(request?.url).toBe('/v1/embeddings')
    expect(request?.headers.authorization).toBe('Bearer sk-test-1234')
    expect(request?.headers['content-type']).toBe('application/json')
    expect(JSON.parse(request?.body ?? '')).toEqual({ model: 'text-embedding-3-small', input: ['tides', 'moon'], encoding_format: 'float' })
    expect(result.vectors).toEqual([Float32Array.from(vectorOf('tides')), Float32Array.from(vectorOf('moon'))])
    expect(result.vectors[0]).toBeInstanceOf(Float32Array)
    expect(result.inputTokens).toBe(6)
    expect(embed.dimensions).toBe(4)
  })

  it('splits texts into batches, keeps at most `concurrency` requests in flight, and returns the vectors in input order', async () => {
    let inFlight = 0
    let most = 0
    const server = await serve(async (req, res) => {
      inFlight++
      most = Math.max(most, inFlight)
      await new Promise((resolve) => setImmediate(resolve))
      inFlight--
      // `data` out of order: the API promises `index`, not the order of the list.
      json(res, 200, openAIReply(inputOf(req.body), 4, 'reversed'))
    })
    const texts = Array.from({ length: 11 }, (_, i) => `text ${String.fromCharCode(97 + i)}`)
    const embed = openAIEmbeddings({ baseURL: server.url, model: 'm', batchSize: 3, concurrency: 2 })
    const result = await embed.embed(texts)
    expect(server.requests.map((r) => inputOf(r.body).length).sort()).toEqual([2, 3, 3, 3])
    expect(most).toBeLessThanOrEqual(2)
    expect(result.vectors.map((v) => v[1])).toEqual(texts.map((t) => t.charCodeAt(0)))
    expect(result.vectors.map((v) => v[0])).toEqual(texts.map((t) => t.length))
    expect(result.inputTokens).toBe(33)
  })

  it('reads a reply cut at any byte, multi-byte characters and all', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ ...openAIReply(['ü', 'ß'], 6), model: 'modèle-é' }))
    let pieces: Uint8Array[] = []
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      await writePieces(res, pieces)
      res.end()
    })
    const embed = openAIEmbeddings({ baseURL: server.url, model: 'm' })
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 12 }), async (offsets) => {
        pieces = cutAt(body, offsets)
        const result = await embed.embed(['ü', 'ß'])
        expect(result.vectors).toEqual([Float32Array.from(vectorOf('ü', 6)), Float32Array.from(vectorOf('ß', 6))])
      }),
      { numRuns: 25 },
    )
  })

  it('asks for and reads base64 vectors (little-endian float32)', async () => {
    const vectors = [
      [0.5, -1.25, 3e-8],
      [1, 2, 3],
    ]
    const base64 = (vector: number[]) => Buffer.from(Float32Array.from(vector).buffer).toString('base64')
    const server = await serve((_req, res) =>
      json(res, 200, { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: base64(v) })), usage: { prompt_tokens: 2 } }),
    )
    const result = await openAIEmbeddings({ baseURL: server.url, model: 'm', encodingFormat: 'base64' }).embed(['a', 'b'])
    expect(JSON.parse(server.requests[0]?.body ?? '').encoding_format).toBe('base64')
    expect(result.vectors).toEqual(vectors.map((v) => Float32Array.from(v)))
  })

  it('sends `dimensions` and refuses a reply of another length, naming both', async () => {
    const server = await serve((req, res) => json(res, 200, openAIReply(inputOf(req.body), 8)))
    const embed = openAIEmbeddings({ baseURL: server.url, model: 'text-embedding-3-large', dimensions: 4 })
    const error = await embed.embed(['a']).catch((e: unknown) => e)
    expect(JSON.parse(server.requests[0]?.body ?? '').dimensions).toBe(4)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ code: 'bad-response', provider: 'openai' })
    expect((error as Error).message).toContain('8-dimensional vector where 4 dimensions were expected')
  })

  it('refuses a model whose vectors change length from one call to the next', async () => {
    let dimensions = 4
    const server = await serve((req, res) => json(res, 200, openAIReply(inputOf(req.body), dimensions)))
    const embed = openAIEmbeddings({ baseURL: server.url, model: 'm' })
    await embed.embed(['a'])
    dimensions = 5
    await expect(embed.embed(['b'])).rejects.toMatchObject({ code: 'bad-response', message: expect.stringContaining('5-dimensional') })
  })

  it('refuses a reply with too few vectors, or one that is not a vector', async () => {
    const replies = [
      { data: [{ index: 0, embedding: [1, 2] }], usage: { prompt_tokens: 1 } },
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1, 'x'] },
        ],
      },
      { error: { message: 'no' } },
    ]
    let n = 0
    const server = await serve((_req, res) => json(res, 200, replies[n++]))
    const embed = openAIEmbeddings({ baseURL: server.url, model: 'm' })
    await expect(embed.embed(['a', 'b'])).rejects.toMatchObject({ code: 'bad-response', message: expect.stringContaining('returned 1 vectors for 2 texts') })
    await expect(embed.embed(['a', 'b'])).rejects.toMatchObject({ message: expect.stringContaining('no usable vector for text 1') })
    await expect(embed.embed(['a', 'b'])).rejects.toMatchObject({ message: expect.stringContaining('returned 0 vectors for 2 texts') })
  })

  it('retries a 429 and a 503, reporting each retry, then succeeds', async () => {
    const server = await serve((req, res, attempt) => {
      if (attempt === 1) return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after-ms': '1' })
      if (attempt === 2) return json(res, 503, { error: { message: 'overloaded' } })
      json(res, 200, openAIReply(inputOf(req.body)))
    })
    const retries: RetryInfo[] = []
    const result = await openAIEmbeddings({ baseURL: server.url, model: 'm', ...fast }).embed(['a'], { onRetry: (info) => retries.push(info) })
    expect(result.vectors).toHaveLength(1)
    expect(retries.map((r) => r.status)).toEqual([429, 503])
  })

  it('does not retry a 400, and never shows the key', async () => {
    const server = await serve((_req, res) => json(res, 400, { error: { message: 'bad key sk-secret-9876 and input' } }))
    const error = await openAIEmbeddings({ baseURL: server.url, apiKey: 'sk-secret-9876', model: 'm', ...fast })
      .embed(['a'])
      .catch((e: unknown) => e)
    expect(server.requests).toHaveLength(1)
    expect(error).toMatchObject({ code: 'http', status: 400 })
    expect(String((error as Error).message)).not.toContain('sk-secret-9876')
  })

  it('refuses a reply larger than its batch can need instead of reading it all', async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      await writePieces(res, ['{"data":[', ...Array.from({ length: 40 }, () => ' '.repeat(10_000))])
      res.end(']}')
    })
    const error = await openAIEmbeddings({ baseURL: server.url, model: 'm' })
      .embed(['a'])
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'bad-response', message: expect.stringContaining('larger than 327680 bytes') })
  })

  it('stops every request when the signal aborts, and rejects as aborted', async () => {
    let arrived!: () => void
    const bothArrived = new Promise<void>((resolve) => (arrived = resolve))
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"data":')
      if (server.requests.length === 2) arrived()
      // never ends: only the abort finishes these
    })
    const controller = new AbortController()
    const pending = openAIEmbeddings({ baseURL: server.url, model: 'm', batchSize: 1 }).embed(['a', 'b', 'c'], { signal: controller.signal })
    await bothArrived
    controller.abort(new Error('user stop'))
    await expect(pending).rejects.toMatchObject({ code: 'aborted', message: 'user stop' })
    await server.closedEarly
    expect(server.requests).toHaveLength(2)
  })

  it('prices tokens from the built-in table, from `pricing`, as free on loopback, and as unknown elsewhere', async () => {
    const server = await serve((req, res) => json(res, 200, openAIReply(inputOf(req.body))))
    const path = (url: string | URL | Request) => new URL(String(url)).pathname
    const remote = {
      baseURL: 'https://api.example.com/v1',
      fetch: (url: string | URL | Request, init?: RequestInit) => fetch(`${server.url}${path(url)}`, init),
    }
    const texts = ['a', 'b']
    expect((await openAIEmbeddings({ ...remote, model: 'text-embedding-3-small' }).embed(texts)).cost).toBeCloseTo((6 * 0.02) / 1e6, 15)
    expect((await openAIEmbeddings({ ...remote, model: 'openai/text-embedding-3-large' }).embed(texts)).cost).toBeCloseTo((6 * 0.13) / 1e6, 15)
    const priced = openAIEmbeddings({ ...remote, model: 'e5', pricing: { e5: { inputPerMillion: 1, outputPerMillion: 0 } } })
    expect((await priced.embed(texts)).cost).toBeCloseTo(6 / 1e6, 15)
    expect((await openAIEmbeddings({ ...remote, model: 'e5' }).embed(texts)).cost).toBeUndefined()
    expect((await openAIEmbeddings({ baseURL: server.url, model: 'e5' }).embed(texts)).cost).toBe(0)
  })

  it('returns nothing for no texts without a request, and refuses a single string with the fix', async () => {
    const server = await serve((_req, res) => json(res, 500, {}))
    const embed = openAIEmbeddings({ baseURL: server.url, model: 'm' })
    expect(await embed.embed([])).toEqual({ vectors: [], inputTokens: 0, cost: 0 })
    expect(server.requests).toHaveLength(0)
    const error = await embed.embed('one text' as unknown as string[]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LaconicError)
    expect((error as Error).message).toContain('did you mean `embed([text])`?')
  })

  it('refuses options that cannot work when it is made', () => {
    expect(() => openAIEmbeddings({ model: '' })).toThrow('`model` is required')
    expect(() => openAIEmbeddings({ model: 'm', batchSize: 0 })).toThrow('`batchSize` must be a positive integer, got 0')
    expect(() => openAIEmbeddings({ model: 'm', dimensions: 1.5 })).toThrow('`dimensions` must be a positive integer')
  })
})

describe('ollamaEmbeddings', () => {
  it('posts { model, input } to /api/embed and reads embeddings and prompt_eval_count', async () => {
    const server = await serve((req, res) => {
      const input = inputOf(req.body)
      json(res, 200, {
        model: 'nomic-embed-text',
        embeddings: input.map((t) => vectorOf(t, 3)),
        total_duration: 14143917,
        load_duration: 1019500,
        prompt_eval_count: 8,
      })
    })
    const embed = ollamaEmbeddings({ host: `${server.url}/`, model: 'nomic-embed-text', keepAlive: '10m' })
    const result = await embed.embed(['Why is the sky blue?', 'Why is the grass green?'])
    expect(server.requests[0]?.url).toBe('/api/embed')
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      model: 'nomic-embed-text',
      input: ['Why is the sky blue?', 'Why is the grass green?'],
      keep_alive: '10m',
    })
    expect(result).toEqual({
      vectors: [Float32Array.from(vectorOf('Why is the sky blue?', 3)), Float32Array.from(vectorOf('Why is the grass green?', 3))],
      inputTokens: 8,
      cost: 0,
    })
  })

  it('batches, adds the counts of every batch, and reports none when one batch had none', async () => {
    let counted = true
    const server = await serve((req, res) => {
      const input = inputOf(req.body)
      json(res, 200, { embeddings: input.map((t) => vectorOf(t, 3)), ...(counted || input.length > 1 ? { prompt_eval_count: input.length } : {}) })
    })
    const embed = ollamaEmbeddings({ host: server.url, model: 'm', batchSize: 2 })
    expect((await embed.embed(['a', 'b', 'c'])).inputTokens).toBe(3)
    counted = false
    expect((await embed.embed(['a', 'b', 'c'])).inputTokens).toBeUndefined()
  })

  it('says how to get a model it does not have', async () => {
    const server = await serve((_req, res) => json(res, 404, { error: 'model "nomic-embed-text" not found, try pulling it first' }))
    await expect(ollamaEmbeddings({ host: server.url, model: 'nomic-embed-text' }).embed(['a'])).rejects.toMatchObject({
      code: 'not-found',
      message: expect.stringContaining('ollama pull nomic-embed-text'),
    })
  })
})
