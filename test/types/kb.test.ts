/**
 * Type-level tests of the `laconic-research/kb` sub-path: the vector-store contract and the
 * in-memory store.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { Chunk, memoryVectorStore, ScoredChunk, StoredDocument, VectorStore } from '../../src/kb/index.js'

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
  })
})
