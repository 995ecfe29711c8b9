/**
 * `postgresVectorStore({ pool })`: a knowledge base's `VectorStore` in Postgres, for more than one
 * machine. Vectors live in a pgvector `vector(N)` column searched by cosine distance (`<=>`) under
 * an HNSW index; words by BM25 over the lexemes of the text-search configuration (`english`:
 * stop words dropped, words stemmed), any of the query's words matching. Postgres's own `ts_rank`
 * knows no idf (a word in every chunk counts as much as a rare one), so each chunk's lexemes and
 * their counts are kept in a `<table>_terms` table beside its `tsvector`, and a search scores
 * BM25 from them in one query.
 */
import { LaconicError } from '../core/contracts/laconic-error.js'
import { checkEmbedding } from '../kb/store-checks.js'
import { chunkOfRow, type ChunkFields, type DocumentRow, storedDocument } from '../kb/store-rows.js'
import type { Chunk, VectorStore } from '../kb/vector-store.js'
import { connectionOf, type Connection, type PgPool, type PgQueryable } from './pg-connection.js'

/** Options of `postgresVectorStore()`: the connection (a pool or one client), the tables' names and the text-search language. */
export type PostgresVectorStoreOptions = ({ pool: PgPool; client?: undefined } | { client: PgQueryable; pool?: undefined }) & {
  /**
   * The tables' name prefix (`<table>_documents`, `<table>_chunks`), optionally schema-qualified
   * (`search.kb`): several knowledge bases can share one database.
   * @defaultValue `'kb'`
   */
  table?: string | undefined
  /** The text-search configuration that stems and drops stop words (`simple` does neither). @defaultValue `'english'` */
  language?: string | undefined
}

interface ChunkRow extends ChunkFields {
  embedding: string
  score?: number
}

/** BM25's term-frequency saturation and length normalisation, as the shared ranker (`core/lexical.ts`) sets them. */
const K1 = 1.2
const B = 0.75

const STORE = 'postgresVectorStore'
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/
/** Rows of one INSERT: Postgres takes at most 65,535 parameters a statement. */
const ROWS_PER_INSERT = 500
const CHUNK_COLUMNS = 'id, document_id, url, title, headings, position, text, embedding::text AS embedding'
const CHUNK_TABLE_COLUMNS = (vectorType: string) =>
  `id text PRIMARY KEY, document_id text NOT NULL, url text NOT NULL, title text NOT NULL, headings text NOT NULL,
   position integer NOT NULL, text text NOT NULL, embedding ${vectorType} NOT NULL, search tsvector NOT NULL, search_length integer NOT NULL`

/**
 * A `VectorStore` in Postgres with pgvector. The tables (and the `vector` extension, where the
 * role may create it) are made on first use.
 *
 * `putDocument` and `removeDocument` each run in one transaction, under a transaction-level
 * advisory lock per store: readers see a document's old chunks or its new ones, never a mix, and
 * writers on other machines wait their turn.
 */
