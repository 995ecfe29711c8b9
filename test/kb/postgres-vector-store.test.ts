/**
 * `postgresVectorStore` on PGlite (Postgres compiled to WASM) with its pgvector extension: the
 * shared contract, through a lone client and through a pool, and what is Postgres's own.
 */
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'
import fc from 'fast-check'
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

/** Every chunk's BM25 for `query`, best first, in one plain statement over the store's tables. */
async function scoreEveryChunk(table: string, query: string): Promise<{ id: string; score: number }[]> {
  return (
    await db.query<{ id: string; score: number }>(
      `WITH q AS (SELECT lexeme, coalesce(cardinality(positions), 1)::float8 AS said FROM unnest(to_tsvector('english', $1))),
         size AS (SELECT chunks::float8 AS chunks, length::float8 / chunks AS average FROM ${table}_stats),
         w AS (SELECT q.lexeme, q.said * ln(1 + (size.chunks - l.chunks + 0.5) / (l.chunks + 0.5)) AS weight
               FROM q JOIN ${table}_lexemes l USING (lexeme) CROSS JOIN size WHERE l.chunks > 0)
       SELECT t.chunk_id AS id, sum(w.weight * t.count * 2.2 / (t.count + 1.2 * (0.25 + 0.75 * t.length / size.average))) AS score
       FROM ${table}_terms t JOIN w USING (lexeme) CROSS JOIN size GROUP BY t.chunk_id ORDER BY score DESC, t.chunk_id`,
      [query],
    )
  ).rows
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
  it("makes a vector(N) column under an HNSW cosine index, and a table of each chunk's lexemes keyed by lexeme", async () => {
    const store = postgresVectorStore({ client: db, table: 'shape' })
    await store.putDocument(doc('a', 1), [chunk('a', 0, 'alpha', [1, 0, 0])], MODEL)
    const indexes = (await db.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE tablename = 'shape_chunks' ORDER BY indexname")).rows
    expect(indexes.map((i) => i.indexdef).join('\n')).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/)
    const [column] = (
      await db.query<{ type: string }>(
        "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'shape_chunks'::regclass AND attname = 'embedding'",
      )
    ).rows
    expect(column?.type).toBe('vector(3)')
    const terms = (await db.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE tablename = 'shape_terms' ORDER BY indexname")).rows
    expect(terms.map((i) => i.indexdef).join('\n')).toMatch(/UNIQUE INDEX shape_terms_pkey ON public.shape_terms USING btree \(lexeme, chunk_id\)/)
    expect(terms.map((i) => i.indexdef).join('\n')).toMatch(/INDEX shape_terms_impact ON public.shape_terms USING btree \(lexeme, count, length, chunk_id\)/)
  })

  it('keeps the collection totals BM25 reads equal to its chunks through puts, replacements and removals', async () => {
    const text = fc.array(fc.constantFrom('moon', 'tides', 'the', 'sea', 'salt', 'of', 'rock'), { maxLength: 6 }).map((words) => words.join(' '))
    const step = fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.option(fc.array(text, { maxLength: 3 }), { nil: undefined }))
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const table = `totals${++run}`
        const store = postgresVectorStore({ client: db, table })
        for (const [id, texts] of steps) {
          if (texts === undefined) await store.removeDocument(id)
          else
            await store.putDocument(
              doc(id, texts.length),
              texts.map((value, position) => chunk(id, position, value, [1, position, 0])),
              MODEL,
            )
        }
        const [kept] = (await db.query<{ chunks: string; length: string }>(`SELECT chunks::text, length::text FROM ${table}_stats`)).rows
        const [actual] = (
          await db.query<{ chunks: string; length: string }>(
            `SELECT count(*)::text AS chunks, coalesce(sum(search_length), 0)::text AS length FROM ${table}_chunks`,
          )
        ).rows
        const [terms] = (await db.query<{ length: string }>(`SELECT coalesce(sum(count), 0)::text AS length FROM ${table}_terms`)).rows
        expect(kept).toEqual(actual)
        expect(terms?.length).toBe(actual?.length)
        // Each lexeme's count of chunks is the chunks that hold it (0 once none does).
        const wrong = await db.query(
          `SELECT l.lexeme FROM ${table}_lexemes l LEFT JOIN (SELECT lexeme, count(*) AS chunks FROM ${table}_terms GROUP BY lexeme) t ON t.lexeme = l.lexeme
           WHERE l.chunks <> coalesce(t.chunks, 0)
           UNION SELECT lexeme FROM ${table}_terms WHERE lexeme NOT IN (SELECT lexeme FROM ${table}_lexemes)`,
        )
        expect(wrong.rows).toEqual([])
      }),
      { numRuns: 15 },
    )
  }, 120_000)

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

  it('stems words, and ranks by BM25: any word matches, a rare one counts more than a common one', async () => {
    const store = postgresVectorStore({ client: db, table: 'words' })
    await store.putDocument(
      doc('a', 3),
      [
        chunk('a', 0, 'The moons of Jupiter are many.', [1, 0, 0]),
        chunk('a', 1, 'Saturn has rings and moons.', [0, 1, 0]),
        chunk('a', 2, 'Saturn.', [0, 0, 1]),
      ],
      MODEL,
    )
    expect((await store.searchByText('moon', 5)).map((hit) => hit.chunk.id).sort()).toEqual(['a#0', 'a#1'])
    // "jupiter" is in one chunk, "saturn" in two: the rarer word ranks first, then the shorter chunk.
    expect((await store.searchByText('Jupiter Saturn', 5)).map((hit) => hit.chunk.id)).toEqual(['a#0', 'a#2', 'a#1'])
    // Quotes, `or` and `-` are plain text: no word is required, none excluded.
    expect((await store.searchByText('"rings -saturn" or', 5)).map((hit) => hit.chunk.id)).toEqual(['a#1', 'a#2'])
    await store.removeDocument('a')
    expect(await store.searchByText('moon', 5)).toEqual([])
    expect((await db.query('SELECT * FROM words_terms')).rows).toEqual([])
  })

  it('searches HNSW with ef_search at twice the rows asked for, for that query only', async () => {
    // A client that reads the setting in force on its connection just before each vector search runs.
    const seen: string[] = []
    const client = {
      async query(text: string, values?: unknown[]) {
        if (text.includes('<=>')) seen.push((await db.query<{ ef: string }>("SELECT current_setting('hnsw.ef_search') AS ef")).rows[0]?.ef ?? '')
        return db.query(text, values)
      },
    }
    const store = postgresVectorStore({ client, table: 'breadth' })
    await store.putDocument(doc('a', 2), [chunk('a', 0, 'x', [1, 0, 0]), chunk('a', 1, 'y', [0, 1, 0])], MODEL)
    expect((await store.searchByVector(Float32Array.from([1, 0, 0]), 40)).map((hit) => hit.chunk.id)).toEqual(['a#0', 'a#1'])
    await store.searchByVector(Float32Array.from([1, 0, 0]), 3)
    await store.searchByVector(Float32Array.from([1, 0, 0]), 5_000)
    expect(seen).toEqual(['80', '40', '1000'])
    // SET LOCAL: the session's own setting is untouched once the search's transaction ends.
    expect((await db.query<{ ef: string }>("SELECT current_setting('hnsw.ef_search') AS ef")).rows[0]?.ef).toBe('40')
  })

  it('finds the same best chunks as scoring every chunk, though it skips the chunks of words too common to matter', async () => {
    // "moon" is in nearly every chunk: its rows are read only for chunks a rarer word brings.
    const rare = ['tide', 'salt', 'fern', 'basalt', 'llama', 'quartz']
    const words = fc.array(fc.constantFrom(...rare, 'moon', 'moon', 'moon'), { minLength: 1, maxLength: 6 })
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(words, { minLength: 4, maxLength: 40 }),
        // No rare word at all, or rarer words held by fewer chunks than `limit`: the rest of the
        // answer is the chunks holding only "moon", read off its index in score order.
        fc.tuple(fc.option(fc.constantFrom(...rare), { nil: undefined }), fc.array(fc.constantFrom(...rare, 'moon', 'zeppelin'), { maxLength: 3 })),
        // Few rows asked for, so that a count's chunks holding only "moon" outnumber them.
        fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 12 })),
        async (texts, [first, more], limit) => {
          const queryWords = [...(first ? [first] : []), 'moon', ...more]
          const table = `maxscore${++run}`
          const store = postgresVectorStore({ client: db, table })
          for (const [n, chunkWords] of texts.entries()) {
            await store.putDocument(doc(`d${n}`, 1), [chunk(`d${n}`, 0, ['moon', ...chunkWords].join(' '), [1, n, 0])], MODEL)
          }
          const query = queryWords.join(' ')
          const all = await scoreEveryChunk(table, query)
          const found = await store.searchByText(query, limit)
          expect(found.map((hit) => hit.score)).toEqual(all.slice(0, limit).map((row) => expect.closeTo(Number(row.score), 9)))
        },
      ),
      { numRuns: 20 },
    )
  }, 300_000)

  it('ranks the chunks holding only the common word by BM25 then id, after the chunks a rarer word brings', async () => {
    const store = postgresVectorStore({ client: db, table: 'alone' })
    const texts = ['moon fern', 'moon', 'moon moon rock', 'moon rock', 'moon', 'moon moon', 'sea']
    for (const [n, text] of texts.entries()) await store.putDocument(doc(`d${n}`, 1), [chunk(`d${n}`, 0, text, [1, n, 0])], MODEL)
    const found = await store.searchByText('fern moon', 5)
    expect(found.map((hit) => hit.chunk.id)).toEqual(['d0#0', 'd5#0', 'd2#0', 'd1#0', 'd4#0'])
    expect((await store.searchByText('moon', 1)).map((hit) => hit.chunk.id)).toEqual(['d5#0'])
    expect((await store.searchByText('moon', 10)).map((hit) => hit.chunk.id)).toEqual(['d5#0', 'd2#0', 'd1#0', 'd4#0', 'd0#0', 'd3#0'])
  })

  it('finds the best chunks holding only a common word, of every count and length, as scoring every chunk does', async () => {
    // Many chunks per count of "moon", of many lengths, and few rows asked for: the best of each
    // count must be its shortest.
    const text = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.array(fc.constantFrom('sea', 'salt', 'rock', 'fern'), { maxLength: 8 }))
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 5, maxLength: 40 }),
        fc.constantFrom('moon', 'moon fern', 'fern moon moon', 'moon zeppelin'),
        fc.integer({ min: 1, max: 6 }),
        async (texts, query, limit) => {
          const table = `alone${++run}`
          const store = postgresVectorStore({ client: db, table })
          for (const [n, [moons, rest]] of texts.entries())
            await store.putDocument(doc(`d${n}`, 1), [chunk(`d${n}`, 0, [...Array<string>(moons).fill('moon'), ...rest].join(' '), [1, n, 0])], MODEL)
          const all = await scoreEveryChunk(table, query)
          const found = await store.searchByText(query, limit)
          expect(found.map((hit) => hit.score)).toEqual(all.slice(0, limit).map((row) => expect.closeTo(Number(row.score), 9)))
        },
      ),
      { numRuns: 20 },
    )
  }, 300_000)

  it('refuses a table name or language it would have to quote, and a missing connection', () => {
    expect(() => postgresVectorStore({ client: db, table: 'kb; drop table x' })).toThrow('`table` must be a lower-case name')
    expect(() => postgresVectorStore({ client: db, language: "english'" })).toThrow('`language` must be')
    expect(() => postgresVectorStore({} as never)).toThrow('pass a `pool` (pg.Pool) or a `client`')
  })
})
