/**
 * `knowledgeBase({ store, embed })`: documents indexed once into a vector store, and searched by
 * meaning and by words at once. The object is a `SearchProvider` every strategy can use, and a
 * `FetchProvider` for its own documents' URLs (a strategy "reads" a hit as it reads a page).
 *
 * A search runs both retrievers (the query's vector against the chunks', and full text), fuses
 * their rankings by reciprocal rank fusion, keeps each retriever's best hit whatever the fusion
 * says (a document only one retriever can find is still found), optionally reranks, and joins
 * neighbouring chunks into each hit's snippet when asked to.
 */
import { LaconicError, ProviderError, abortError, isAbortError } from '../core/contracts/laconic-error.js'
import { chooseWindows, OMITTED } from '../documents/passages.js'
import { pageOfUrl } from '../documents/document-pages.js'
import { rankTexts } from '../documents/lexical.js'
import type { EmbeddingProvider } from '../core/contracts/embeddings.js'
import { embeddingUsage } from '../core/contracts/provider-usage.js'
import type { FetchedPage, FetchOptions, FetchProvider, SearchOptions, SearchProvider, SearchResult } from '../core/contracts/providers.js'
import { DEFAULT_EXTENSIONS } from '../documents/local-document.js'
import { type IndexOptions, type IndexReport, indexSources } from './indexer.js'
import { reciprocalRankFusion } from '../documents/rank-fusion.js'
import { reassemble } from '../documents/reassemble.js'
import { completeOrder, type Reranker } from './reranker.js'
import type { KnowledgeSource } from './knowledge-sources.js'
import type { Chunk, ScoredChunk, StoredDocument, VectorStore } from './vector-store.js'

/** Something the knowledge base worked around rather than failed on: a reranker that failed or answered nothing usable. */
export interface KnowledgeBaseWarning {
  code: 'rerank-failed' | 'rerank-unparsed'
  message: string
}

/** Options of `knowledgeBase()`: where chunks are kept, how they are embedded, and how searches rank and show them. */
export interface KnowledgeBaseOptions {
  readonly store: VectorStore
  readonly embed: EmbeddingProvider
  /** Reorders the fused candidates (`modelReranker(llm)`, `rerankEndpoint({ baseURL, model })`). */
  readonly reranker?: Reranker
  /** Candidates a reranker sees. @defaultValue 20 (at least the search's `limit`) */
  readonly rerankCandidates?: number
  /**
   * Neighbouring chunks joined into each hit's snippet, in document order: of the `chunks` on
   * each side, those that best match the query (the nearest on a tie) while the snippet stays
   * within `maxChars` (the hit itself always whole, up to `chunkChars`), `[…]` where one between
   * them was left out.
   * @defaultValue no expansion: a snippet is the hit chunk
   */
  readonly expand?: { readonly chunks?: number; readonly maxChars?: number }
  /** Longest chunk, in characters (about a quarter as many tokens). @defaultValue 1000 */
  readonly chunkChars?: number
  /** File endings indexed in a folder. @defaultValue ['.md', '.markdown', '.txt', '.html', '.htm', '.pdf', '.docx'] */
  readonly extensions?: readonly string[]
  /** A larger file is skipped, not read. @defaultValue 50_000_000 */
  readonly maxFileBytes?: number
  /** Reads URL sources. @defaultValue httpFetch() */
  readonly fetch?: FetchProvider
  /** Chunks embedded per call of `embed`. @defaultValue 64 */
  readonly batchSize?: number
  /** Embedding calls in flight at once while indexing. @defaultValue 2 */
  readonly concurrency?: number
  /** Told what a search worked around (a failing reranker). */
  readonly onWarning?: (warning: KnowledgeBaseWarning) => void
}

/** A knowledge base: search and fetch over its documents, and the calls that fill and empty it. */
export interface KnowledgeBase extends SearchProvider, FetchProvider {
  /** Reads, chunks and embeds the sources; unchanged documents cost no embedding. */
  index(sources: readonly KnowledgeSource[], options?: IndexOptions): Promise<IndexReport>
  /** The documents indexed. */
  documents(): Promise<StoredDocument[]>
  /** Removes a document by its id (its URL); false when there was none. */
  remove(id: string): Promise<boolean>
  /** Closes the store. */
  close(): Promise<void>
}

const withoutFragment = (url: string) => url.split('#', 1)[0] as string

function positive(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < min) {
    throw new LaconicError(`knowledgeBase: \`${name}\` must be a number of at least ${min}, got ${value}`, { code: 'config' })
  }
  return Math.floor(value)
}

/** A result's title: the document's, then the headings and page the chunk is under. */
function resultTitle(chunk: Chunk): string {
  const page = pageOfUrl(chunk.url)
  return [chunk.title, ...chunk.headings.filter((heading) => heading !== chunk.title), ...(page ? [`page ${page}`] : [])].join(' › ')
}

