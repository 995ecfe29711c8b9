/**
 * `lanceVectorStore({ path })`: a knowledge base's `VectorStore` in a LanceDB folder on disk (the
 * store haiku.rag uses): no server, vectors searched by cosine similarity (stored at length 1;
 * through an IVF index once the table is large), words by LanceDB's full-text (BM25) index. Two tables: `<table>_chunks` (a row a chunk, with its vector) and
 * `<table>_documents` (a row a document, with the model its vectors came from).
 */
import * as lancedb from '@lancedb/lancedb'
import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from 'apache-arrow'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { contentWords } from '../documents/lexical.js'
import { checkEmbedding, type EmbeddingInfo } from '../kb/store-checks.js'
import { chunkFields, chunkOfRow, type ChunkFields, type DocumentRow, documentRow, storedDocument } from '../kb/store-rows.js'
import type { Chunk, ScoredChunk, StoredDocument, VectorStore } from '../kb/vector-store.js'

/** Options of `lanceVectorStore()`: where the tables live and what they are called. */
export interface LanceVectorStoreOptions {
  /** A folder (created when missing), or any URI LanceDB connects to (`s3://bucket/kb`). */
  path: string
  /**
   * The tables' name prefix: several knowledge bases can share one folder.
   * @defaultValue `'kb'` (tables `kb_chunks` and `kb_documents`)
   */
  table?: string | undefined
  /**
   * Writes between two compactions of the tables (which also fold new rows into the full-text
   * index): each write adds a file, and a search reads them all.
   * @defaultValue 50
   */
  optimizeEvery?: number | undefined
  /**
   * Chunks from which vector search goes through an IVF index (built at a compaction, trained
   * anew when the table has grown fourfold) instead of comparing the query with every chunk.
   * The index is approximate: a search probes the closest partitions, so a near chunk in an
   * unprobed one can be missed (about 97 in 100 of the exact top 32 found at 10,000 chunks).
   * `Infinity` keeps every search exact.
   * @defaultValue 5000
   */
  indexFrom?: number | undefined
}

interface ChunkRow extends ChunkFields {
  /** Title, headings and text: what the full-text index searches. */
  search_text: string
  vector: Float32Array
}

interface Opened {
  db: lancedb.Connection
  documents: lancedb.Table
  /** Absent until the first document fixes the vectors' width. */
  chunks: lancedb.Table | undefined
  /** The width of the chunks table's vectors (0 while there is no table), read once rather than on every search. */
  width: number
  /** The chunks the vector index was trained on (0: no index yet). */
  indexed: number
}

const STORE = 'lanceVectorStore'

/** A `putDocument` waiting for its group's commit. */
interface QueuedPut {
  document: StoredDocument
  chunks: readonly Chunk[]
  info: EmbeddingInfo
  resolve(): void
  reject(error: unknown): void
}

/**
 * A `VectorStore` in a LanceDB folder. Opening is lazy (the first call connects and creates the
 * tables); writes from this process run one at a time.
 *
 * `putDocument` replaces a document's chunks in one LanceDB commit (a merge-insert that also
 * deletes the chunks the new version no longer has), so a search sees the old chunks or the new,
 * never a mix; the document's record is written in a second commit just after. A crash between
 * the two leaves the new chunks under the old record (the old hash), so the next indexing of that
 * document re-embeds it and writes both again. Puts that wait behind another write are committed
 * together (a commit costs tens of milliseconds, whatever its size).
 */
