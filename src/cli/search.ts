/**
 * `--search` and its keys → a `SearchProvider`, and the `FetchProvider` that reads pages (none
 * with `--no-fetch`). Keys come from the flags, else the environment variables the adapters document.
 */
import { stat } from 'node:fs/promises'
import { brave, duckduckgo, httpFetch, localCorpus, searxng, tavily } from '../adapters/index.js'
import { DEFAULT_EXTENSIONS } from '../adapters/search/local/document.js'
import type { FetchProvider, SearchProvider } from '../core/index.js'
import type { CliOptions } from './args.js'
import { existingKnowledgeBase } from './kb.js'
import { kbAndWebSearch, kbOrWebFetch } from './kb-search.js'
import { type Env, withScheme } from './llm.js'
import { UsageError } from './usage-error.js'

export interface Sources {
  search: SearchProvider
  fetch: FetchProvider | undefined
  /**
   * The local corpus (`--corpus`), which reads its own documents: `--serve` shows their text
   * through it, with `--no-fetch` too (that flag stops the agent reading pages, not the user).
   */
  corpus?: FetchProvider | undefined
}

/** The corpus is read lazily on the first search; a wrong folder should fail now, as a usage error. */
async function corpusFolder(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => undefined)
  if (!info?.isDirectory()) throw new UsageError(`--corpus ${dir}: no such folder`)
  // The files the corpus will read, found as it will find them.
  const { listFiles } = await import('../adapters/search/local/load-dir.js')
  const files = await listFiles(dir, new Set(DEFAULT_EXTENSIONS)).catch(() => undefined)
  if (files === undefined) throw new UsageError(`--corpus ${dir}: the folder cannot be read`)
  if (files.length === 0) throw new UsageError(`--corpus ${dir}: no ${CORPUS_KINDS} files in it`)
  return dir
}

/** The kinds of file a corpus folder is read for, as `--help` and errors name them. */
const CORPUS_KINDS = '.md, .txt, .html, .pdf or .docx'

function webSearch(options: CliOptions, env: Env): SearchProvider {
  switch (options.search) {
    case 'brave': {
      const apiKey = options.braveKey ?? env.BRAVE_API_KEY
      if (!apiKey) throw new UsageError('--search brave needs --brave-key KEY (or BRAVE_API_KEY)')
      return brave({ apiKey })
    }
    case 'tavily': {
      const apiKey = options.tavilyKey ?? env.TAVILY_API_KEY
      if (!apiKey) throw new UsageError('--search tavily needs --tavily-key KEY (or TAVILY_API_KEY)')
      return tavily({ apiKey })
    }
    case 'searxng': {
      const baseURL = options.searxngUrl ?? env.SEARXNG_URL
      if (!baseURL) throw new UsageError('--search searxng needs --searxng-url URL (or SEARXNG_URL), e.g. http://localhost:8080')
      return searxng({ baseURL: withScheme(baseURL, '--searxng-url') })
    }
    default:
      return duckduckgo()
  }
}

export async function buildSources(options: CliOptions, env: Env): Promise<Sources> {
  if (options.kb !== undefined) {
    // A knowledge base alone keeps the run offline: it reads its own documents.
    const kb = await existingKnowledgeBase(options.kb.path, options.embed, env)
    if (!options.kb.web) return { search: kb, fetch: options.fetch ? kb : undefined, corpus: kb }
    return { search: kbAndWebSearch(kb, webSearch(options, env)), fetch: options.fetch ? kbOrWebFetch(kb, httpFetch()) : undefined, corpus: kb }
  }
  if (options.search === 'local') {
    // args.ts guarantees --corpus with --search local. The corpus reads its own documents
    // in full, so the run stays offline.
    const corpus = localCorpus({ dir: await corpusFolder(options.corpus as string) })
    return { search: corpus, fetch: options.fetch ? corpus : undefined, corpus }
  }
  return { search: webSearch(options, env), fetch: options.fetch ? httpFetch() : undefined }
}