export function postgresVectorStore(options: PostgresVectorStoreOptions): VectorStore {
  const source = options?.pool ? { pool: options.pool } : options?.client ? { client: options.client } : undefined
  if (!source)
    throw new LaconicError(`${STORE}: pass a \`pool\` (pg.Pool) or a \`client\` (pg.Client, PGlite)`, {
      code: 'config',
      hint: 'postgresVectorStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })',
    })
  const names = tableNames(options.table ?? 'kb')
  const language = options.language ?? 'english'
  if (!/^[a-z_]+$/.test(language))
    throw new LaconicError(`${STORE}: \`language\` must be a text-search configuration name, got ${JSON.stringify(language)}`, { code: 'config' })
  const db = connectionOf(source)
  let ready: Promise<void> | undefined
  let closed = false

  const open = async (): Promise<Connection> => {
    if (closed) throw new LaconicError(`${STORE}: the store is closed`, { code: 'config', hint: 'create a new store' })
    ready ??= createTables(db, names).catch((error: unknown) => {
      ready = undefined
      throw error
    })
    await ready
    return db
  }
  const lockKey = `laconic-kb:${names.documents}`

  return {
    async embedding() {
      const [row] = await (await open()).query<DocumentRow>(`SELECT model, dimensions FROM ${names.documents} LIMIT 1`)
      return row && { model: row.model, dimensions: row.dimensions }
    },

    async putDocument(document, chunks, info) {
      await (await open()).transaction(async (query) => {
        await query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey])
        const [current] = await query<DocumentRow>(`SELECT model, dimensions FROM ${names.documents} LIMIT 1`)
        checkEmbedding(STORE, current, info, chunks)
        await fitVectorColumn(query, names, info.dimensions)
        await query(
          `INSERT INTO ${names.documents} (id, url, title, hash, chunks, indexed_at, model, dimensions) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, title = EXCLUDED.title, hash = EXCLUDED.hash, chunks = EXCLUDED.chunks,
             indexed_at = EXCLUDED.indexed_at, model = EXCLUDED.model, dimensions = EXCLUDED.dimensions`,
          [document.id, document.url, document.title, document.hash, document.chunks, document.indexedAt, info.model, info.dimensions],
        )
        await query(`DELETE FROM ${names.chunks} WHERE document_id = $1`, [document.id])
        await forgetTerms(query, names, document.id)
        for (let start = 0; start < chunks.length; start += ROWS_PER_INSERT)
          await insertChunks(query, names, language, chunks.slice(start, start + ROWS_PER_INSERT))
        await indexTerms(query, names, document.id)
      })
    },

    async removeDocument(documentId) {
      await (await open()).transaction(async (query) => {
        await query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey])
        await query(
          `UPDATE ${names.stats} SET chunks = ${names.stats}.chunks - d.search_chunks, length = ${names.stats}.length - d.search_length
           FROM ${names.documents} d WHERE d.id = $1`,
          [documentId],
        )
        await query(`DELETE FROM ${names.chunks} WHERE document_id = $1`, [documentId])
        await forgetTerms(query, names, documentId)
        await query(`DELETE FROM ${names.documents} WHERE id = $1`, [documentId])
      })
    },

    async documents() {
      const rows = await (await open()).query<DocumentRow>(`SELECT id, url, title, hash, chunks, indexed_at FROM ${names.documents} ORDER BY id`)
      return rows.map(storedDocument)
    },

    async searchByVector(vector, limit) {
      const query = (await open()).query
      if (limit <= 0 || !vector.some((n) => n !== 0)) return []
      const [current] = await query<DocumentRow>(`SELECT dimensions FROM ${names.documents} LIMIT 1`)
      if (current?.dimensions !== vector.length) return []
      // HNSW keeps `hnsw.ef_search` candidates (40 by default) while it walks the graph: as few
      // as the rows asked for, and a clear answer can be missed. Twice the rows, for this query only.
      const rows = await (await open()).transaction(async (inTransaction) => {
        await inTransaction("SELECT set_config('hnsw.ef_search', $1, true)", [String(efSearch(limit))])
        return inTransaction<ChunkRow>(
          `SELECT ${CHUNK_COLUMNS}, 1 - (embedding <=> $1::vector) AS score FROM ${names.chunks} ORDER BY embedding <=> $1::vector LIMIT $2`,
          [vectorLiteral(vector), Math.floor(limit)],
        )
      })
      return rows.map((row) => ({ chunk: chunkOf(row), score: Number(row.score) }))
    },

    async searchByText(text, limit) {
      const query = (await open()).query
      if (limit <= 0 || !text.trim()) return []
      const rows = await searchWords(query, names, language, text, Math.floor(limit))
      return rows.map((row) => ({ chunk: chunkOf(row), score: Number(row.score) }))
    },

    async chunksAround(documentId, from, to) {
      const rows = await (await open()).query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS} FROM ${names.chunks} WHERE document_id = $1 AND position BETWEEN $2 AND $3 ORDER BY position`,
        [documentId, Math.ceil(from), Math.floor(to)],
      )
      return rows.map(chunkOf)
    },

    async close() {
      // The pool or client is the caller's: they end it.
      closed = true
    },
  }
}

type Names = { documents: string; chunks: string; terms: string; lexemes: string; stats: string; prefix: string }

function tableNames(table: string): Names {
  const parts = table.split('.')
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part)))
    throw new LaconicError(`${STORE}: \`table\` must be a lower-case name or schema.name, got ${JSON.stringify(table)}`, {
      code: 'config',
      hint: "e.g. 'kb' or 'search.kb'",
    })
  return {
    documents: `${table}_documents`,
    chunks: `${table}_chunks`,
    terms: `${table}_terms`,
    lexemes: `${table}_lexemes`,
    stats: `${table}_stats`,
    prefix: parts.at(-1) as string,
  }
}

