import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { knowledgeBase, memoryVectorStore, modelReranker, type Reranker, rerankEndpoint, type VectorStore } from '../../src/kb/index.js'
import { scriptedLLM } from '../../src/testing/index.js'
import type { FetchedPage, SearchOptions } from '../../src/index.js'
import { loopbacks } from '../adapters/http/loopback.js'
import { fakeEmbedder, fakeVector } from './fake-embeddings.js'

type KnowledgeBaseWarning = Parameters<NonNullable<Parameters<typeof knowledgeBase>[0]['onWarning']>>[0]

type PageWarning = NonNullable<FetchedPage['warnings']>[number]
type ProviderUsage = Parameters<NonNullable<SearchOptions['onUsage']>>[0]

const serve = loopbacks()

type Hit = string | { id: string; score: number }

/**
 * The ids a knowledge base returns when its store's vector side ranks `byVector` and its word
 * side `byText` (a hit given as a bare id scores by its rank): the fused order, nothing reranked.
 */
async function fused(byVector: readonly Hit[], byText: readonly Hit[]): Promise<string[]> {
  const chunk = (id: string) => ({ id, documentId: id, url: `doc:${id}`, title: id, headings: [], position: 0, text: id, vector: Float32Array.from([1]) })
  const scored = (hits: readonly Hit[], limit: number) =>
    hits
      .slice(0, limit)
      .map((hit, rank) => (typeof hit === 'string' ? { chunk: chunk(hit), score: 1 / (rank + 1) } : { chunk: chunk(hit.id), score: hit.score }))
  const store: VectorStore = {
    embedding: async () => ({ model: 'flat', dimensions: 1 }),
    putDocument: async () => {},
    removeDocument: async () => {},
    documents: async () => [],
    searchByVector: async (_vector, limit) => scored(byVector, limit),
    searchByText: async (_query, limit) => scored(byText, limit),
    chunksAround: async () => [],
    close: async () => {},
  }
  const embed = { model: 'flat', dimensions: 1, embed: async (texts: readonly string[]) => ({ vectors: texts.map(() => Float32Array.from([1])) }) }
  const found = await knowledgeBase({ store, embed }).search('q', { limit: 20 })
  return found.map((result) => result.url.slice('doc:'.length))
}

const WORDS = ['llama', 'alpaca', 'andes', 'wool', 'grass', 'river', 'stone', 'moon', 'tide', 'salt', 'fern', 'ash']

