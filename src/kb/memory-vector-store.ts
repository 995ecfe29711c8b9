/**
 * `memoryVectorStore()`: the reference `VectorStore`, kept in memory. Vectors are compared by
 * cosine similarity over every chunk (exact, no index: fast enough for tens of thousands of
 * chunks), words are searched with MiniSearch (BM25). Good for tests, short-lived processes and
 * as the model the other stores are checked against; nothing survives the process.
 */
import type MiniSearch from 'minisearch'
import { LaconicError } from '../core/index.js'
import { checkEmbedding, type EmbeddingInfo } from './store-checks.js'
import type { Chunk, ScoredChunk, StoredDocument, VectorStore } from './vector-store.js'

interface IndexedText {
  id: string
  title: string
  headings: string
  text: string
}

interface Entry {
  document: StoredDocument
  chunks: Chunk[]
  /** Each chunk's vector length, computed once for the cosine. */
  norms: number[]
}

function norm(vector: Float32Array): number {
  let sum = 0
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number)
  return Math.sqrt(sum)
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number)
  return sum
}

/** Copies a chunk so the caller's later changes (to its vector too) never reach the store. */
const copyChunk = (chunk: Chunk): Chunk => ({ ...chunk, headings: [...chunk.headings], vector: Float32Array.from(chunk.vector) })

/** An in-memory `VectorStore`: cosine similarity over every vector, full text through MiniSearch. */
export function memoryVectorStore(): VectorStore {
  const entries = new Map<string, Entry>()
  const byChunkId = new Map<string, Chunk>()
  let embedding: EmbeddingInfo | undefined
  let closed = false
  let index: MiniSearch<IndexedText> | undefined

  const open = () => {
    if (closed) throw new LaconicError('memoryVectorStore: the store is closed', { code: 'config', hint: 'create a new store' })
  }
  const textIndex = async (): Promise<MiniSearch<IndexedText>> => {
    if (index) return index
    const { default: MiniSearchClass } = await import('minisearch')
    index ??= new MiniSearchClass<IndexedText>({
      fields: ['title', 'headings', 'text'],
      // No fuzzy matching: it is most of a search's time, and the vectors find what the words miss.
      searchOptions: { boost: { title: 2, headings: 1.5 }, prefix: (term) => term.length > 3 },
    })
    return index
  }

  return {
    async embedding() {
      open()
      return embedding && { ...embedding }
    },

    async putDocument(document, chunks, info) {
      open()
      checkEmbedding('memoryVectorStore', embedding, info, chunks)
      const text = await textIndex()
      const copies = chunks.map(copyChunk)
      const previous = entries.get(document.id)
      for (const chunk of previous?.chunks ?? []) {
        text.discard(chunk.id)
        byChunkId.delete(chunk.id)
      }
      for (const chunk of copies) {
        byChunkId.set(chunk.id, chunk)
        text.add({ id: chunk.id, title: chunk.title, headings: chunk.headings.join(' › '), text: chunk.text })
      }
      copies.sort((a, b) => a.position - b.position)
      entries.set(document.id, { document: { ...document }, chunks: copies, norms: copies.map((chunk) => norm(chunk.vector)) })
      embedding ??= { model: info.model, dimensions: info.dimensions }
    },

    async removeDocument(documentId) {
      open()
      const entry = entries.get(documentId)
      if (!entry) return
      const text = await textIndex()
      for (const chunk of entry.chunks) {
        text.discard(chunk.id)
        byChunkId.delete(chunk.id)
      }
      entries.delete(documentId)
      // An empty store takes any model again.
      if (entries.size === 0) embedding = undefined
    },

    async documents() {
      open()
      return [...entries.values()].map((entry) => ({ ...entry.document }))
    },

    async searchByVector(vector, limit) {
      open()
      const queryNorm = norm(vector)
      if (limit <= 0 || queryNorm === 0 || !embedding || vector.length !== embedding.dimensions) return []
      const scored: ScoredChunk[] = []
      for (const entry of entries.values()) {
        for (const [i, chunk] of entry.chunks.entries()) {
          const length = entry.norms[i] as number
          scored.push({ chunk, score: length === 0 ? 0 : dot(vector, chunk.vector) / (length * queryNorm) })
        }
      }
      return scored
        .sort((a, b) => b.score - a.score)
        .slice(0, limit)
        .map(({ chunk, score }) => ({ chunk: copyChunk(chunk), score }))
    },

    async searchByText(query, limit) {
      open()
      if (limit <= 0 || !query.trim()) return []
      const hits = (await textIndex()).search(query)
      const found: ScoredChunk[] = []
      for (const hit of hits) {
        if (found.length >= limit) break
        const chunk = byChunkId.get(hit.id as string)
        if (chunk) found.push({ chunk: copyChunk(chunk), score: hit.score })
      }
      return found
    },

    async chunksAround(documentId, from, to) {
      open()
      const chunks = entries.get(documentId)?.chunks ?? []
      return chunks.filter((chunk) => chunk.position >= from && chunk.position <= to).map(copyChunk)
    },

    async close() {
      closed = true
      entries.clear()
      byChunkId.clear()
      index = undefined
    },
  }
}
