// `laconic-research/lancedb`: a knowledge base's vector store in a LanceDB folder (Node, with the optional @lancedb/lancedb).
export { lanceVectorStore } from './lance-vector-store.js'
export type { LanceVectorStoreOptions } from './lance-vector-store.js'
