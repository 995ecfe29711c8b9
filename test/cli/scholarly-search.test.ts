/** `--search` with scholarly providers and comma lists: runs of the command, its searches answered by a stand-in for each API. */
import { readFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { EventOf, ResearchEvent } from '../../src/index.js'
import { type FakeBackend, modelFlags, startFakeBackend } from './fake-backend.js'
import { laconic } from './laconic.js'

const fixture = (name: string) => readFileSync(new URL(`../fixtures/scholarly/${name}`, import.meta.url), 'utf8')

/** Answers as each API would, by host and path, recording every request; nothing leaves the process (the model is on loopback). */
function standIn(): { requests: { url: URL; headers: Headers }[] } {
  const requests: { url: URL; headers: Headers }[] = []
  const loopback = globalThis.fetch
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    if (url.hostname === '127.0.0.1') return loopback(input, init)
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

let backend: FakeBackend
beforeAll(async () => {
  // The model searches "checkerboard order" once, then answers.
  backend = await startFakeBackend({ reply: (turn) => (turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: checkerboard order' : 'Action: Answer') })
})
afterAll(() => backend.close())

/** The run's first search: its results as the run kept them, and the warnings it gave. */
async function searchWith(argv: string[], env: Record<string, string> = {}) {
  const { stdout } = await laconic([...modelFlags(backend), '--no-fetch', '-f', 'ndjson', ...argv, 'q'], { env })
  const events = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ResearchEvent)
  const result = events.find((event): event is EventOf<'result'> => event.type === 'result')
  if (!result) throw new Error(`no search in the run: ${stdout}`)
  return { results: result.results, warnings: events.filter((event): event is EventOf<'warning'> => event.type === 'warning') }
}

describe('--search with scholarly providers', () => {
  it('arxiv,wikipedia:de searches both and fuses their results', async () => {
    const { requests } = standIn()
    const { results } = await searchWith(['--search', 'arxiv,wikipedia:de'])
    expect(requests.find((r) => r.url.host === 'export.arxiv.org')?.url.searchParams.get('search_query')).toContain('checkerboard')
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
    // openalex has no stand-in: it answers 503.
    const { results, warnings } = await searchWith(['--search', 'openalex,arxiv'])
    expect(results.map((r) => r.meta?.arxivId)).toEqual(['cond-mat/0603029'])
    const searchWarnings = warnings.filter((w) => w.queryId !== undefined)
    expect(searchWarnings.map((w) => w.code)).toEqual(['search-partial'])
    expect(searchWarnings[0]?.message).toMatch(/^openalex failed/)
  })

  it('semanticscholar and pubmed take their keys and contact from the environment', async () => {
    const { requests } = standIn()
    const { results } = await searchWith(['--search', 'semanticscholar,pubmed'], {
      SEMANTIC_SCHOLAR_API_KEY: 's2-key',
      NCBI_API_KEY: 'ncbi-key',
      NCBI_EMAIL: 'me@example.org',
    })
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