/** The first chunk of each URL, in order: one result per place a citation can point at. */
function byUrl(chunks: readonly Chunk[]): Chunk[] {
  const seen = new Set<string>()
  return chunks.filter((chunk) => {
    if (seen.has(chunk.url)) return false
    seen.add(chunk.url)
    return true
  })
}

/**
 * The first `limit` of the fused list, with each retriever's first hit in it: a first hit that
 * fell below the cut takes the place of the last hit that is no retriever's first.
 */
function keepFirsts(fused: readonly Chunk[], firsts: readonly Chunk[], limit: number): Chunk[] {
  const top = fused.slice(0, limit)
  const isFirst = (chunk: Chunk) => firsts.some((first) => first.url === chunk.url)
  for (const first of firsts) {
    if (top.some((chunk) => chunk.url === first.url)) continue
    const replace = top.findLastIndex((chunk) => !isFirst(chunk))
    if (replace === -1) break
    top.splice(replace, 1)
    const at = fused.findIndex((chunk) => chunk.url === first.url)
    // Back in fused order among what is kept.
    const position = top.findIndex((chunk) => fused.findIndex((other) => other.url === chunk.url) > at)
    top.splice(position === -1 ? top.length : position, 0, first)
  }
  return top
}

/** The candidates in the reranker's order; on its failure (or none named), the fused order, with a warning. */
async function rerank(
  reranker: Reranker | undefined,
  onWarning: KnowledgeBaseOptions['onWarning'],
  query: string,
  candidates: Chunk[],
  { signal, onUsage, onWarning: tellRun }: SearchOptions,
): Promise<Chunk[]> {
  if (!reranker || candidates.length < 2) return candidates
  // Told to the knowledge base's owner and to the search's caller (a run makes it a `warning`).
  const warn = (warning: KnowledgeBaseWarning) => {
    onWarning?.(warning)
    tellRun?.(warning)
  }
  try {
    const ranked = await reranker.rerank(
      query,
      candidates.map((chunk) => `${resultTitle(chunk)}\n${chunk.text}`),
      { ...(signal ? { signal } : {}), ...(onUsage ? { onUsage } : {}) },
    )
    if (ranked.length === 0) warn({ code: 'rerank-unparsed', message: 'the reranker named no candidate; the fused order is kept' })
    return completeOrder(ranked, candidates.length).map((index) => candidates[index] as Chunk)
  } catch (error) {
    if (isAbortError(error)) throw error
    warn({ code: 'rerank-failed', message: `reranking failed, the fused order is kept: ${error instanceof Error ? error.message : String(error)}` })
    return candidates
  }
}

/**
 * The hit's text with the neighbours that best match the query (`chooseWindows`, the nearest
 * first on a tie), in document order, within `expandChars`, `[…]` where one was left out
 * between them; the hit itself always whole.
 */
async function snippet(store: VectorStore, chunk: Chunk, query: string, neighbours: number, expandChars: number): Promise<string> {
  if (neighbours === 0) return chunk.text
  const around = (await store.chunksAround(chunk.documentId, chunk.position - neighbours, chunk.position + neighbours)).sort((a, b) => a.position - b.position)
  const hit = around.findIndex((other) => other.position === chunk.position)
  if (hit === -1) return chunk.text
  const texts = around.map((other, index) => (index === hit ? chunk.text : other.text))
  const joined = (chosen: readonly number[]) =>
    chosen
      .map((index, i) => (i > 0 && around[index]!.position !== around[chosen[i - 1]!]!.position + 1 ? `${OMITTED}\n\n${texts[index]}` : texts[index]))
      .join('\n\n')
  const scores = rankTexts(query, texts).map((score, index) => score - Math.abs(index - hit) * 1e-9)
  const chosen = chooseWindows(scores, (trial) => trial.length === 1 || joined(trial).length <= expandChars, hit)
  return joined(chosen)
}

