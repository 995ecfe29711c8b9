// `laconic-research/kb`: the knowledge base. Documents indexed once into a vector store, retrieved by meaning and by words.
export { memoryVectorStore } from './memory-vector-store.js'
export type { Chunk, ScoredChunk, StoredDocument, VectorStore } from './vector-store.js'
export { memoryStore, type MemoryStoreOptions } from './memory-store.js'