describe('hybrid retrieval', () => {
  it('fuses ranks: what both lists agree on comes first, ties in first-seen order', async () => {
    expect(await fused(['a', 'b', 'c'], ['b', 'c', 'd'])).toEqual(['b', 'c', 'a', 'd'])
    expect(await fused(['x'], ['y'])).toEqual(['x', 'y'])
    // Each list gives 1 / (60 + rank): a first hit alone (1/61) loses to an item both lists hold at
    // rank 61 (2/121), and keeps its place over one they hold at rank 62 (2/122, a tie it stands out in).
    const agreed = async (rank: number) => {
      const fillers = (side: string, count: number) => Array.from({ length: count }, (_, i) => `${side}${i}`)
      return fused(['solo', ...fillers('v', rank - 2), 'both'], [...fillers('t', rank - 1), 'both'])
    }
    const order = (found: string[]) => found.filter((id) => id === 'solo' || id === 'both')
    expect(order(await agreed(61))).toEqual(['both', 'solo'])
    expect(order(await agreed(62))).toEqual(['solo', 'both'])
  })

  it('breaks a tie of fused ranks by how far each item stands out in its own list, not by which list came first', async () => {
    const vector = [
      { id: 'noise', score: 0.31 },
      { id: 'other', score: 0.3 },
      { id: 'more', score: 0.3 },
    ]
    const words = [{ id: 'exact', score: 7.2 }]
    expect(await fused(vector, words)).toEqual(['exact', 'noise', 'other', 'more'])
    expect(await fused(words, vector)).toEqual(['exact', 'noise', 'other', 'more'])
    // A word hit that barely stands out loses the tie to a vector hit that clearly does.
    const clearVector = [
      { id: 'near', score: 0.9 },
      { id: 'far', score: 0.1 },
      { id: 'farther', score: 0.1 },
    ]
    const flatWords = [
      { id: 'w1', score: 2.01 },
      { id: 'w2', score: 2 },
      { id: 'w3', score: 2 },
    ]
    expect((await fused(flatWords, clearVector)).slice(0, 2)).toEqual(['near', 'w1'])
  })

  it('ranks first the one chunk holding a rare token, which only the word side finds', async () => {
    // The query points the same way as every note (the vector side's first hit is noise), and
    // only the manual holds "ZX81": the two sides' first hits tie at 1/61.
    const embed = {
      model: 'flat',
      dimensions: 2,
      async embed(texts: readonly string[]) {
        return { vectors: texts.map((text) => Float32Array.from(text.includes('ZX81 manual') ? [0, 1] : [1, (text.length % 7) / 1000])) }
      },
    }
    const kb = knowledgeBase({ store: memoryVectorStore(), embed })
    const notes = Array.from({ length: 30 }, (_, i) => ({ url: `note:${i}`, title: `Note ${i}`, text: `A note about gardening, number ${i}.` }))
    await kb.index([...notes, { url: 'manual', title: 'Manual', text: 'The ZX81 manual lists every key and what it does.' }])
    const results = await kb.search('ZX81', { limit: 3 })
    expect(results[0]?.url).toBe('manual')
  })

  it('returns every document that either retriever alone ranks first', async () => {
    const word = fc.constantFrom(...WORDS)
    const documents = fc.array(fc.array(word, { minLength: 1, maxLength: 10 }), { minLength: 2, maxLength: 8 })
    await fc.assert(
      fc.asyncProperty(documents, fc.array(word, { minLength: 1, maxLength: 3 }), fc.integer({ min: 2, max: 5 }), async (texts, queryWords, limit) => {
        const store = memoryVectorStore()
        const kb = knowledgeBase({ store, embed: fakeEmbedder() })
        await kb.index(texts.map((words, i) => ({ url: `doc:${i}`, title: `d${i}`, text: words.join(' ') })))
        const query = queryWords.join(' ')
        const firsts = [(await store.searchByVector(fakeVector(query), 1))[0]?.chunk.url, (await store.searchByText(query, 1))[0]?.chunk.url].filter(
          (url) => url !== undefined,
        )
        const found = (await kb.search(query, { limit })).map((hit) => hit.url)
        expect(found.length).toBeLessThanOrEqual(limit)
        for (const url of firsts) expect(found).toContain(url)
      }),
      { numRuns: 60 },
    )
  })

  it('returns nothing for an empty query and an empty store', async () => {
    const embed = fakeEmbedder()
    const kb = knowledgeBase({ store: memoryVectorStore(), embed })
    expect(await kb.search('  ')).toEqual([])
    expect(await kb.search('llama')).toEqual([])
    // An empty store has no model yet: the query is not embedded.
    expect(embed.calls).toBe(0)
  })
})

async function threeDocuments(reranker?: Reranker, onWarning?: (warning: KnowledgeBaseWarning) => void) {
  const kb = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder(), ...(reranker ? { reranker } : {}), ...(onWarning ? { onWarning } : {}) })
  await kb.index([
    { url: 'doc:a', title: 'A', text: 'llama llama llama wool' },
    { url: 'doc:b', title: 'B', text: 'llama wool' },
    { url: 'doc:c', title: 'C', text: 'llama stone river' },
  ])
  return kb
}

