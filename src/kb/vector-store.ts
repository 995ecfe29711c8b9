/**
 * The contract a knowledge base's storage keeps: chunks with their vectors, searched by meaning
 * and by words. LanceDB (`laconic-research/lancedb`) and Postgres with pgvector
 * (`laconic-research/postgres`) implement it; so can any other store.
 */

/** One stored piece of a document, with what retrieval needs around it. */
export interface Chunk {
  /** Stable: `${documentId}#${position}`. */
  id: string
  documentId: string
  /** Where it was read: a file path as a `file://` URL, or the page's URL (with `#page=N` for a PDF page). */
  url: string
  /** The document's title. */
  title: string
  /** The headings above the chunk, outermost first. */
  headings: string[]
  /** Its place in the document, from 0: neighbours differ by one. */
  position: number
  text: string
  /** Its embedding. Search compares directions only, so a store may give it back scaled to length 1. */
  vector: Float32Array
}

/** A document as the store knows it: enough to decide whether it changed. */
export interface StoredDocument {
  id: string
  url: string
  title: string
  /** A hash of the document's content: the same hash means nothing to re-embed. */
  hash: string
  chunks: number
  indexedAt: string
}

/** A chunk a search found, with the store's score (higher is closer; comparable only within one list). */
export interface ScoredChunk {
  chunk: Chunk
  score: number
}

/** Where a knowledge base keeps its chunks and vectors; `memoryVectorStore()` is the reference implementation. */
export interface VectorStore {
  /** The embedding model and dimensions the store was built with (undefined while empty). */
  embedding(): Promise<{ model: string; dimensions: number } | undefined>
  /** Replaces a document's chunks and record at once (a document is never half indexed). */
  putDocument(document: StoredDocument, chunks: readonly Chunk[], embedding: { model: string; dimensions: number }): Promise<void>
  removeDocument(documentId: string): Promise<void>
  documents(): Promise<StoredDocument[]>
  /** Nearest chunks to the vector. */
  searchByVector(vector: Float32Array, limit: number): Promise<ScoredChunk[]>
  /** Best full-text matches of the words. */
  searchByText(query: string, limit: number): Promise<ScoredChunk[]>
  /** The chunks of a document at positions [from, to], in order. */
  chunksAround(documentId: string, from: number, to: number): Promise<Chunk[]>
  /**
   * Optional: brings the store's files and indexes up to date with what was written, so that
   * searches read no leftover of the writes. `kb.index()` calls it once it has written
   * everything; `lanceVectorStore` compacts its tables there (a search otherwise reads every
   * small file of the last writes beside its indexes: about 1.8 times as slow).
   */
  optimize?(): Promise<void>
  close(): Promise<void>
}
