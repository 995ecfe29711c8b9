/**
 * `--search` and its keys → a `SearchProvider`, and the `FetchProvider` that reads pages (none
 * with `--no-fetch`). Keys come from the flags, else the environment variables the adapters document.
 */
import { stat } from 'node:fs/promises'
import {
  arxiv,
  brave,
  combineSearch,
  duckduckgo,
  httpFetch,
  localCorpus,
  openAlex,
  pubmed,
  searxng,
  semanticScholar,
  tavily,
  wikipedia,
} from '../adapters/index.js'
import { DEFAULT_EXTENSIONS } from '../documents/local-document.js'
import type { FetchProvider, SearchProvider } from '../core/contracts/providers.js'
import type { CliOptions, SearchChoice } from './args.js'
import { existingKnowledgeBase } from './kb.js'
import { kbAndWebSearch, kbOrWebFetch } from './kb-search.js'
import { type Env, withScheme } from './llm.js'
import { loadOptional } from './optional-package.js'
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
  const { listFiles } = await import('../node/load-dir.js')
  const files = await listFiles(dir, new Set(DEFAULT_EXTENSIONS)).catch(() => undefined)
  if (files === undefined) throw new UsageError(`--corpus ${dir}: the folder cannot be read`)
  if (files.length === 0) throw new UsageError(`--corpus ${dir}: no ${CORPUS_KINDS} files in it`)
  return dir
}

/** The kinds of file a corpus folder is read for, as `--help` and errors name them. */
const CORPUS_KINDS = '.md, .txt, .html, .pdf or .docx'

/** One provider of `--search`, its keys from the flags, else the environment. */
function oneSearch(choice: SearchChoice, options: CliOptions, env: Env): SearchProvider {
  switch (choice.name) {
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
    // Keyless; a key or contact in the environment is used when set (docs/adapters.md).
    case 'arxiv':
      return arxiv()
    case 'openalex':
      return openAlex({ ...defined({ mailto: env.OPENALEX_MAILTO, apiKey: env.OPENALEX_API_KEY }) })
    case 'semanticscholar':
      return semanticScholar({ ...defined({ apiKey: env.SEMANTIC_SCHOLAR_API_KEY }) })
    case 'pubmed':
      return pubmed({ ...defined({ apiKey: env.NCBI_API_KEY, email: env.NCBI_EMAIL }) })
    case 'wikipedia':
      return wikipedia({ ...defined({ lang: choice.lang }) })
    default:
      return duckduckgo()
  }
}

/** Only the fields that have a value, so an adapter's own default (or environment) applies to the rest. */
function defined<T extends Record<string, string | undefined>>(fields: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== '')) as Partial<Record<keyof T, string>>
}

/** `--search NAME`, or several names searched together, their rankings fused (`combineSearch`). */
function webSearch(options: CliOptions, env: Env): SearchProvider {
  const providers = options.search.map((choice) => oneSearch(choice, options, env))
  return providers.length === 1 ? (providers[0] as SearchProvider) : combineSearch(providers)
}

/** `httpFetch`, with `--browser` a headless Chromium as its fallback for script-rendered pages. */
async function webFetch(options: CliOptions): Promise<FetchProvider> {
  if (!options.browser) return httpFetch()
  await loadOptional('--browser', 'browser', () => import('playwright-core'))
  const { browserFetch } = await import('../browser/index.js')
  return httpFetch({ fallback: browserFetch() })
}

export async function buildSources(options: CliOptions, env: Env): Promise<Sources> {
  if (options.kb !== undefined) {
    // A knowledge base alone keeps the run offline: it reads its own documents.
    const kb = await existingKnowledgeBase(options.kb.path, options.embed, env)
    if (!options.kb.web) return { search: kb, fetch: options.fetch ? kb : undefined, corpus: kb }
    return { search: kbAndWebSearch(kb, webSearch(options, env)), fetch: options.fetch ? kbOrWebFetch(kb, await webFetch(options)) : undefined, corpus: kb }
  }
  if (options.search.some((choice) => choice.name === 'local')) {
    // args.ts guarantees --corpus with --search local. The corpus reads its own documents
    // in full, so the run stays offline.
    const corpus = localCorpus({ dir: await corpusFolder(options.corpus as string) })
    return { search: corpus, fetch: options.fetch ? corpus : undefined, corpus }
  }
  return { search: webSearch(options, env), fetch: options.fetch ? await webFetch(options) : undefined }
}
