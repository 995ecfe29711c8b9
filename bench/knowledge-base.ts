/**
 * The knowledge base at 10,000 chunks: a folder of 2,000 generated markdown files (five
 * sections each) indexed through an embedding fake with a fixed latency per call (a local
 * embedding server's batch), then indexed again unchanged, then 1,000 hybrid queries (vector +
 * full text, fused). The targets: query p99 ≤ 50 ms at 10,000 chunks, and re-indexing
 * an unchanged folder ≤ 5% of the first index's time. Each store that is available is measured:
 * the in-memory one always, LanceDB and PGlite when their sub-paths and packages are there.
 *
 * Queries embed with no latency: the query's own embedding is the model's time, the same for
 * every store; what is measured is retrieval (both searches, fusion, results). No network.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { EmbeddingProvider } from '../src/core/contracts/embeddings.js'
import { knowledgeBase, memoryVectorStore, type VectorStore } from '../src/kb/index.js'
import { fakeVector } from '../test/kb/fake-vector.js'
import { percentile, round } from './stats.js'
import { pick, random, vocabulary, zipf } from './made-up-words.js'

const FILES = 2_000
const SECTIONS = 5
const QUERIES = 1_000
const DIMENSIONS = 384
/** One embedding call's latency, whatever its batch: a local server embedding 64 short texts. */
const EMBED_LATENCY_MS = 25
const QUERY_P99_MS = 50
const REINDEX_SHARE = 0.05
/** `kb.search` on the table `kb.index()` leaves, over LanceDB's own hybrid search on a compacted copy (issue 35). */
const RAW_RATIO = 1.3
/** Candidates a side, as `kb.search` asks for 8 results. */
const CANDIDATES = 32

const SUBJECTS = ['llama', 'alpaca', 'vicuña', 'guanaco', 'camel', 'yak', 'reindeer', 'bison', 'tapir', 'okapi', 'quokka', 'wombat']
const TOPICS = ['diet', 'habitat', 'migration', 'breeding', 'wool', 'altitude', 'water', 'predators', 'herds', 'domestication', 'disease', 'climate']

/** A file of SECTIONS headed sections of about 600 characters: one chunk each. */
function file(n: number, words: readonly string[], rand: () => number): string {
  const word = () => zipf(words, rand)
  const sentence = () => `${Array.from({ length: 10 }, () => (rand() < 0.2 ? pick(SUBJECTS, rand) : word())).join(' ')}.`
  const sections = Array.from({ length: SECTIONS }, (_, s) => `## ${pick(TOPICS, rand)} ${s}\n\n${Array.from({ length: 9 }, sentence).join(' ')}`)
  return `# ${pick(SUBJECTS, rand)} notes ${n}\n\n${sections.join('\n\n')}\n`
}

/** The embedding fake: `fakeVector`s after a fixed wait per call; counts what it embedded. */
function slowEmbedder(latencyMs: number): EmbeddingProvider & { texts: number } {
  return {
    model: 'bench-embed',
    dimensions: DIMENSIONS,
    texts: 0,
    async embed(texts) {
      this.texts += texts.length
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs))
      return { vectors: texts.map((text) => fakeVector(text, DIMENSIONS)) }
    },
  }
}

interface StoreCase {
  store: string
  open(folder: string): Promise<VectorStore>
  /** Ends what the store does not own (PGlite's database). */
  close?: () => Promise<void>
  /** The store's own hybrid search on a compacted copy of what was indexed, to compare with (LanceDB). */
  raw?: (folder: string) => Promise<RawSearch>
}

interface RawSearch {
  /** What the copy held before it was compacted: the table as `kb.index()` left it. */
  before: Record<string, number>
  search(query: string): Promise<number>
  close(): void
}

/**
 * LanceDB's hybrid query (vector and full text, fused by LanceDB's reciprocal-rank reranker) on a
 * copy of the store's folder compacted by hand: what the store's search should come close to.
 */
async function rawLance(storeFolder: string): Promise<RawSearch> {
  const lancedb = await import('@lancedb/lancedb')
  const copy = `${storeFolder}-compacted`
  await cp(join(storeFolder, 'lance'), copy, { recursive: true })
  const db = await lancedb.connect(copy)
  const table = await db.openTable('kb_chunks')
  const stats = await table.stats()
  const unindexed = async () => {
    const counts = await Promise.all((await table.listIndices()).map(async (index) => (await table.indexStats(index.name))?.numUnindexedRows ?? 0))
    return Math.max(0, ...counts)
  }
  const before = { fragments: stats.fragmentStats.numFragments, smallFragments: stats.fragmentStats.numSmallFragments, unindexedRows: await unindexed() }
  await table.optimize()
  return {
    before,
    async search(query) {
      const rows = await table
        .query()
        .nearestTo(unitVector(fakeVector(query, DIMENSIONS)))
        .distanceType('dot')
        .fullTextSearch(query, { columns: ['search_text'] })
        .limit(CANDIDATES)
        .toArray()
      return rows.length
    },
    close() {
      table.close()
      db.close()
    },
  }
}

function unitVector(vector: Float32Array): Float32Array {
  const length = Math.hypot(...vector)
  return length > 0 ? vector.map((value) => value / length) : vector
}

/**
 * The stores to measure: those whose module loads here, or only those `BENCH_KB_STORES` names
 * (`memory`, `lancedb`, `pglite`, comma-separated) when it is set.
 */