export function lanceVectorStore(options: LanceVectorStoreOptions): VectorStore {
  const names = tableNames(options)
  const optimizeEvery = options.optimizeEvery ?? 50
  const indexFrom = options.indexFrom ?? 5_000
  let opening: Promise<Opened> | undefined
  let closed = false
  let writes: Promise<unknown> = Promise.resolve()
  let writesSinceOptimize = 0
  /** Puts waiting for their commit, which later puts join until another write is queued. */
  let openGroup: QueuedPut[] | undefined

  const open = (): Promise<Opened> => {
    if (closed) throw new LaconicError(`${STORE}: the store is closed`, { code: 'config', hint: 'create a new store' })
    opening ??= connect(options.path, names).catch((error: unknown) => {
      opening = undefined
      throw error
    })
    return opening
  }
  /** Runs `write` after the writes before it, whatever became of them. */
  const serially = <T>(write: () => Promise<T>): Promise<T> => {
    const next = writes.then(write, write)
    writes = next.catch(() => undefined)
    return next
  }
  /** Compacts both tables (which also folds new rows into the full-text index) and trains the vector index when due. */
  const optimizeNow = async (opened: Opened) => {
    writesSinceOptimize = 0
    await Promise.all([opened.chunks?.optimize(), opened.documents.optimize()])
    await indexVectors(opened, indexFrom)
  }
  const afterWrite = async (opened: Opened, count = 1) => {
    writesSinceOptimize += count
    if (writesSinceOptimize >= optimizeEvery) await optimizeNow(opened)
  }

  return {
    async embedding() {
      const { documents } = await open()
      const [row] = (await documents.query().select(['model', 'dimensions']).limit(1).toArray()) as DocumentRow[]
      return row && { model: row.model, dimensions: row.dimensions }
    },

    putDocument(document, chunks, info) {
      return new Promise<void>((resolve, reject) => {
        const put: QueuedPut = { document, chunks, info, resolve, reject }
        if (openGroup) {
          openGroup.push(put)
          return
        }
        const group = [put]
        openGroup = group
        serially(async () => {
          if (openGroup === group) openGroup = undefined
          await commitPuts(await open(), group, names.chunks, afterWrite)
        }).catch((error: unknown) => {
          for (const queued of group) queued.reject(error)
        })
      })
    },

    removeDocument(documentId) {
      openGroup = undefined
      return serially(async () => {
        const opened = await open()
        await opened.chunks?.delete(`document_id = ${sql(documentId)}`)
        await opened.documents.delete(`id = ${sql(documentId)}`)
        await afterWrite(opened)
      })
    },

    optimize() {
      // After the writes queued before it; nothing to do when none came since the last compaction.
      return serially(async () => {
        if (writesSinceOptimize > 0) await optimizeNow(await open())
      })
    },

    async documents() {
      const { documents } = await open()
      return ((await documents.query().toArray()) as DocumentRow[]).map(storedDocument)
    },

    async searchByVector(vector, limit) {
      const opened = await open()
      const { chunks } = opened
      if (!chunks || limit <= 0 || !vector.some((n) => n !== 0) || vector.length !== opened.width) return []
      const rows = (await chunks.query().nearestTo(unit(vector)).distanceType('dot').limit(limit).toArray()) as Array<ChunkRow & { _distance: number }>
      // Unit vectors' dot distance is 1 − their cosine similarity: the score is the similarity.
      return rows.map((row) => ({ chunk: chunkOf(row), score: 1 - row._distance }))
    },

    async searchByText(query, limit) {
      const { chunks } = await open()
      // The shared English stop words go before LanceDB sees the query: its own list is shorter
      // ("what", "how" stay), and a question's words would outrank its topic.
      const words = contentWords(query).join(' ')
      if (!chunks || limit <= 0 || !words) return []
      const rows = (await chunks
        .query()
        .fullTextSearch(words, { columns: ['search_text'] })
        .limit(limit)
        .toArray()) as Array<ChunkRow & { _score: number }>
      return rows.map((row): ScoredChunk => ({ chunk: chunkOf(row), score: row._score }))
    },

    async chunksAround(documentId, from, to) {
      const { chunks } = await open()
      if (!chunks || to < from) return []
      const rows = (await chunks
        .query()
        .where(`document_id = ${sql(documentId)} AND position >= ${Math.ceil(from)} AND position <= ${Math.floor(to)}`)
        .toArray()) as ChunkRow[]
      return rows.map(chunkOf).sort((a, b) => a.position - b.position)
    },

    async close() {
      closed = true
      await writes
      const opened = await opening?.catch(() => undefined)
      opening = undefined
      if (!opened) return
      opened.chunks?.close()
      opened.documents.close()
      opened.db.close()
    },
  }
}