async function createTables(db: Connection, names: Names): Promise<void> {
  const [extension] = await db.query<{ ok: number }>("SELECT 1 AS ok FROM pg_extension WHERE extname = 'vector'")
  if (!extension) {
    try {
      await db.query('CREATE EXTENSION IF NOT EXISTS vector')
    } catch (cause) {
      throw new LaconicError(`${STORE}: the database has no pgvector extension, and this role cannot create it`, {
        code: 'config',
        hint: 'install pgvector on the server and run `CREATE EXTENSION vector;` as a superuser once',
        cause,
      })
    }
  }
  await db.query(
    `CREATE TABLE IF NOT EXISTS ${names.documents} (
       id text PRIMARY KEY, url text NOT NULL, title text NOT NULL, hash text NOT NULL, chunks integer NOT NULL,
       indexed_at text NOT NULL, model text NOT NULL, dimensions integer NOT NULL,
       search_chunks integer NOT NULL DEFAULT 0, search_length bigint NOT NULL DEFAULT 0)`,
  )
  // A row per lexeme a chunk holds: how often, and the chunk's length in lexemes (BM25's inputs).
  await db.query(
    `CREATE TABLE IF NOT EXISTS ${names.terms} (
       lexeme text NOT NULL, chunk_id text NOT NULL, document_id text NOT NULL, count integer NOT NULL, length integer NOT NULL,
       PRIMARY KEY (lexeme, chunk_id))`,
  )
  await db.query(`CREATE INDEX IF NOT EXISTS ${names.prefix}_terms_document ON ${names.terms} (document_id)`)
  // A lexeme's rows in the order of its BM25 share for each count (shorter chunks first): the best
  // chunks holding only the commonest word of a query are read off it, not found among all its rows.
  await db.query(`CREATE INDEX IF NOT EXISTS ${names.prefix}_terms_impact ON ${names.terms} (lexeme, count, length, chunk_id)`)
  // Per lexeme, the chunks holding it (its idf's input), kept by every write.
  await db.query(`CREATE TABLE IF NOT EXISTS ${names.lexemes} (lexeme text PRIMARY KEY, chunks integer NOT NULL)`)
  // One row: the chunks and their lexemes in all, kept by every write (BM25's collection size and average length).
  await db.query(`CREATE TABLE IF NOT EXISTS ${names.stats} (one boolean PRIMARY KEY DEFAULT true CHECK (one), chunks bigint NOT NULL, length bigint NOT NULL)`)
  await db.query(`INSERT INTO ${names.stats} (chunks, length) VALUES (0, 0) ON CONFLICT DO NOTHING`)
  // Until the first document fixes the vectors' width, a chunks table of no width (and no index) answers searches.
  await db.query(`CREATE TABLE IF NOT EXISTS ${names.chunks} (${CHUNK_TABLE_COLUMNS('vector')})`)
}

/**
 * The chunks table with a `vector(N)` column of the store's width (an HNSW index needs one
 * width): created on the first write, and made anew when an emptied store takes another model.
 */
