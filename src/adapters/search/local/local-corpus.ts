/**
 * `localCorpus()`: search with no network over a folder or an array of documents, ranked by
 * the shared lexical ranker (BM25 over English terms: stop words dropped, Porter stems, idf) at
 * the granularity of heading/paragraph chunks, each chunk's title searched with its text. The same object is a `FetchProvider` that returns a document's full text, so
 * an agent can read a local source like a web page.
 */
import { LaconicError, ProviderError, abortError } from '../../../core/contracts/laconic-error.js'
import { documentPages, pageUrl } from '../../../documents/document-pages.js'
import type { FetchProvider, FetchedPage, PageWarning, SearchProvider, SearchResult } from '../../../core/contracts/providers.js'
import { contentWords, lexicalIndex, lexicalTerms, type LexicalIndex } from '../../../documents/lexical.js'
import { chunkText } from '../../../documents/chunk.js'
import type { LoadDirectory, LocalDocument, SkippedFileReport } from '../../../documents/local-document.js'
import { NODE_SETUP_HINT, runsOnNode } from '../../../core/util/node-setup.js'
import { snippetAround } from './snippet.js'

/** The options every local corpus takes, whether it reads a folder or in-memory documents. */
export interface LocalCorpusBaseOptions {
  /** Longest chunk, in characters. @defaultValue 1000 */
  readonly chunkChars?: number
  /** Longest snippet, in characters. @defaultValue 240 */
  readonly snippetChars?: number
}

/** Options of `localCorpus()`: a folder of files or a list of documents to search, and how results are cut. */
export type LocalCorpusOptions =
  | (LocalCorpusBaseOptions & {
      /** A folder of `.md`, `.txt`, `.html`, `.pdf` and `.docx` files (Node only), read once on first use. */
      readonly dir: string
      /** @defaultValue ['.md', '.markdown', '.txt', '.html', '.htm', '.pdf', '.docx'] */
      readonly extensions?: readonly string[]
      /**
       * A larger file is skipped before it is read, and reported (see `search`'s `onWarning`).
       * @defaultValue 50_000_000
       */
      readonly maxFileBytes?: number
      readonly documents?: undefined
    })
  | (LocalCorpusBaseOptions & { readonly documents: readonly LocalDocument[]; readonly dir?: undefined })

interface IndexedChunk {
  doc: number
  title: string
  url: string
  text: string
}

type IndexedDocument = Required<Pick<LocalDocument, 'id' | 'title' | 'text' | 'url'>> & Pick<LocalDocument, 'kind' | 'pageStarts'>

interface Corpus {
  docs: IndexedDocument[]
  byUrl: Map<string, number>
  chunks: IndexedChunk[]
  /** Row n is chunk n. */
  index: LexicalIndex
  /** What reading the folder left out, told to the first search given an `onWarning`. */
  unreported: PageWarning[]
}

function titleOf(doc: LocalDocument): string {
  if (doc.title?.trim()) return doc.title.trim()
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(doc.text)?.[1]
  const firstLine = doc.text.trim().split('\n', 1)[0]?.trim() ?? ''
  return (heading ?? firstLine).slice(0, 120) || 'Untitled'
}

function normalize(docs: readonly LocalDocument[]): IndexedDocument[] {
  const ids = new Set<string>()
  return docs.map((doc, position) => {
    const id = doc.id ?? `doc-${position + 1}`
    if (ids.has(id)) throw new LaconicError(`localCorpus: two documents have the id "${id}"`, { code: 'config', hint: 'give every document a unique `id`' })
    ids.add(id)
    return {
      id,
      title: titleOf(doc),
      text: typeof doc.text === 'string' ? doc.text : '',
      url: doc.url ?? `local/${encodeURIComponent(id)}`,
      ...(doc.kind ? { kind: doc.kind } : {}),
      ...(doc.pageStarts ? { pageStarts: doc.pageStarts } : {}),
    }
  })
}

const withoutFragment = (url: string) => url.split('#', 1)[0] as string

/** Files shown by name in one warning; the rest are counted. */
const NAMED_FILES = 10

/**
 * The files a folder's reading left out, as warnings: one per reason, naming its files (fifty
 * DOCX files without mammoth are one warning with one install hint, not fifty).
 */