/** The two tables' names, from the options' `table` prefix; a missing `path` or a bad prefix is a `config` error. */
function tableNames(options: LanceVectorStoreOptions): { chunks: string; documents: string } {
  if (typeof options?.path !== 'string' || options.path === '')
    throw new LaconicError(`${STORE}: \`path\` is required`, { code: 'config', hint: 'lanceVectorStore({ path: "./kb.lance" })' })
  const prefix = options.table ?? 'kb'
  if (!/^[A-Za-z][\w-]*$/.test(prefix))
    throw new LaconicError(`${STORE}: \`table\` must be letters, digits, _ or -, starting with a letter; got ${JSON.stringify(prefix)}`, { code: 'config' })
  return { chunks: `${prefix}_chunks`, documents: `${prefix}_documents` }
}

/**
 * Writes a group of puts as two commits (chunks, then records): each put is checked on its own
 * (a refused one fails alone), a document put twice keeps its last version, and every put of
 * the group settles with the commits.
 */
async function commitPuts(
  opened: Opened,
  group: readonly QueuedPut[],
  chunksName: string,
  afterWrite: (opened: Opened, count: number) => Promise<void>,
): Promise<void> {
  const [current] = (await opened.documents.query().select(['model', 'dimensions']).limit(1).toArray()) as DocumentRow[]
  let built: EmbeddingInfo | undefined = current && { model: current.model, dimensions: current.dimensions }
  const latest = new Map<string, QueuedPut>()
  for (const put of group) {
    try {
      checkEmbedding(STORE, built, put.info, put.chunks)
      built = { model: put.info.model, dimensions: put.info.dimensions }
      latest.set(put.document.id, put)
    } catch (error) {
      put.reject(error)
    }
  }
  const accepted = group.filter((put) => latest.has(put.document.id))
  if (!built || accepted.length === 0) return
  try {
    const ids = [...latest.keys()].map(sql).join(', ')
    const table = await chunksTable(opened, chunksName, built)
    const rows: Array<Record<string, unknown>> = [...latest.values()].flatMap((put) => put.chunks.map(chunkRow))
    // A merge with no rows would not run its delete: documents of no chunks delete plainly.
    if (rows.length > 0) {
      await table
        .mergeInsert('id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .whenNotMatchedBySourceDelete({ where: `document_id IN (${ids})` })
        .execute(rows)
    } else await table.delete(`document_id IN (${ids})`)
    await opened.documents
      .mergeInsert('id')
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute([...latest.values()].map((put) => documentRow(put.document, put.info) as unknown as Record<string, unknown>))
    await afterWrite(opened, latest.size)
    for (const put of accepted) put.resolve()
  } catch (error) {
    for (const put of accepted) put.reject(error)
  }
}

async function connect(path: string, names: { chunks: string; documents: string }): Promise<Opened> {
  const db = await lancedb.connect(path)
  const documents = await db.createEmptyTable(names.documents, documentSchema(), { existOk: true })
  const chunks = (await db.tableNames()).includes(names.chunks) ? await db.openTable(names.chunks) : undefined
  return { db, documents, chunks, width: chunks ? await width(chunks) : 0, indexed: chunks ? await indexedChunks(chunks) : 0 }
}

const VECTOR_INDEX = 'vector_idx'

/**
 * Builds the chunks' vector index once there are `indexFrom` of them, and trains it anew when
 * they have grown fourfold since (an IVF index keeps the partitions it was trained with: rows
 * added later only fill them up, and a search probes a fixed number of partitions). Rows written
 * between two compactions are searched exactly beside the index.
 */
async function indexVectors(opened: Opened, indexFrom: number): Promise<void> {
  const table = opened.chunks
  if (!table) return
  const rows = await table.countRows()
  if (rows < indexFrom || (opened.indexed > 0 && rows < opened.indexed * 4)) return
  // √rows partitions, a search probing 20 of them (LanceDB's default): about a fifth of 10,000 chunks.
  const config = lancedb.Index.ivfFlat({ distanceType: 'dot', numPartitions: Math.max(1, Math.round(Math.sqrt(rows))) })
  await table.createIndex('vector', { config, replace: true, name: VECTOR_INDEX })
  opened.indexed = rows
}

/**
 * 0 without a vector index; with one, the chunks there are now, which a fresh store takes for
 * those it was trained on (LanceDB does not keep that number; its index statistics would).
 */
async function indexedChunks(table: lancedb.Table): Promise<number> {
  const indices = await table.listIndices()
  return indices.some((index) => index.name === VECTOR_INDEX) ? await table.countRows() : 0
}

/**
 * The chunks table for vectors of `info.dimensions`: created on the first write; made anew when
 * the store was emptied and the next model's vectors have another width.
 */
async function chunksTable(opened: Opened, name: string, info: EmbeddingInfo): Promise<lancedb.Table> {
  if (opened.chunks && opened.width === info.dimensions) return opened.chunks
  if (opened.chunks) {
    // checkEmbedding let another width through: no document is left, so neither is a chunk.
    opened.chunks.close()
    await opened.db.dropTable(name)
  }
  const table = await opened.db.createEmptyTable(name, chunkSchema(info.dimensions), { existOk: true })
  // English terms as the other stores rank them: stop words dropped, words stemmed (set here, not left to LanceDB's defaults).
  const fts = lancedb.Index.fts({ language: 'English', stem: true, removeStopWords: true, lowercase: true, asciiFolding: true })
  await table.createIndex('search_text', { config: fts, replace: true })
  opened.chunks = table
  opened.width = info.dimensions
  opened.indexed = 0
  return table
}

async function width(table: lancedb.Table): Promise<number> {
  // Read by shape: LanceDB (CommonJS) returns its own copy of apache-arrow's classes.
  const type = (await table.schema()).fields.find((field) => field.name === 'vector')?.type as { listSize?: unknown } | undefined
  return typeof type?.listSize === 'number' ? type.listSize : 0
}

function chunkSchema(dimensions: number): Schema {
  const text = (name: string) => new Field(name, new Utf8(), false)
  return new Schema([
    text('id'),
    text('document_id'),
    text('url'),
    text('title'),
    text('headings'),
    new Field('position', new Int32(), false),
    text('text'),
    text('search_text'),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ])
}

function documentSchema(): Schema {
  const text = (name: string) => new Field(name, new Utf8(), false)
  return new Schema([
    text('id'),
    text('url'),
    text('title'),
    text('hash'),
    new Field('chunks', new Int32(), false),
    text('indexed_at'),
    text('model'),
    new Field('dimensions', new Int32(), false),
  ])
}

function chunkRow(chunk: Chunk): Record<string, unknown> & ChunkRow {
  return { ...chunkFields(chunk), search_text: [chunk.title, ...chunk.headings, chunk.text].join('\n'), vector: unit(chunk.vector) }
}

/**
 * The vector scaled to length 1 (all zeros stays all zeros). Stored and queried that way, a dot
 * product is the cosine similarity: LanceDB computes it without a norm per row, twice as fast.
 */
function unit(vector: Float32Array): Float32Array {
  let squares = 0
  for (const value of vector) squares += value * value
  const length = Math.sqrt(squares)
  return length > 0 ? vector.map((value) => value / length) : Float32Array.from(vector)
}

function chunkOf(row: ChunkRow): Chunk {
  const vector = row.vector as unknown as { toArray(): Float32Array }
  return chunkOfRow(row, Float32Array.from(vector.toArray()))
}

/** A string as a SQL literal in a LanceDB filter. */
function sql(value: string): string {
  return `'${value.replace(/'/g, "''")}'`
}