describe('reranking', () => {
  it('puts the candidates in the order the reranker gives, keeping those it left out after', async () => {
    const plain = (await (await threeDocuments()).search('llama wool')).map((hit) => hit.url)
    const lastFirst: Reranker = { rerank: async (_query, passages) => [{ index: passages.length - 1 }] }
    const reranked = (await (await threeDocuments(lastFirst)).search('llama wool')).map((hit) => hit.url)
    expect(reranked).toEqual([plain[2], plain[0], plain[1]])
  })

  it('keeps the fused order, with a warning, when the reranker fails or names nothing', async () => {
    const plain = (await (await threeDocuments()).search('llama wool')).map((hit) => hit.url)
    const warnings: KnowledgeBaseWarning[] = []
    const failing: Reranker = {
      rerank: async () => {
        throw new Error('rerank server down')
      },
    }
    expect((await (await threeDocuments(failing, (w) => warnings.push(w))).search('llama wool')).map((hit) => hit.url)).toEqual(plain)
    const silent: Reranker = { rerank: async () => [] }
    expect((await (await threeDocuments(silent, (w) => warnings.push(w))).search('llama wool')).map((hit) => hit.url)).toEqual(plain)
    expect(warnings.map((warning) => warning.code)).toEqual(['rerank-failed', 'rerank-unparsed'])
    expect(warnings[0]?.message).toContain('rerank server down')
  })

  it("tells the search's caller too, so a run warns of a failed reranker", async () => {
    const failing: Reranker = {
      rerank: async () => {
        throw new Error('rerank server down')
      },
    }
    const told: PageWarning[] = []
    await (await threeDocuments(failing)).search('llama wool', { onWarning: (warning) => told.push(warning) })
    expect(told).toEqual([{ code: 'rerank-failed', message: expect.stringContaining('rerank server down') }])
  })

  it('modelReranker asks the model for the passage numbers and reads any reply totally', async () => {
    const llm = scriptedLLM({ replies: ['<think>hmm</think>Most relevant: [3, 1, 3, 9]'] })
    expect(await modelReranker(llm).rerank('which is it', ['first', 'second', 'third'])).toEqual([{ index: 2 }, { index: 0 }])
    expect(llm.calls[0]?.prompt).toContain('Query: which is it\n\nPassages:\n[1] first\n\n[2] second\n\n[3] third')
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.integer({ min: 0, max: 30 }), async (reply, count) => {
        const passages = Array.from({ length: count }, (_, i) => `passage ${i}`)
        const ranked = await modelReranker(scriptedLLM({ replies: [reply] })).rerank('q', passages)
        for (const { index } of ranked) expect(index >= 0 && index < count).toBe(true)
        expect(new Set(ranked.map(({ index }) => index)).size).toBe(ranked.length)
      }),
    )
  })

  it('modelReranker reports its call to onUsage, and a call cut off after it streamed, estimated', async () => {
    const reported: ProviderUsage[] = []
    const onUsage = (usage: ProviderUsage) => reported.push(usage)
    const llm = scriptedLLM({
      model: 'ranker',
      replies: [
        { text: '[2, 1]', usage: { inputTokens: 120, outputTokens: 6 }, cost: 0.002 },
        { text: '[2,', error: new Error('connection reset') },
      ],
    })
    await modelReranker(llm).rerank('q', ['first', 'second'], { onUsage })
    await expect(modelReranker(llm).rerank('q', ['first', 'second'], { onUsage })).rejects.toThrow('connection reset')
    expect(reported).toMatchObject([
      { kind: 'model', role: 'reranker', model: 'ranker', inputTokens: 120, outputTokens: 6, cost: 0.002 },
      { kind: 'model', role: 'reranker', model: 'ranker', outputTokens: 1 },
    ])
    expect(reported[1]?.kind === 'model' && reported[1].inputTokens).toBeGreaterThan(10)
    expect(reported[1]).not.toHaveProperty('cost')
  })

  it('rerankEndpoint posts the common /rerank body and reads the results best first', async () => {
    const server = await serve((_req, res) => {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ results: [{ index: 0, relevance_score: 0.1 }, { index: 2, relevance_score: 0.9 }, { index: 'x' }] }))
    })
    const reranker = rerankEndpoint({ baseURL: `${server.url}/v1/`, model: 'bge-reranker', apiKey: 'sk-secret' })
    expect(await reranker.rerank('q', ['a', 'b', 'c'])).toEqual([
      { index: 2, score: 0.9 },
      { index: 0, score: 0.1 },
    ])
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v1/rerank' })
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-secret')
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ model: 'bge-reranker', query: 'q', documents: ['a', 'b', 'c'], top_n: 3 })
  })

  it('rerankEndpoint reads a bare array with `score`, and any other JSON as nothing', async () => {
    const answering = (body: unknown) =>
      rerankEndpoint({ baseURL: 'http://rerank.invalid', model: 'm', fetch: async () => Response.json(body) }).rerank('q', ['a', 'b', 'c'])
    expect(
      await answering([
        { index: 1, score: 2 },
        { index: 0, score: 3 },
      ]),
    ).toEqual([
      { index: 0, score: 3 },
      { index: 1, score: 2 },
    ])
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        expect(Array.isArray(await answering(body))).toBe(true)
      }),
    )
  })

  it('a rerank endpoint that fails leaves the fused order, with a warning naming it', async () => {
    const server = await serve((_req, res) => {
      res.statusCode = 400
      res.end('{"error":"bad model"}')
    })
    const warnings: KnowledgeBaseWarning[] = []
    const kb = await threeDocuments(rerankEndpoint({ baseURL: server.url, model: 'm', maxRetries: 0 }), (w) => warnings.push(w))
    expect(await kb.search('llama wool')).toHaveLength(3)
    expect(warnings).toMatchObject([{ code: 'rerank-failed', message: expect.stringContaining('rerank') }])
  })
})
