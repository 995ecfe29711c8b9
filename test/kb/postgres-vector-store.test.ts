/**
 * `postgresVectorStore` on PGlite (Postgres compiled to WASM) with its pgvector extension: the
 * shared contract, through a lone client and through a pool, and what is Postgres's own.
 */
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresVectorStore, type PgPool } from '../../src/postgres/index.js'
import { chunk, doc, vectorStoreContract } from './vector-store-contract.js'

let db: PGlite
let tables = 0
const MODEL = { model: 'm', dimensions: 3 }

beforeAll(async () => {
  db = await PGlite.create({ extensions: { vector } })
}, 120_000)
afterAll(async () => {
  await db?.close()
})

/** A `pg.Pool`-shaped pool over PGlite's one connection, recording how its clients were released. */
function poolOver(pglite: PGlite, released: unknown[] = []): PgPool {
  return {
    query: (text, values) => pglite.query(text, values),
    connect: async () => ({ query: (text, values) => pglite.query(text, values), release: (error) => released.push(error) }),
  }
}

const prefixes = new WeakMap<object, string>()
vectorStoreContract('postgresVectorStore (a PGlite client)', {
  make: async () => {
    const table = `kb${++tables}`
    const store = postgresVectorStore({ client: db, table })
    prefixes.set(store, table)
    return store
  },
  reopen: async (store) => postgresVectorStore({ client: db, table: prefixes.get(store) as string }),
})

vectorStoreContract('postgresVectorStore (a pool)', { make: async () => postgresVectorStore({ pool: poolOver(db), table: `pool${++tables}` }) })

describe('postgresVectorStore', () => {
  it('makes a vector(N) column under an HNSW cosine index and a GIN full-text index', async () => {
    const store = postgresVectorStore({ client: db, table: 'shape' })
    await store.putDocument(doc('a', 1), [chunk('a', 0, 'alpha', [1, 0, 0])], MODEL)
    const indexes = (await db.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE tablename = 'shape_chunks' ORDER BY indexname")).rows
    expect(indexes.map((i) => i.indexdef).join('\n')).toMatch(/USING hnsw \(embedding vector_cosine_ops\)[\s\S]*USING gin \(search\)/)
    const [column] = (
      await db.query<{ type: string }>(
        "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'shape_chunks'::regclass AND attname = 'embedding'",
      )
    ).rows
    expect(column?.type).toBe('vector(3)')
  })

  it('rolls a failed write back whole, and a pool discards the client it failed on', async () => {
    const released: unknown[] = []
    const store = postgresVectorStore({ pool: poolOver(db, released), table: 'rollback' })
    await store.putDocument(doc('a', 1), [chunk('a', 0, 'kept', [1, 0, 0])], MODEL)
    // Two chunks of one id: the INSERT fails after the DELETE of the old chunks ran.
    const duplicate = [chunk('a', 0, 'new', [0, 1, 0]), chunk('a', 0, 'new again', [0, 0, 1])]
    await expect(store.putDocument(doc('a', 2, 'h-new'), duplicate, MODEL)).rejects.toThrow()
    expect(await store.documents()).toEqual([doc('a', 1)])
    expect((await store.chunksAround('a', 0, 5)).map((c) => c.text)).toEqual(['kept'])
    expect(released[0]).toBeUndefined()
    expect(released.at(-1)).toBeInstanceOf(Error)
  })

  it('stems words and reads web-search syntax in the query', async () => {
    const store = postgresVectorStore({ client: db, table: 'words' })
    await store.putDocument(
      doc('a', 2),
      [chunk('a', 0, 'The moons of Jupiter are many.', [1, 0, 0]), chunk('a', 1, 'Saturn has rings and moons.', [0, 1, 0])],
      MODEL,
    )
    expect((await store.searchByText('moon', 5)).map((hit) => hit.chunk.id).sort()).toEqual(['a#0', 'a#1'])
    expect((await store.searchByText('moon -saturn', 5)).map((hit) => hit.chunk.id)).toEqual(['a#0'])
    expect((await store.searchByText('"rings and moons"', 5)).map((hit) => hit.chunk.id)).toEqual(['a#1'])
  })

  it('refuses a table name or language it would have to quote, and a missing connection', () => {
    expect(() => postgresVectorStore({ client: db, table: 'kb; drop table x' })).toThrow('`table` must be a lower-case name')
    expect(() => postgresVectorStore({ client: db, language: "english'" })).toThrow('`language` must be')
    expect(() => postgresVectorStore({} as never)).toThrow('pass a `pool` (pg.Pool) or a `client`')
  })
})