export function knowledgeBase(options: KnowledgeBaseOptions): KnowledgeBase {
  if (!options?.store || !options.embed) {
    throw new LaconicError('knowledgeBase: `store` and `embed` are required', {
      code: 'config',
      hint: 'e.g. knowledgeBase({ store: memoryVectorStore(), embed: openAIEmbeddings({ model }) })',
    })
  }
  const { store, embed, reranker, onWarning } = options
  const chunkChars = positive('chunkChars', options.chunkChars, 1000, 100)
  const batchSize = positive('batchSize', options.batchSize, 64)
  const concurrency = positive('concurrency', options.concurrency, 2)
  const rerankCandidates = positive('rerankCandidates', options.rerankCandidates, 20)
  const neighbours = options.expand ? positive('expand.chunks', options.expand.chunks, 1, 0) : 0
  const expandChars = positive('expand.maxChars', options.expand?.maxChars, 2000, 100)
  const maxFileBytes = positive('maxFileBytes', options.maxFileBytes, 50_000_000)
  let fetcher: Promise<FetchProvider> | undefined
  const settings = {
    store,
    embed,
    chunkChars,
    batchSize,
    concurrency,
    extensions: options.extensions ?? DEFAULT_EXTENSIONS,
    maxFileBytes,
    fetcher: () =>
      (fetcher ??= options.fetch ? Promise.resolve(options.fetch) : import('../adapters/fetch/http-fetch.js').then((module) => module.httpFetch())),
  }

  // The documents by URL, read once and dropped whenever the store changes through this object.
  let catalogue: Promise<Map<string, StoredDocument>> | undefined
  const documentsByUrl = () => {
    catalogue ??= store.documents().then(
      (documents) => new Map(documents.map((document) => [withoutFragment(document.url), document])),
      (error: unknown) => {
        catalogue = undefined
        throw error
      },
    )
    return catalogue
  }

  // The store's model, asked once it has one (not on every search: for LanceDB that is a query
  // of its own); forgotten with the catalogue, whenever this object changes the store.
  let builtWith: { model: string; dimensions: number } | undefined
  const checkModel = async () => {
    builtWith ??= await store.embedding()
    const built = builtWith
    if (built && built.model !== embed.model) {
      throw new LaconicError(`knowledgeBase: the store holds vectors of ${built.model}, and the embedder is ${embed.model}`, {
        code: 'config',
        hint: `search with the model the store was built with (${built.model})`,
      })
    }
    return built
  }

  const vectorHits = async (query: string, limit: number, { signal, onUsage }: SearchOptions): Promise<ScoredChunk[]> => {
    if (!(await checkModel())) return []
    const embedded = await embed.embed([query], signal ? { signal } : {})
    onUsage?.(embeddingUsage(embed.model, embedded))
    const vector = embedded.vectors[0]
    return vector ? store.searchByVector(vector, limit) : []
  }

  return {
    searchCost: 0,

    async search(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
      const { signal } = opts
      if (signal?.aborted) throw abortError(signal)
      const limit = Math.max(1, Math.floor(opts.limit ?? 10))
      if (!query.trim()) return []
      const wanted = Math.max(limit * 4, rerankCandidates, 20)
      const [byVector, byText] = await Promise.all([vectorHits(query, wanted, opts), store.searchByText(query, wanted)])
      if (signal?.aborted) throw abortError(signal)
      const fused = byUrl(reciprocalRankFusion([byVector, byText], (hit) => hit.chunk.id, { score: (hit) => hit.score }).map(({ item }) => item.chunk))
      const firsts = [byVector[0]?.chunk, byText[0]?.chunk].filter((chunk): chunk is Chunk => chunk !== undefined)
      const chosen = reranker
        ? (await rerank(reranker, onWarning, query, fused.slice(0, Math.max(rerankCandidates, limit)), opts)).slice(0, limit)
        : keepFirsts(fused, firsts, limit)
      const results: SearchResult[] = []
      for (const [rank, chunk] of chosen.entries()) {
        results.push({ title: resultTitle(chunk), url: chunk.url, snippet: await snippet(store, chunk, query, neighbours, expandChars), score: 1 / (rank + 1) })
      }
      return results
    },

    async fetch(url: string, opts: FetchOptions = {}): Promise<FetchedPage> {
      if (opts.signal?.aborted) throw abortError(opts.signal)
      const document = (await documentsByUrl()).get(withoutFragment(url))
      if (!document) {
        throw new ProviderError(`knowledgeBase: no document at ${url}`, {
          code: 'not-found',
          provider: 'kb',
          url,
          hint: 'fetch a URL that this knowledge base returned from search',
        })
      }
      const { text, pageStarts } = reassemble(await store.chunksAround(document.id, 0, Math.max(0, document.chunks - 1)))
      return {
        url: document.url,
        title: document.title,
        text,
        ...(pageStarts ? { kind: 'pdf' as const, pageStarts, pages: pageStarts.length } : {}),
      }
    },

    async index(sources, indexOptions = {}) {
      if (!Array.isArray(sources)) {
        throw new LaconicError('knowledgeBase.index: pass a list of sources', { code: 'config', hint: "e.g. kb.index(['./docs'])" })
      }
      try {
        const report = await indexSources(sources, settings, indexOptions)
        // Once, at the end: the store folds what was written into its indexes before searches come.
        await store.optimize?.()
        return report
      } finally {
        catalogue = undefined
        builtWith = undefined
      }
    },

    async documents() {
      return [...(await documentsByUrl()).values()]
    },

    async remove(id) {
      const found = (await store.documents()).some((document) => document.id === id)
      if (found) await store.removeDocument(id)
      catalogue = undefined
      builtWith = undefined
      return found
    },

    close: () => store.close(),
  }
}
