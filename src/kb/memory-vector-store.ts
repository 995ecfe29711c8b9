/**
 * `memoryVectorStore()`: the reference `VectorStore`, kept in memory. Vectors are compared by
 * cosine similarity over every chunk (exact, no index: one pass over a matrix of unit vectors,
 * rebuilt after writes, is a few milliseconds at 10,000 chunks), words are searched with
 * MiniSearch (BM25). Good for tests, short-lived processes and
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
}

/** Every chunk's vector scaled to length 1, row after row: a cosine is then one dot product. */
interface Matrix {
  rows: Chunk[]
  values: Float32Array
}

function norm(vector: Float32Array): number {
  let sum = 0
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number)
  return Math.sqrt(sum)
}

function buildMatrix(entries: Iterable<Entry>, dimensions: number): Matrix {
  const rows = [...entries].flatMap((entry) => entry.chunks)
  const values = new Float32Array(rows.length * dimensions)
  for (const [row, chunk] of rows.entries()) {
    const length = norm(chunk.vector)
    if (length === 0) continue
    for (let i = 0; i < dimensions; i++) values[row * dimensions + i] = (chunk.vector[i] as number) / length
  }
  return { rows, values }
}

/** The `limit` best (row, score) pairs, best first: one pass keeping a small sorted list. */
function topScores(scores: Float32Array, limit: number): { row: number; score: number }[] {
  const best: { row: number; score: number }[] = []
  for (let row = 0; row < scores.length; row++) {
    const score = scores[row] as number
    if (best.length === limit && score <= (best[limit - 1] as { score: number }).score) continue
    let at = best.length
    while (at > 0 && (best[at - 1] as { score: number }).score < score) at--
    best.splice(at, 0, { row, score })
    if (best.length > limit) best.pop()
  }
  return best
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
  // Rebuilt on the first vector search after a write.
  let matrix: Matrix | undefined

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
      entries.set(document.id, { document: { ...document }, chunks: copies })
      matrix = undefined
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
      matrix = undefined
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
      const dimensions = embedding.dimensions
      matrix ??= buildMatrix(entries.values(), dimensions)
      const { rows, values } = matrix
      const scores = new Float32Array(rows.length)
      for (let row = 0; row < rows.length; row++) {
        let sum = 0
        const offset = row * dimensions
        for (let i = 0; i < dimensions; i++) sum += (values[offset + i] as number) * (vector[i] as number)
        scores[row] = sum / queryNorm
      }
      return topScores(scores, limit).map(({ row, score }) => ({ chunk: copyChunk(rows[row] as Chunk), score }))
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
      matrix = undefined
    },
  }
}
