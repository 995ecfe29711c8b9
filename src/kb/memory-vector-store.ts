/**
 * `memoryVectorStore()`: the reference `VectorStore`, kept in memory. Vectors are compared by
 * cosine similarity over every chunk (exact, no index: one pass over a matrix of unit vectors),
 * words by the shared lexical ranker (`core/lexical.ts`: BM25 over English terms, stop words
 * dropped, Porter stems), the same that ranks `localCorpus`. Each chunk has a row in both, written and
 * cleared as documents come and go, and a search sorts only the hits it returns. Good for tests,
 * short-lived processes and as the model the other stores are checked against; nothing survives
 * the process.
 */
import { LaconicError } from '../core/contracts/laconic-error.js'
import { checkEmbedding, type EmbeddingInfo } from './store-checks.js'
import type { LexicalIndex } from '../documents/lexical.js'
import { VectorMatrix } from './vector-matrix.js'
import type { Chunk, StoredDocument, VectorStore } from './vector-store.js'

interface Entry {
  document: StoredDocument
  /** In position order. */
  chunks: Chunk[]
  rows: number[]
}

/** What words are searched in: title, headings and text as one text, as the other stores index it. */
const searchText = (chunk: Chunk): string => [chunk.title, ...chunk.headings, chunk.text].join('\n')

/** Copies a chunk so the caller's later changes (to its vector too) never reach the store. */
const copyChunk = (chunk: Chunk): Chunk => ({ ...chunk, headings: [...chunk.headings], vector: Float32Array.from(chunk.vector) })

/** An in-memory `VectorStore`: cosine similarity over every vector, BM25 over English terms. */
export function memoryVectorStore(): VectorStore {
  const entries = new Map<string, Entry>()
  let embedding: EmbeddingInfo | undefined
  let closed = false
  // A chunk's row in the matrix and the text index; a removed chunk's row is taken by the next.
  let rows: (Chunk | undefined)[] = []
  let freeRows: number[] = []
  let matrix: VectorMatrix | undefined
  // Loaded with the first document, so importing the store costs nothing.
  let text: LexicalIndex | undefined

  const open = () => {
    if (closed) throw new LaconicError('memoryVectorStore: the store is closed', { code: 'config', hint: 'create a new store' })
  }
  const loadText = async (): Promise<LexicalIndex> => {
    if (text) return text
    const { lexicalIndex } = await import('../documents/lexical.js')
    text ??= lexicalIndex()
    return text
  }
  const release = (entry: Entry) => {
    for (const row of entry.rows) {
      text?.remove(row, searchText(rows[row] as Chunk))
      matrix?.clear(row)
      rows[row] = undefined
      freeRows.push(row)
    }
  }
  /** Forgets every row (the text index is empty by now): an empty store takes any model and vector length again. */
  const reset = () => {
    embedding = undefined
    rows = []
    freeRows = []
    matrix = undefined
  }

  return {
    async embedding() {
      open()
      return embedding && { ...embedding }
    },

    async putDocument(document, chunks, info) {
      open()
      checkEmbedding('memoryVectorStore', embedding, info, chunks)
      const index = await loadText()
      const previous = entries.get(document.id)
      if (previous) release(previous)
      embedding ??= { model: info.model, dimensions: info.dimensions }
      matrix ??= new VectorMatrix(info.dimensions)
      const copies = chunks.map(copyChunk).sort((a, b) => a.position - b.position)
      const entry: Entry = { document: { ...document }, chunks: copies, rows: [] }
      for (const chunk of copies) {
        const row = freeRows.pop() ?? rows.length
        rows[row] = chunk
        matrix.set(row, chunk.vector)
        index.add(row, searchText(chunk))
        entry.rows.push(row)
      }
      entries.set(document.id, entry)
    },

    async removeDocument(documentId) {
      open()
      const entry = entries.get(documentId)
      if (!entry) return
      release(entry)
      entries.delete(documentId)
      if (entries.size === 0) reset()
    },

    async documents() {
      open()
      return [...entries.values()].map((entry) => ({ ...entry.document }))
    },

    async searchByVector(vector, limit) {
      open()
      if (limit <= 0 || !matrix || vector.length !== matrix.dimensions) return []
      return matrix.nearest(vector, limit).map(({ row, score }) => ({ chunk: copyChunk(rows[row] as Chunk), score }))
    },

    async searchByText(query, limit) {
      open()
      if (limit <= 0 || !text) return []
      return text.search(query, limit).map(({ row, score }) => ({ chunk: copyChunk(rows[row] as Chunk), score }))
    },

    async chunksAround(documentId, from, to) {
      open()
      const chunks = entries.get(documentId)?.chunks ?? []
      return chunks.filter((chunk) => chunk.position >= from && chunk.position <= to).map(copyChunk)
    },

    async close() {
      closed = true
      entries.clear()
      reset()
      text = undefined
    },
  }
}
