// `laconic-research/postgres`: a knowledge base's vector store in Postgres with pgvector, over `pg` or PGlite.
export { postgresVectorStore } from './postgres-vector-store.js'
export type { PostgresVectorStoreOptions } from './postgres-vector-store.js'
export type { PgPool, PgQueryable } from './pg-connection.js'