async function storeCases(): Promise<StoreCase[]> {
  const wanted = process.env.BENCH_KB_STORES?.toLowerCase().split(',')
  return (await availableStores()).filter((storeCase) => !wanted || wanted.some((name) => storeCase.store.toLowerCase().startsWith(name.trim())))
}

async function availableStores(): Promise<StoreCase[]> {
  const cases: StoreCase[] = [{ store: 'memory', open: async () => memoryVectorStore() }]
  const lance = await import('../src/lancedb/index.js' as string).catch(() => undefined)
  if (lance) cases.push({ store: 'LanceDB', open: async (folder) => lance.lanceVectorStore({ path: join(folder, 'lance') }), raw: rawLance })
  const postgres = await import('../src/postgres/index.js' as string).catch(() => undefined)
  const pglite = await import('@electric-sql/pglite' as string).catch(() => undefined)
  const vector = await import('@electric-sql/pglite/vector' as string).catch(() => undefined)
  if (postgres && pglite && vector) {
    let db: { close(): Promise<void> } | undefined
    cases.push({
      store: 'PGlite (pgvector)',
      open: async () => {
        db = await pglite.PGlite.create({ extensions: { vector: vector.vector } })
        return postgres.postgresVectorStore({ client: db })
      },
      close: async () => db?.close(),
    })
  }
  return cases
}

async function measure(storeCase: StoreCase, docs: string, storeFolder: string, queries: readonly string[]): Promise<Record<string, unknown>[]> {
  const store = await storeCase.open(storeFolder)
  const slow = slowEmbedder(EMBED_LATENCY_MS)
  const kb = knowledgeBase({ store, embed: slow })

  let started = performance.now()
  const first = await kb.index([docs])
  const indexMs = performance.now() - started
  started = performance.now()
  const again = await kb.index([docs])
  const reindexMs = performance.now() - started
  if (again.chunks !== 0) throw new Error(`re-indexing an unchanged folder embedded ${again.chunks} chunks`)

  const fast = knowledgeBase({ store, embed: slowEmbedder(0) })
  const raw = await storeCase.raw?.(storeFolder)
  const timings: number[] = []
  const rawTimings: number[] = []
  let results = 0
  // Alternated query by query with the raw search, when there is one: the machine's load falls on both.
  for (const query of queries) {
    let at = performance.now()
    results += (await fast.search(query, { limit: 8 })).length
    timings.push(performance.now() - at)
    if (!raw) continue
    at = performance.now()
    await raw.search(query)
    rawTimings.push(performance.now() - at)
  }
  raw?.close()
  await kb.close()
  await storeCase.close?.()
  const p99 = percentile(timings, 99)
  const ratio = percentile(timings, 50) / percentile(rawTimings, 50)
  const rawRows = raw
    ? [
        {
          store: storeCase.store,
          measure: `${queries.length} LanceDB hybrid queries on a compacted copy (${raw.before.fragments} fragments, ${raw.before.unindexedRows} rows outside an index before)`,
          p50Ms: round(percentile(rawTimings, 50), 2),
          p99Ms: round(percentile(rawTimings, 99), 2),
          searchOverRaw: round(ratio, 2),
          target: `kb.search p50 ≤ ${RAW_RATIO}× this`,
          met: ratio <= RAW_RATIO,
        },
      ]
    : []
  return [
    {
      store: storeCase.store,
      measure: `index ${first.chunks} chunks (${FILES} files), ${EMBED_LATENCY_MS} ms per embedding call`,
      seconds: round(indexMs / 1000, 2),
      embeddingsPerSecond: Math.round((first.chunks * 1000) / indexMs),
      target: '',
    },
    {
      store: storeCase.store,
      measure: 're-index the unchanged folder',
      seconds: round(reindexMs / 1000, 2),
      shareOfFirst: round(reindexMs / indexMs, 3),
      target: `≤ ${REINDEX_SHARE * 100}% of the first index`,
      met: reindexMs <= REINDEX_SHARE * indexMs,
    },
    {
      store: storeCase.store,
      measure: `${queries.length} hybrid queries`,
      p50Ms: round(percentile(timings, 50), 2),
      p99Ms: round(p99, 2),
      meanResults: round(results / queries.length, 1),
      target: `p99 ≤ ${QUERY_P99_MS} ms`,
      met: p99 <= QUERY_P99_MS,
    },
    ...rawRows,
  ]
}

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[] }> {
  const rand = random(7)
  const words = vocabulary(5_000, rand)
  const folder = await mkdtemp(join(tmpdir(), 'laconic-bench-kb-'))
  try {
    await mkdir(join(folder, 'docs'))
    for (let n = 0; n < FILES; n++) await writeFile(join(folder, 'docs', `note-${n}.md`), file(n, words, rand))
    const queries = Array.from({ length: QUERIES }, () =>
      [pick(SUBJECTS, rand), ...Array.from({ length: 1 + Math.floor(rand() * 2) }, () => words[50 + Math.floor(rand() * 1950)] as string)].join(' '),
    )
    const rows: Record<string, unknown>[] = []
    for (const storeCase of await storeCases()) {
      rows.push(...(await measure(storeCase, join(folder, 'docs'), await mkdtemp(join(folder, 'store-')), queries)))
    }
    return { name: 'knowledge-base', rows }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}
