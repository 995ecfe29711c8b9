/**
 * Ranking quality on a public IR benchmark with relevance judgements: BEIR's SciFact, test split
 * (300 scientific claims, 5,183 abstracts, 339 judgements; bench/data/scifact, see its
 * PROVENANCE.md). Every lexical ranker laconic ships ranks the abstracts (title and text) for
 * each claim: `localCorpus`, and the knowledge base's text side on each store that loads here
 * (memory, LanceDB, Postgres on PGlite), one chunk an abstract. The score is nDCG@10 (gain the
 * judged relevance, log2 discount, the ideal from the judgements), averaged over the queries; the
 * target is the BEIR paper's BM25 figure, 0.665. No network: the data is on disk.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { localCorpus } from '../src/adapters/index.js'
import { memoryVectorStore, type VectorStore } from '../src/kb/index.js'
import type { Chunk } from '../src/kb/vector-store.js'
import { mean, round } from './stats.js'

/** The BEIR paper's BM25 (Elasticsearch) nDCG@10 on SciFact. */
const TARGET = 0.665
const K = 10

interface Abstract {
  _id: string
  title: string
  text: string
}

interface Query {
  _id: string
  text: string
}

/** Per query, the judged documents and their relevance. */
export type Judgements = Map<string, Map<string, number>>

/**
 * nDCG@k of one ranking: Σ rel(i) / log2(i + 1) over the first k ranks (from 1), divided by the
 * same sum over the judged relevances in their best order. 0 when nothing is judged relevant.
 * A document listed twice counts once, at its first rank.
 */
export function ndcg(ranked: readonly string[], judged: ReadonlyMap<string, number>, k = K): number {
  const seen = new Set<string>()
  let dcg = 0
  let rank = 0
  for (const id of ranked) {
    if (rank >= k) break
    if (seen.has(id)) continue
    seen.add(id)
    rank++
    dcg += (judged.get(id) ?? 0) / Math.log2(rank + 1)
  }
  const ideal = [...judged.values()]
    .filter((relevance) => relevance > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, relevance, at) => sum + relevance / Math.log2(at + 2), 0)
  return ideal > 0 ? dcg / ideal : 0
}

/** BEIR's qrels TSV (a header, then `query-id corpus-id score`) as judgements. */
export function parseQrels(tsv: string): Judgements {
  const judgements: Judgements = new Map()
  for (const line of tsv.split('\n').slice(1)) {
    const [query, doc, score] = line.trim().split('\t')
    if (!query || !doc || score === undefined) continue
    const judged = judgements.get(query) ?? new Map<string, number>()
    judgements.set(query, judged.set(doc, Number(score)))
  }
  return judgements
}

const dataDir = new URL('./data/scifact/', import.meta.url)
const gunzipped = async (name: string) => gunzipSync(await readFile(new URL(name, dataDir))).toString('utf8')
const jsonLines = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T)

/** A ranker: the ids of the best `K` abstracts for a query, best first. */
type Rank = (query: string) => Promise<string[]>

interface Ranker {
  name: string
  /** Indexes the abstracts; the returned function ranks, `close` ends what it opened. */
  open(abstracts: readonly Abstract[], folder: string): Promise<{ rank: Rank; close(): Promise<void> }>
}

const MODEL = { model: 'none', dimensions: 2 }

/** The abstracts into a store, one chunk each (title, text; a vector the text side never reads). */
async function fill(store: VectorStore, abstracts: readonly Abstract[]): Promise<void> {
  const puts = abstracts.map((abstract) => {
    const chunk: Chunk = {
      id: `${abstract._id}#0`,
      documentId: abstract._id,
      url: `scifact:${abstract._id}`,
      title: abstract.title,
      headings: [],
      position: 0,
      text: abstract.text,
      vector: Float32Array.from([1, 0]),
    }
    const document = { id: abstract._id, url: chunk.url, title: abstract.title, hash: abstract._id, chunks: 1, indexedAt: '2026-01-01T00:00:00.000Z' }
    return store.putDocument(document, [chunk], MODEL)
  })
  await Promise.all(puts)
}

