/**
 * The rows a table-backed store (LanceDB, Postgres) keeps: one per document, one per chunk,
 * in snake_case columns, and the conversions to and from the `VectorStore` contract's shapes.
 * Only how a vector is stored differs between stores, so that column is each store's own.
 */
import type { EmbeddingInfo } from './store-checks.js'
import type { Chunk, StoredDocument } from './vector-store.js'

export interface DocumentRow {
  id: string
  url: string
  title: string
  hash: string
  chunks: number
  indexed_at: string
  model: string
  dimensions: number
}

/** A chunk's columns apart from its vector. */
export interface ChunkFields {
  id: string
  document_id: string
  url: string
  title: string
  /** The heading path as a JSON array. */
  headings: string
  position: number
  text: string
}

export function documentRow(document: StoredDocument, info: EmbeddingInfo): DocumentRow {
  return {
    id: document.id,
    url: document.url,
    title: document.title,
    hash: document.hash,
    chunks: document.chunks,
    indexed_at: document.indexedAt,
    model: info.model,
    dimensions: info.dimensions,
  }
}

export function storedDocument(row: DocumentRow): StoredDocument {
  return { id: row.id, url: row.url, title: row.title, hash: row.hash, chunks: row.chunks, indexedAt: row.indexed_at }
}

export function chunkFields(chunk: Chunk): ChunkFields {
  return {
    id: chunk.id,
    document_id: chunk.documentId,
    url: chunk.url,
    title: chunk.title,
    headings: JSON.stringify(chunk.headings),
    position: chunk.position,
    text: chunk.text,
  }
}

export function chunkOfRow(row: ChunkFields, vector: Float32Array): Chunk {
  return {
    id: row.id,
    documentId: row.document_id,
    url: row.url,
    title: row.title,
    headings: JSON.parse(row.headings) as string[],
    position: row.position,
    text: row.text,
    vector,
  }
}
