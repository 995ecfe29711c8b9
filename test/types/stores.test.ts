/**
 * Type-level tests of the knowledge base's stores: `laconic-research/lancedb` and
 * `laconic-research/postgres`, whose connection is taken by shape (pg's Pool and Client, PGlite).
 */
import type { PGlite } from '@electric-sql/pglite'
import type { Client, Pool } from 'pg'
import { describe, expectTypeOf, it } from 'vitest'
import type { VectorStore } from '../../src/kb/index.js'
import { lanceVectorStore, type LanceVectorStoreOptions } from '../../src/lancedb/index.js'
import { postgresVectorStore, type PgPool, type PgQueryable, type PostgresVectorStoreOptions } from '../../src/postgres/index.js'

describe('lanceVectorStore', () => {
  it('takes a folder (and a table prefix) and is a VectorStore', () => {
    expectTypeOf(lanceVectorStore).parameter(0).toEqualTypeOf<LanceVectorStoreOptions>()
    expectTypeOf(lanceVectorStore).returns.toEqualTypeOf<VectorStore>()
    expectTypeOf<LanceVectorStoreOptions['path']>().toEqualTypeOf<string>()
    expectTypeOf<LanceVectorStoreOptions['table']>().toEqualTypeOf<string | undefined>()
  })
})

describe('postgresVectorStore', () => {
  it("takes pg's Pool as a pool, pg's Client and PGlite as a client, and is a VectorStore", () => {
    expectTypeOf<Pool>().toExtend<PgPool>()
    expectTypeOf<Client>().toExtend<PgQueryable>()
    expectTypeOf<PGlite>().toExtend<PgQueryable>()
    expectTypeOf<{ pool: Pool }>().toExtend<PostgresVectorStoreOptions>()
    expectTypeOf<{ client: PGlite; table: string }>().toExtend<PostgresVectorStoreOptions>()
    expectTypeOf<{ table: string }>().not.toExtend<PostgresVectorStoreOptions>()
    expectTypeOf(postgresVectorStore).returns.toEqualTypeOf<VectorStore>()
  })
})
