/** `--search` with scholarly providers and comma lists: the providers the CLI builds, talking to a stand-in for each API. */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parseCliArgs } from '../../src/cli/args.js'
import { buildSources } from '../../src/cli/search.js'
import type { FetchedPage } from '../../src/index.js'

type PageWarning = NonNullable<FetchedPage['warnings']>[number]

const fixture = (name: string) => readFileSync(new URL(`../fixtures/scholarly/${name}`, import.meta.url), 'utf8')

/** Answers as each API would, by host and path, recording every request; nothing leaves the process. */
function standIn(): { requests: { url: URL; headers: Headers }[] } {
  const requests: { url: URL; headers: Headers }[] = []
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    requests.push({ url, headers: new Headers(init?.headers) })
    const answer = (body: string, type: string, status = 200) => new Response(body, { status, headers: { 'content-type': type } })
    if (url.host === 'export.arxiv.org') return answer(fixture('arxiv-doi.xml'), 'application/atom+xml')
    if (url.host.endsWith('.wikipedia.org') && url.pathname === '/w/api.php') return answer(fixture('wikipedia-search.json'), 'application/json')
    if (url.host.endsWith('.wikipedia.org') && url.pathname.endsWith('/Llama')) return answer(fixture('wikipedia-summary-llama.json'), 'application/json')
    if (url.host.endsWith('.wikipedia.org')) return answer(fixture('wikipedia-summary-404.json'), 'application/problem+json', 404)
    if (url.host === 'api.semanticscholar.org') return answer(fixture('semanticscholar-search.json'), 'application/json')
    if (url.pathname.endsWith('/esearch.fcgi')) return answer(fixture('pubmed-esearch.xml'), 'text/xml')
    if (url.pathname.endsWith('/esummary.fcgi')) return answer(fixture('pubmed-esummary.xml'), 'text/xml')
    return answer('down', 'text/plain', 503)
  })
  return { requests }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

async function searchWith(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseCliArgs([...argv, 'q'])
  if (parsed.kind !== 'run') throw new Error('expected a run')
  return (await buildSources(parsed.options, env)).search
}

describe('--search with scholarly providers', () => {
  it('arxiv,wikipedia:de searches both and fuses their results', async () => {
    const { requests } = standIn()
    const warnings: PageWarning[] = []
    const results = await (await searchWith(['--search', 'arxiv,wikipedia:de'])).search('checkerboard order', { onWarning: (w) => warnings.push(w) })
    expect(new Set(requests.map((r) => r.url.host))).toEqual(new Set(['export.arxiv.org', 'de.wikipedia.org']))
    expect(results.map((r) => r.url)).toEqual(
      expect.arrayContaining(['https://arxiv.org/pdf/cond-mat/0603029v1', 'https://en.wikipedia.org/wiki/Llama', 'https://de.wikipedia.org/wiki/Alpaca']),
    )
    // Each provider's first result outranks every provider's second.
    expect(results.slice(0, 2).map((r) => r.url)).toEqual(
      expect.arrayContaining(['https://arxiv.org/pdf/cond-mat/0603029v1', 'https://en.wikipedia.org/wiki/Llama']),
    )
  })

  it('a provider that fails leaves a warning and the others stand', async () => {
    standIn()
    const warnings: PageWarning[] = []
    // openalex has no stand-in: it answers 503.
    const results = await (await searchWith(['--search', 'openalex,arxiv'])).search('checkerboard', { onWarning: (w) => warnings.push(w), limit: 5 })
    expect(results.map((r) => r.meta?.arxivId)).toEqual(['cond-mat/0603029'])
    expect(warnings.map((w) => w.code)).toEqual(['search-partial'])
    expect(warnings[0]?.message).toMatch(/^openalex failed/)
  })

  it('semanticscholar and pubmed take their keys and contact from the environment', async () => {
    const { requests } = standIn()
    const search = await searchWith(['--search', 'semanticscholar,pubmed'], {
      SEMANTIC_SCHOLAR_API_KEY: 's2-key',
      NCBI_API_KEY: 'ncbi-key',
      NCBI_EMAIL: 'me@example.org',
    })
    const results = await search.search('turing')
    expect(results.some((r) => r.meta?.doi === '10.1093/mind/lix.236.433')).toBe(true)
    expect(results.some((r) => r.url.startsWith('https://pubmed.ncbi.nlm.nih.gov/'))).toBe(true)
    const s2 = requests.find((r) => r.url.host === 'api.semanticscholar.org')
    expect(s2?.headers.get('x-api-key')).toBe('s2-key')
    const esearch = requests.find((r) => r.url.pathname.endsWith('/esearch.fcgi'))
    expect(esearch?.url.searchParams.get('api_key')).toBe('ncbi-key')
    expect(esearch?.url.searchParams.get('email')).toBe('me@example.org')
    expect(esearch?.url.searchParams.get('tool')).toBe('laconic-research')
  })
})