const storeRanker = (name: string, make: (folder: string) => Promise<{ store: VectorStore; close?: () => Promise<void> }>): Ranker => ({
  name,
  async open(abstracts, folder) {
    const { store, close } = await make(folder)
    await fill(store, abstracts)
    return {
      rank: async (query) => (await store.searchByText(query, K)).map((hit) => hit.chunk.documentId),
      async close() {
        await store.close()
        await close?.()
      },
    }
  },
})

async function rankers(): Promise<Ranker[]> {
  const list: Ranker[] = [
    {
      name: 'localCorpus',
      async open(abstracts) {
        const corpus = localCorpus({ documents: abstracts.map((abstract) => ({ id: abstract._id, title: abstract.title, text: abstract.text })) })
        // The corpus is indexed on its first search.
        await corpus.search('index', { limit: 1 })
        return {
          rank: async (query) => (await corpus.search(query, { limit: K })).map((result) => decodeURIComponent(result.url.replace(/^local\//, ''))),
          close: async () => undefined,
        }
      },
    },
    storeRanker('knowledge base, memory store', async () => ({ store: memoryVectorStore() })),
  ]
  const lance = await import('../src/lancedb/index.js' as string).catch(() => undefined)
  if (lance)
    list.push(
      storeRanker('knowledge base, LanceDB', async (folder) => ({
        store: lance.lanceVectorStore({ path: join(folder, 'lance'), indexFrom: Number.POSITIVE_INFINITY }),
      })),
    )
  const postgres = await import('../src/postgres/index.js' as string).catch(() => undefined)
  const pglite = await import('@electric-sql/pglite' as string).catch(() => undefined)
  const vector = await import('@electric-sql/pglite/vector' as string).catch(() => undefined)
  if (postgres && pglite && vector) {
    list.push(
      storeRanker('knowledge base, Postgres (PGlite)', async () => {
        const db = await pglite.PGlite.create({ extensions: { vector: vector.vector } })
        return { store: postgres.postgresVectorStore({ client: db }), close: () => db.close() }
      }),
    )
  }
  const wanted = process.env.BENCH_SCIFACT_RANKERS?.toLowerCase().split(',')
  return list.filter((ranker) => !wanted || wanted.some((name) => ranker.name.toLowerCase().includes(name.trim())))
}

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[] }> {
  const abstracts = jsonLines<Abstract>(await gunzipped('corpus.jsonl.gz'))
  const queries = jsonLines<Query>(await gunzipped('queries-test.jsonl.gz'))
  const judgements = parseQrels(await gunzipped('qrels-test.tsv.gz'))
  const judgedQueries = queries.filter((query) => judgements.has(query._id))
  const folder = await mkdtemp(join(tmpdir(), 'laconic-bench-scifact-'))
  const rows: Record<string, unknown>[] = []
  try {
    for (const ranker of await rankers()) {
      let started = performance.now()
      const { rank, close } = await ranker.open(abstracts, await mkdtemp(join(folder, 'ranker-')))
      const indexSeconds = (performance.now() - started) / 1000
      started = performance.now()
      const scores: number[] = []
      let empty = 0
      for (const query of judgedQueries) {
        const ranked = await rank(query.text)
        if (ranked.length === 0) empty++
        scores.push(ndcg(ranked, judgements.get(query._id) as Map<string, number>))
      }
      const queryMs = (performance.now() - started) / judgedQueries.length
      await close()
      const score = mean(scores)
      rows.push({
        ranker: ranker.name,
        queries: judgedQueries.length,
        documents: abstracts.length,
        ndcgAt10: round(score, 3),
        noResults: empty,
        indexSeconds: round(indexSeconds, 1),
        msPerQuery: round(queryMs, 1),
        target: `nDCG@10 ≥ ${TARGET} (BEIR's BM25)`,
        met: score >= TARGET,
      })
    }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
  return { name: 'scifact', rows }
}
