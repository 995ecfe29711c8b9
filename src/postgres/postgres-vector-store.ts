/**
 * `postgresVectorStore({ pool })`: a knowledge base's `VectorStore` in Postgres, for more than one
 * machine. Vectors live in a pgvector `vector(N)` column searched by cosine distance (`<=>`) under
 * an HNSW index; words in a `tsvector` column under a GIN index, ranked by `ts_rank` for a
 * `websearch_to_tsquery` (quotes, `or`, `-word` work as on a search engine).
 */
import { LaconicError } from '../core/index.js'
import { checkEmbedding } from '../kb/store-checks.js'
import { chunkOfRow, type ChunkFields, type DocumentRow, storedDocument } from '../kb/store-rows.js'
import type { Chunk, VectorStore } from '../kb/vector-store.js'
import { connectionOf, type Connection, type PgPool, type PgQueryable } from './connection.js'

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

const STORE = 'postgresVectorStore'
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/
/** Rows of one INSERT: Postgres takes at most 65,535 parameters a statement. */
const ROWS_PER_INSERT = 500
const CHUNK_COLUMNS = 'id, document_id, url, title, headings, position, text, embedding::text AS embedding'
const CHUNK_TABLE_COLUMNS = (vectorType: string) =>
  `id text PRIMARY KEY, document_id text NOT NULL, url text NOT NULL, title text NOT NULL, headings text NOT NULL,
   position integer NOT NULL, text text NOT NULL, embedding ${vectorType} NOT NULL, search tsvector NOT NULL`

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
        for (let start = 0; start < chunks.length; start += ROWS_PER_INSERT)
          await insertChunks(query, names, language, chunks.slice(start, start + ROWS_PER_INSERT))
      })
    },

    async removeDocument(documentId) {
      await (await open()).transaction(async (query) => {
        await query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey])
        await query(`DELETE FROM ${names.chunks} WHERE document_id = $1`, [documentId])
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
      const rows = await query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS}, 1 - (embedding <=> $1::vector) AS score FROM ${names.chunks} ORDER BY embedding <=> $1::vector LIMIT $2`,
        [vectorLiteral(vector), Math.floor(limit)],
      )
      return rows.map((row) => ({ chunk: chunkOf(row), score: Number(row.score) }))
    },

    async searchByText(text, limit) {
      const query = (await open()).query
      if (limit <= 0 || !text.trim()) return []
      const rows = await query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS}, ts_rank(search, q) AS score FROM ${names.chunks}, websearch_to_tsquery($1::regconfig, $2) AS q
         WHERE search @@ q ORDER BY score DESC, id LIMIT $3`,
        [language, text, Math.floor(limit)],
      )
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

type Names = { documents: string; chunks: string; prefix: string }

function tableNames(table: string): Names {
  const parts = table.split('.')
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part)))
    throw new LaconicError(`${STORE}: \`table\` must be a lower-case name or schema.name, got ${JSON.stringify(table)}`, {
      code: 'config',
      hint: "e.g. 'kb' or 'search.kb'",
    })
  return { documents: `${table}_documents`, chunks: `${table}_chunks`, prefix: parts.at(-1) as string }
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
       indexed_at text NOT NULL, model text NOT NULL, dimensions integer NOT NULL)`,
  )
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
  await query(`CREATE INDEX ${names.prefix}_chunks_search ON ${names.chunks} USING gin (search)`)
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
    return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}::vector, to_tsvector($1::regconfig, ${p(9)}))`
  })
  await query(`INSERT INTO ${names.chunks} (id, document_id, url, title, headings, position, text, embedding, search) VALUES ${rows.join(', ')}`, values)
}

/** pgvector's text form, `[1,2.5,-3]`. */
function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`
}

function chunkOf(row: ChunkRow): Chunk {
  // pgvector's text form is a JSON array of numbers.
  return chunkOfRow(row, Float32Array.from(JSON.parse(row.embedding) as number[]))
}