async function fitVectorColumn(query: Connection['query'], names: Names, dimensions: number): Promise<void> {
  const [column] = await query<{ width: number }>(`SELECT atttypmod AS width FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding'`, [
    names.chunks,
  ])
  if (column?.width === dimensions) return
  // The table of no width, or checkEmbedding let another width through: no document is left, so neither is a chunk.
  if (column) await query(`DROP TABLE ${names.chunks}`)
  await query(`CREATE TABLE ${names.chunks} (${CHUNK_TABLE_COLUMNS(`vector(${dimensions})`)})`)
  await query(`CREATE INDEX ${names.prefix}_chunks_document ON ${names.chunks} (document_id, position)`)
  await query(`CREATE INDEX ${names.prefix}_chunks_embedding ON ${names.chunks} USING hnsw (embedding vector_cosine_ops)`)
}

async function insertChunks(query: Connection['query'], names: Names, language: string, chunks: readonly Chunk[]): Promise<void> {
  if (chunks.length === 0) return
  const values: unknown[] = [language]
  const rows = chunks.map((chunk) => {
    const at = values.length
    values.push(
      chunk.id,
      chunk.documentId,
      chunk.url,
      chunk.title,
      JSON.stringify(chunk.headings),
      chunk.position,
      chunk.text,
      vectorLiteral(chunk.vector),
      [chunk.title, ...chunk.headings, chunk.text].join('\n'),
    )
    const p = (n: number) => `$${at + n}`
    return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}::integer, ${p(7)}, ${p(8)}::vector, to_tsvector($1::regconfig, ${p(9)}))`
  })
  await query(
    `INSERT INTO ${names.chunks} (id, document_id, url, title, headings, position, text, embedding, search, search_length)
     SELECT id, document_id, url, title, headings, position, text, embedding, search, (SELECT coalesce(sum(coalesce(cardinality(positions), 1)), 0) FROM unnest(search))
     FROM (VALUES ${rows.join(', ')}) AS v (id, document_id, url, title, headings, position, text, embedding, search)`,
    values,
  )
}

/** The document's chunks' lexemes into the terms table, their chunk counts, and its totals (chunks, lexemes) into its record. */
async function indexTerms(query: Connection['query'], names: Names, documentId: string): Promise<void> {
  await query(
    `INSERT INTO ${names.terms} (lexeme, chunk_id, document_id, count, length)
     SELECT t.lexeme, c.id, c.document_id, coalesce(cardinality(t.positions), 1), c.search_length FROM ${names.chunks} c, unnest(c.search) t WHERE c.document_id = $1`,
    [documentId],
  )
  await query(
    `INSERT INTO ${names.lexemes} (lexeme, chunks) SELECT lexeme, count(*) FROM ${names.terms} WHERE document_id = $1 GROUP BY lexeme
     ON CONFLICT (lexeme) DO UPDATE SET chunks = ${names.lexemes}.chunks + excluded.chunks`,
    [documentId],
  )
  // Every sub-statement sees the record as it was: the totals move by the new counts less the old.
  await query(
    `WITH now AS (SELECT count(*) AS chunks, coalesce(sum(search_length), 0) AS length FROM ${names.chunks} WHERE document_id = $1),
       before AS (SELECT search_chunks AS chunks, search_length AS length FROM ${names.documents} WHERE id = $1),
       record AS (UPDATE ${names.documents} SET search_chunks = now.chunks, search_length = now.length FROM now WHERE id = $1)
     UPDATE ${names.stats} SET chunks = ${names.stats}.chunks + now.chunks - before.chunks, length = ${names.stats}.length + now.length - before.length
     FROM now, before`,
    [documentId],
  )
}

interface QueryTerm {
  lexeme: string
  /** idf × how often the query says it. */
  weight: number
  /** Chunks holding it. */
  holding: number
  /** The chunks' average length, in lexemes. */
  average: number
}

/**
 * The `limit` chunks of highest BM25 for the words of `text`, exactly, without reading every row
 * of a word most chunks hold (MaxScore, Turtle and Flood 1995). A word's share of a chunk's score
 * is at most its weight × (k1 + 1). The chunks holding the rarest words (enough of them for
 * `limit` chunks) are scored in full first; the `limit`-th score is a bar. A chunk holding only
 * words whose bounds together stay under the bar cannot pass it, so only the chunks holding one
 * of the other ("essential") words are scored; when those are among the first, the first answer
 * stands. Where every chunk could still pass (the rarer words hold fewer than `limit` chunks, or
 * the commonest word alone can pass the bar), `scoreAll` answers without reading the commonest
 * word's rows in full. Each word of the query reaches SQL as a value, never as text of the statement.
 */
async function searchWords(query: Connection['query'], names: Names, language: string, text: string, limit: number): Promise<ChunkRow[]> {
  const terms = (
    await query<QueryTerm>(
      `WITH q AS (SELECT lexeme, coalesce(cardinality(positions), 1)::float8 AS said FROM unnest(to_tsvector($1::regconfig, $2))),
         size AS (SELECT chunks::float8 AS chunks, greatest(length::float8 / nullif(chunks, 0), 1) AS average FROM ${names.stats})
       SELECT q.lexeme, q.said * ln(1 + (size.chunks - l.chunks + 0.5) / (l.chunks + 0.5)) AS weight, l.chunks AS holding, size.average
       FROM q JOIN ${names.lexemes} l ON l.lexeme = q.lexeme CROSS JOIN size WHERE l.chunks > 0`,
      [language, text],
    )
  )
    .map((term) => ({ ...term, weight: Number(term.weight), holding: Number(term.holding), average: Number(term.average) }))
    .sort((a, b) => b.weight - a.weight)
  if (terms.length === 0) return []
  const score = (among: readonly QueryTerm[]) =>
    scoreChunks(
      query,
      names,
      among,
      terms.filter((term) => !among.includes(term)),
      limit,
    )
  // The rarest words, until they hold `limit` chunks.
  let held = 0
  const rarest = terms.filter((term) => {
    const take = held < limit
    held += term.holding
    return take
  })
  if (rarest.length === terms.length) return scoreAll(query, names, terms, limit)
  const first = await score(rarest)
  const bar = first.length < limit ? 0 : Number(first.at(-1)?.score)
  // From the commonest word up, the words whose bounds together stay under the bar.
  let bound = 0
  let essential = terms.length
  while (essential > 0) {
    bound += (terms[essential - 1] as QueryTerm).weight * (K1 + 1)
    if (bound >= bar) break
    essential--
  }
  if (essential <= rarest.length) return first
  return essential === terms.length ? scoreAll(query, names, terms, limit) : score(terms.slice(0, essential))
}

/** A chunk's BM25 share of a lexeme whose rows are `alias`, its weight `weight` (SQL). */
const share = (alias: string, weight: string) =>
  `${weight} * ${alias}.count * ${K1 + 1} / (${alias}.count + ${K1} * (${1 - B} + ${B} * ${alias}.length / $3::float8))`

/**
 * The `limit` chunks of highest BM25 among those holding one of the words `among`: their rows read
 * in full (off the `(lexeme, count, length, chunk_id)` index, no table row needed), each such
 * chunk's rows of the `rest` of the words looked up by key, so a common word's rows are read for
 * these chunks only, not searched through for them.
 */
function scoreChunks(
  query: Connection['query'],
  names: Names,
  among: readonly QueryTerm[],
  rest: readonly QueryTerm[],
  limit: number,
  alone?: QueryTerm,
): Promise<ChunkRow[]> {
  // The chunks holding only `alone` (the one word of `rest`), best first, for each of its counts.
  const aloneRows = `,
       counts (count) AS (
         (SELECT count FROM ${names.terms} WHERE lexeme = $7 ORDER BY count DESC LIMIT 1)
         UNION ALL
         SELECT (SELECT t.count FROM ${names.terms} t WHERE t.lexeme = $7 AND t.count < counts.count ORDER BY t.count DESC LIMIT 1)
         FROM counts WHERE counts.count IS NOT NULL),
       alone AS (SELECT a.chunk_id, ${share('a', '$8::float8')} AS score
                 FROM counts CROSS JOIN LATERAL (
                   SELECT t.chunk_id, t.count, t.length FROM ${names.terms} t
                   WHERE t.lexeme = $7 AND t.count = counts.count
                     AND NOT EXISTS (SELECT 1 FROM ${names.terms} o WHERE o.lexeme = ANY ($1::text[]) AND o.chunk_id = t.chunk_id)
                   ORDER BY t.length, t.chunk_id LIMIT $4) a)`
  return query<ChunkRow>(
    `WITH RECURSIVE w AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS w (lexeme, weight)),
       r AS (SELECT * FROM unnest($5::text[], $6::float8[]) AS r (lexeme, weight)),
       held AS (SELECT t.chunk_id, sum(${share('t', 'w.weight')}) AS score
                FROM ${names.terms} t JOIN w ON w.lexeme = t.lexeme WHERE t.lexeme = ANY ($1::text[]) GROUP BY t.chunk_id),
       candidates AS (SELECT held.chunk_id, held.score + coalesce((SELECT sum(${share('c', 'r.weight')}) FROM r JOIN ${names.terms} c
                                                                   ON c.lexeme = r.lexeme AND c.chunk_id = held.chunk_id), 0) AS score
                      FROM held)${alone ? aloneRows : ''},
       scored AS (SELECT chunk_id, score FROM candidates ${alone ? 'UNION ALL SELECT chunk_id, score FROM alone' : ''} ORDER BY score DESC, chunk_id LIMIT $4)
     SELECT ${CHUNK_COLUMNS}, scored.score FROM scored JOIN ${names.chunks} c ON c.id = scored.chunk_id ORDER BY scored.score DESC, c.id`,
    [
      among.map((term) => term.lexeme),
      among.map((term) => term.weight),
      (rest[0] ?? among[0])?.average,
      limit,
      rest.map((term) => term.lexeme),
      rest.map((term) => term.weight),
      ...(alone ? [alone.lexeme, alone.weight] : []),
    ],
  )
}

/**
 * The `limit` chunks of highest BM25 among all, exactly, reading every row of each word but the
 * commonest. A chunk holding another word is scored in full (its row of the commonest word looked
 * up by key). A chunk holding only the commonest word scores by its count and length alone: more
 * counts score higher, and of the same count the shorter chunk; so the best such chunks are the
 * first `limit` of each count's rows on the `(lexeme, count, length, chunk_id)` index (a handful
 * of counts, each found by one index step), not all of a word four chunks in five may hold.
 */
function scoreAll(query: Connection['query'], names: Names, terms: readonly QueryTerm[], limit: number): Promise<ChunkRow[]> {
  const common = terms.at(-1) as QueryTerm
  return scoreChunks(query, names, terms.slice(0, -1), [common], limit, common)
}

/** Drops the document's rows from the terms table, and their chunks from each lexeme's count. */
async function forgetTerms(query: Connection['query'], names: Names, documentId: string): Promise<void> {
  await query(
    `UPDATE ${names.lexemes} l SET chunks = l.chunks - gone.chunks
     FROM (SELECT lexeme, count(*) AS chunks FROM ${names.terms} WHERE document_id = $1 GROUP BY lexeme) gone WHERE l.lexeme = gone.lexeme`,
    [documentId],
  )
  await query(`DELETE FROM ${names.terms} WHERE document_id = $1`, [documentId])
}

/** The HNSW search breadth for `limit` rows: twice the rows, within pgvector's bounds (40 is its default, 1,000 its most). */
export function efSearch(limit: number): number {
  return Math.min(1_000, Math.max(40, 2 * Math.ceil(limit)))
}

/** pgvector's text form, `[1,2.5,-3]`. */
function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`
}

function chunkOf(row: ChunkRow): Chunk {
  // pgvector's text form is a JSON array of numbers.
  return chunkOfRow(row, Float32Array.from(JSON.parse(row.embedding) as number[]))
}
