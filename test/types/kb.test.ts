/**
 * Type-level tests of the `laconic-research/kb` sub-path: the knowledge base, its rerankers, the
 * vector-store contract and the in-memory store.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { EmbeddingProvider } from '../../src/index.js'
import type { FetchProvider, LLMProvider, SearchProvider, SearchOptions } from '../../src/index.js'
import type { KnowledgeBase, knowledgeBase, memoryVectorStore, modelReranker, Reranker, rerankEndpoint, VectorStore } from '../../src/kb/index.js'

type IndexOptions = NonNullable<Parameters<KnowledgeBase['index']>[1]>
type IndexProgress = Parameters<NonNullable<NonNullable<Parameters<KnowledgeBase['index']>[1]>['onProgress']>>[0]
type IndexReport = Awaited<ReturnType<KnowledgeBase['index']>>
type KnowledgeBaseWarning = Parameters<NonNullable<Parameters<typeof knowledgeBase>[0]['onWarning']>>[0]
type KnowledgeSource = Parameters<KnowledgeBase['index']>[0][number]
type RerankedPassage = Awaited<ReturnType<Reranker['rerank']>>[number]

type Chunk = Parameters<VectorStore['putDocument']>[1][number]
type ScoredChunk = Awaited<ReturnType<VectorStore['searchByVector']>>[number]
type StoredDocument = Parameters<VectorStore['putDocument']>[0]

type KnowledgeBaseOptions = NonNullable<Parameters<typeof knowledgeBase>[0]>
type ModelRerankerOptions = NonNullable<Parameters<typeof modelReranker>[1]>
type RerankEndpointOptions = NonNullable<Parameters<typeof rerankEndpoint>[0]>

type UsageReporter = NonNullable<SearchOptions['onUsage']>

describe('knowledgeBase', () => {
  it('takes a store and an embedder, and is a search and a fetch provider', () => {
    expectTypeOf<typeof knowledgeBase>().parameters.toEqualTypeOf<[options: KnowledgeBaseOptions]>()
    expectTypeOf<ReturnType<typeof knowledgeBase>>().toEqualTypeOf<KnowledgeBase>()
    expectTypeOf<KnowledgeBase>().toExtend<SearchProvider & FetchProvider>()
    expectTypeOf<KnowledgeBaseOptions['store']>().toEqualTypeOf<VectorStore>()
    expectTypeOf<KnowledgeBaseOptions['embed']>().toEqualTypeOf<EmbeddingProvider>()
    expectTypeOf<KnowledgeBaseOptions['reranker']>().toEqualTypeOf<Reranker | undefined>()
    expectTypeOf<KnowledgeBaseOptions['onWarning']>().toEqualTypeOf<((warning: KnowledgeBaseWarning) => void) | undefined>()
    expectTypeOf<KnowledgeBaseWarning['code']>().toEqualTypeOf<'rerank-failed' | 'rerank-unparsed'>()
  })

  it('indexes paths, URLs and texts, telling progress and reporting what it did', () => {
    expectTypeOf<KnowledgeBase['index']>().parameters.toEqualTypeOf<[sources: readonly KnowledgeSource[], options?: IndexOptions]>()
    expectTypeOf<KnowledgeBase['index']>().returns.toEqualTypeOf<Promise<IndexReport>>()
    expectTypeOf<'./docs'>().toExtend<KnowledgeSource>()
    expectTypeOf<{ url: string; text: string }>().toExtend<KnowledgeSource>()
    expectTypeOf<IndexOptions['onProgress']>().toEqualTypeOf<((progress: IndexProgress) => void) | undefined>()
    expectTypeOf<IndexProgress['chunks']>().toEqualTypeOf<number>()
    expectTypeOf<IndexReport['skipped']>().toEqualTypeOf<{ url: string; code: string; message: string }[]>()
    expectTypeOf<KnowledgeBase['remove']>().returns.toEqualTypeOf<Promise<boolean>>()
    expectTypeOf<KnowledgeBase['documents']>().returns.toEqualTypeOf<Promise<StoredDocument[]>>()
  })
})

describe('rerankers', () => {
  it('a model or a /rerank endpoint, returning passages by index', () => {
    expectTypeOf<typeof modelReranker>().parameters.toEqualTypeOf<[llm: LLMProvider, options?: ModelRerankerOptions]>()
    expectTypeOf<typeof rerankEndpoint>().parameters.toEqualTypeOf<[options: RerankEndpointOptions]>()
    expectTypeOf<ReturnType<typeof rerankEndpoint>>().toEqualTypeOf<Reranker>()
    expectTypeOf<Reranker['rerank']>().returns.toEqualTypeOf<Promise<RerankedPassage[]>>()
    expectTypeOf<Reranker['rerank']>().parameters.toEqualTypeOf<
      [query: string, passages: readonly string[], options?: { signal?: AbortSignal; onUsage?: UsageReporter }]
    >()
    expectTypeOf<RerankEndpointOptions['baseURL']>().toEqualTypeOf<string>()
  })
})

describe('vector stores', () => {
  it('memoryVectorStore takes nothing and keeps the VectorStore contract', () => {
    expectTypeOf<typeof memoryVectorStore>().parameters.toEqualTypeOf<[]>()
    expectTypeOf<ReturnType<typeof memoryVectorStore>>().toEqualTypeOf<VectorStore>()
    expectTypeOf<VectorStore['putDocument']>().parameters.toEqualTypeOf<
      [document: StoredDocument, chunks: readonly Chunk[], embedding: { model: string; dimensions: number }]
    >()
    expectTypeOf<VectorStore['searchByVector']>().returns.toEqualTypeOf<Promise<ScoredChunk[]>>()
    expectTypeOf<Chunk['vector']>().toEqualTypeOf<Float32Array>()
    expectTypeOf<StoredDocument['hash']>().toEqualTypeOf<string>()
    // Optional: a store without it (the memory store) still is one.
    expectTypeOf<VectorStore['optimize']>().toEqualTypeOf<(() => Promise<void>) | undefined>()
  })
})
