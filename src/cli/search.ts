/**
 * `--search` and its keys → a `SearchProvider`; `--no-fetch` / `--corpus` → the `FetchProvider`
 * (or none). Keys come from the flags, else the environment variables the adapters document.
 */
import { brave, duckduckgo, httpFetch, searxng, tavily } from '../adapters/index.js'
import type { FetchProvider, SearchProvider } from '../core/index.js'
import type { CliOptions } from './args.js'
import type { Env } from './llm.js'
import { UsageError } from './usage-error.js'

export function buildSearch(options: CliOptions, env: Env): SearchProvider {
  switch (options.search) {
    case 'duckduckgo':
      return duckduckgo()
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
      return searxng({ baseURL })
    }
    case 'local':
      // Interim: the localCorpus adapter (issue 5) has not landed in src/adapters yet.
      throw new UsageError(`--corpus ${options.corpus}: the local corpus adapter is not available yet`)
  }
}

/**
 * Pages are read over HTTP unless `--no-fetch`; a local corpus keeps the run offline, since its
 * results are already whole documents.
 */
export function buildFetch(options: CliOptions): FetchProvider | undefined {
  if (!options.fetch || options.search === 'local') return undefined
  return httpFetch()
}