function skippedWarnings(skipped: readonly SkippedFileReport[]): PageWarning[] {
  const byReason = new Map<string, SkippedFileReport[]>()
  for (const file of skipped) {
    const key = `${file.code}\0${file.message}`
    byReason.set(key, [...(byReason.get(key) ?? []), file])
  }
  return [...byReason.values()].map((files) => {
    const { code, message } = files[0] as SkippedFileReport
    const named = files.slice(0, NAMED_FILES).map((file) => file.id)
    const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more` : ''
    const which = files.length === 1 ? `${named[0]}` : `${files.length} files (${named.join(', ')}${more})`
    return { code, message: `localCorpus skipped ${which}: ${message}` }
  })
}

let loadDirectory: LoadDirectory | undefined

/** Installs the folder reader `localCorpus({ dir })` uses (src/node/runtime.ts does, on Node). */
export function installDirectoryLoader(load: LoadDirectory): void {
  loadDirectory = load
}

async function build(options: LocalCorpusOptions): Promise<Corpus> {
  let source: readonly LocalDocument[]
  let unreported: PageWarning[] = []
  if (options.dir !== undefined) {
    if (!loadDirectory) throw noDirectoryLoader()
    try {
      const loaded = await loadDirectory(options.dir, options.extensions, options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {})
      source = loaded.documents
      unreported = skippedWarnings(loaded.skipped)
    } catch (cause) {
      throw new LaconicError(`localCorpus: cannot read ${options.dir}`, { code: 'config', hint: 'check that `dir` exists and is readable', cause })
    }
  } else {
    source = options.documents
  }
  const docs = normalize(source)
  const chunks: IndexedChunk[] = []
  for (const [position, doc] of docs.entries()) {
    // A paged document is chunked page by page, each chunk citing its page.
    const parts: { text: string; url?: string; title?: string }[] = doc.pageStarts
      ? documentPages(doc).map(({ page, text }) => ({ text, url: pageUrl(doc.url, page), title: `${doc.title} › page ${page}` }))
      : [{ text: doc.text }]
    for (const part of parts) {
      for (const chunk of chunkText(part.text, options.chunkChars)) {
        const title = part.title ?? doc.title
        chunks.push({
          doc: position,
          title: chunk.heading && chunk.heading !== doc.title ? `${title} › ${chunk.heading}` : title,
          url: part.url ?? (chunk.anchor ? `${withoutFragment(doc.url)}#${chunk.anchor}` : doc.url),
          text: chunk.text,
        })
      }
    }
  }
  const index = lexicalIndex()
  for (const [row, chunk] of chunks.entries()) index.add(row, `${chunk.title}\n${chunk.text}`)
  const byUrl = new Map<string, number>()
  for (const [position, doc] of docs.entries()) {
    byUrl.set(withoutFragment(doc.url), position)
    byUrl.set(doc.id, position)
  }
  return { docs, byUrl, chunks, index, unreported }
}

/** `dir` with no folder reader installed: Node's not set up, or a runtime without a file system. */
function noDirectoryLoader(): LaconicError {
  return new LaconicError('localCorpus: reading a folder (`dir`) needs Node, whose folder reader is not installed', {
    code: 'config',
    hint: runsOnNode() ? NODE_SETUP_HINT : 'pass the texts as `documents` in this runtime',
  })
}

/** A search and fetch provider over your own files or documents, searched with BM25, for research without the web. */
export function localCorpus(options: LocalCorpusOptions): SearchProvider & FetchProvider {
  if (!options || (options.dir === undefined) === (options.documents === undefined)) {
    throw new LaconicError('localCorpus: pass either `dir` or `documents`', {
      code: 'config',
      hint: "e.g. localCorpus({ dir: './notes' }) or localCorpus({ documents: [{ text }] })",
    })
  }
  if (options.dir !== undefined && !loadDirectory) throw noDirectoryLoader()
  const maxFileBytes = options.dir !== undefined ? options.maxFileBytes : undefined
  if (maxFileBytes !== undefined && !(Number.isFinite(maxFileBytes) && maxFileBytes >= 1)) {
    throw new LaconicError(`localCorpus: \`maxFileBytes\` must be a number of at least 1, got ${maxFileBytes}`, { code: 'config' })
  }
  const snippetChars = options.snippetChars ?? 240
  let corpus: Promise<Corpus> | undefined
  // Built once on first use; a failed build (a missing folder, say) is retried next time.
  const ready = () => {
    corpus ??= build(options).catch((error: unknown) => {
      corpus = undefined
      throw error
    })
    return corpus
  }

  return {
    searchCost: 0,
    async search(query, opts = {}): Promise<SearchResult[]> {
      const built = await ready()
      const { chunks, index } = built
      // What the folder's reading left out is told once, to the first search that can tell the run.
      if (opts.onWarning && built.unreported.length > 0) for (const warning of built.unreported.splice(0)) opts.onWarning(warning)
      if (opts.signal?.aborted) throw abortError(opts.signal)
      const limit = opts.limit ?? 10
      // What a snippet centres on: the query's words that are not stop words, and their stems.
      const words = [...contentWords(query), ...lexicalTerms(query)]
      const results: SearchResult[] = []
      const seen = new Set<string>()
      // Chunks of one URL count once: ask for more rows until `limit` URLs are found or no row is left.
      for (let wanted = limit * 2, from = 0; results.length < limit; wanted *= 2) {
        const hits = index.search(query, wanted)
        for (const hit of hits.slice(from)) {
          if (results.length >= limit) break
          const chunk = chunks[hit.row]
          if (!chunk || seen.has(chunk.url)) continue
          seen.add(chunk.url)
          results.push({ title: chunk.title, url: chunk.url, snippet: snippetAround(chunk.text, words, snippetChars), score: hit.score })
        }
        if (hits.length < wanted) break
        from = hits.length
      }
      return results
    },
    async fetch(url, opts = {}): Promise<FetchedPage> {
      const { docs, byUrl } = await ready()
      if (opts.signal?.aborted) throw abortError(opts.signal)
      const position = byUrl.get(withoutFragment(url))
      const doc = position === undefined ? undefined : docs[position]
      if (!doc) {
        throw new ProviderError(`localCorpus: no document at ${url}`, {
          code: 'not-found',
          provider: 'local',
          url,
          hint: 'fetch a URL that this corpus returned from search',
        })
      }
      return {
        url: doc.url,
        title: doc.title,
        text: doc.text,
        ...(doc.kind ? { kind: doc.kind } : {}),
        ...(doc.pageStarts ? { pageStarts: doc.pageStarts, pages: doc.pageStarts.length } : {}),
      }
    },
  }
}
