// `laconic-research/kb`: the knowledge base. Documents indexed once into a vector store, retrieved
// by meaning and by words. `VectorStore` and `Reranker` are the contracts users implement; options
// are each factory's first parameter (`Parameters<typeof knowledgeBase>[0]`).
export { knowledgeBase, type KnowledgeBase } from './knowledge-base.js'
export type { Reranker } from './reranker.js'
export { modelReranker } from './model-reranker.js'
export { rerankEndpoint } from './rerank-endpoint.js'
export { memoryVectorStore } from './memory-vector-store.js'
export type { VectorStore } from './vector-store.js'
export { memoryStore } from './memory-store.js'
