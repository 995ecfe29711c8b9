import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { arxiv, createPacer, httpFetch, openAlex, pubmed, semanticScholar, wikipedia } from '../../../src/adapters/index.js'
import { documentPages } from '../../../src/strategy.js'
import type { SearchProvider, SearchResult, FetchedPage } from '../../../src/index.js'
import { type Handler, loopbacks, type RecordedRequest } from '../http/loopback.js'

type PageWarning = NonNullable<FetchedPage['warnings']>[number]

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/scholarly/${name}`, import.meta.url), 'utf8')
const serve = loopbacks()
/** No pacing in tests: the pacer's gaps are tested with a clock of their own. */
const unpaced = () => createPacer({ intervalMs: 0 })
const fast = { maxRetries: 1, backoff: { initialMs: 1, maxMs: 1 }, timeoutMs: 5000 }
const KEY = 'scholar-secret-key-0042'

const XML = 'application/xml; charset=UTF-8'
const JSON_TYPE = 'application/json; charset=utf-8'

type Routes = Record<string, { body: string; status?: number; type?: string }>

/** Answers each request by the last segment of its path, as the real API would. */
function routed(routes: Routes): Handler {
  return (req, res) => {
    const path = new URL(req.url, 'http://x').pathname
    const route = Object.entries(routes).find(([suffix]) => path.endsWith(suffix))?.[1]
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('no route')
      return
    }
    res.writeHead(route.status ?? 200, { 'content-type': route.type ?? JSON_TYPE })
    res.end(route.body)
  }
}

interface Case {
  name: string
  make: (baseURL: string, overrides?: { timeoutMs?: number; maxRetries?: number }) => SearchProvider
  /** The path the first request of a search goes to. */
  first: string
  routes: Routes
  empty: Routes
  type: string
  check: (results: SearchResult[], requests: RecordedRequest[]) => void
}

const params = (request: RecordedRequest | undefined) => new URL(request?.url ?? '/', 'http://x').searchParams

const cases: Case[] = [
  {
    name: 'arxiv',
    make: (baseURL, overrides) => arxiv({ baseURL, pacer: unpaced(), ...fast, ...overrides }),
    first: '/query',
    routes: { '/query': { body: fixture('arxiv-search.xml'), type: XML } },
    empty: { '/query': { body: fixture('arxiv-empty.xml'), type: XML } },
    type: XML,
    check: (results, requests) => {
      expect(results).toHaveLength(3)
      expect(results[0]).toEqual({
        title: 'Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques',
        url: 'https://arxiv.org/pdf/2202.12139v1',
        snippet: expect.stringMatching(/^Deep Learning \(DL\) has revolutionized .* discuss its results\.$/),
        meta: {
          authors: ['Mohit Kumar Ahuja', 'Arnaud Gotlieb', 'Helge Spieker'],
          year: 2022,
          venue:
            'Artificial Intelligence in Software Testing @ 2022 IEEE International Conference on Software Testing, Verification and Validation Workshops (ICSTW)',
          doi: '10.1109/icstw55395.2022.00035',
          arxivId: '2202.12139',
          pdfUrl: 'https://arxiv.org/pdf/2202.12139v1',
        },
      })
      expect(results[1]?.meta?.authors).toContain('José Raúl Romero')
      expect(params(requests[0]).get('search_query')).toBe('llama diet')
      expect(params(requests[0]).get('max_results')).toBe('3')
      expect(params(requests[0]).get('sortBy')).toBe('relevance')
      expect(requests[0]?.headers['user-agent']).toMatch(/^laconic-research/)
    },
  },
  {
    name: 'openalex',
    make: (baseURL, overrides) => openAlex({ baseURL, mailto: 'team@example.org', apiKey: KEY, pacer: unpaced(), ...fast, ...overrides }),
    first: '/works',
    routes: { '/works': { body: fixture('openalex-works.json') } },
    empty: { '/works': { body: fixture('openalex-empty.json') } },
    type: JSON_TYPE,
    check: (results, requests) => {
      expect(results).toEqual([
        {
          title: 'The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles',
          url: 'https://peerj.com/articles/4375.pdf',
          snippet:
            'Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need for large-scale, up-to-date, and reproducible studies assessing the prevalence and characteristics of OA.',
          score: 1062.1426,
          meta: {
            authors: ['Heather Piwowar', 'Jason Priem', 'Stefanie Haustein'],
            year: 2018,
            venue: 'PeerJ',
            doi: '10.7717/peerj.4375',
            pdfUrl: 'https://peerj.com/articles/4375.pdf',
          },
        },
        {
          title: 'Computing Machinery and Intelligence',
          url: 'https://doi.org/10.1093/mind/lix.236.433',
          snippet: '',
          score: 512.5,
          meta: { authors: ['A. M. Turing'], year: 1950, venue: 'Mind', doi: '10.1093/mind/lix.236.433' },
        },
      ])
      const sent = params(requests[0])
      expect(sent.get('search')).toBe('llama diet')
      expect(sent.get('per-page')).toBe('3')
      expect(sent.get('mailto')).toBe('team@example.org')
      expect(sent.get('api_key')).toBe(KEY)
      expect(sent.get('select')?.split(',')).toEqual(expect.arrayContaining(['doi', 'authorships', 'best_oa_location', 'abstract_inverted_index']))
    },
  },
  {
    name: 'semanticscholar',
    make: (baseURL, overrides) => semanticScholar({ baseURL, apiKey: KEY, pacer: unpaced(), ...fast, ...overrides }),
    first: '/paper/search',
    routes: { '/paper/search': { body: fixture('semanticscholar-search.json') } },
    empty: { '/paper/search': { body: fixture('semanticscholar-empty.json') } },
    type: JSON_TYPE,
    check: (results, requests) => {
      expect(results).toHaveLength(3)
      expect(results[0]).toEqual({
        title: 'Computing Machinery and Intelligence',
        url: 'https://www.semanticscholar.org/paper/2d5673caa9e6af3a7b82a43f19ee920992db07ad',
        snippet: expect.stringMatching(/^I propose to consider the question, “Can machines think\?”/),
        meta: { authors: ['A. Turing'], year: 1950, venue: 'The Philosophy of Artificial Intelligence', doi: '10.1093/mind/lix.236.433' },
      })
      expect(results[2]?.meta).toMatchObject({ arxivId: '1402.0030', year: 2014, authors: ['A. Mnih', 'Karol Gregor'] })
      const sent = params(requests[0])
      expect(sent.get('query')).toBe('llama diet')
      expect(sent.get('limit')).toBe('3')
      expect(sent.get('fields')).toContain('openAccessPdf')
      expect(requests[0]?.headers['x-api-key']).toBe(KEY)
    },
  },
  {
    name: 'pubmed',
    make: (baseURL, overrides) => pubmed({ baseURL, email: 'team@example.org', apiKey: KEY, pacer: unpaced(), ...fast, ...overrides }),
    first: '/esearch.fcgi',
    routes: {
      '/esearch.fcgi': { body: fixture('pubmed-esearch.xml'), type: XML },
      '/esummary.fcgi': { body: fixture('pubmed-esummary.xml'), type: XML },
    },
    empty: { '/esearch.fcgi': { body: fixture('pubmed-esearch-empty.xml'), type: XML } },
    type: XML,
    check: (results, requests) => {
      expect(results).toEqual([
        {
          title: 'Zirconium granuloma following treatment of rhus dermatitis.',
          url: 'https://pubmed.ncbi.nlm.nih.gov/11850928/',
          snippet: 'LoPresti PJ, Hambrick GW Jr. Archives of dermatology. 1965 Aug;92(2):188-91',
          meta: { authors: ['LoPresti PJ', 'Hambrick GW Jr'], year: 1965, venue: 'Archives of dermatology' },
        },
        {
          title: 'Adverse and beneficial effects of plant extracts on skin and skin disorders.',
          url: 'https://pubmed.ncbi.nlm.nih.gov/11482001/',
          snippet: 'Mantle D, Gok MA, Lennard TW. Adverse drug reactions and toxicological reviews. 2001 Jun;20(2):89-103',
          meta: { authors: ['Mantle D', 'Gok MA', 'Lennard TW'], year: 2001, venue: 'Adverse drug reactions and toxicological reviews' },
        },
      ])
      const search = params(requests[0])
      expect(Object.fromEntries(search)).toEqual({
        db: 'pubmed',
        term: 'llama diet',
        retmax: '3',
        sort: 'relevance',
        tool: 'laconic-research',
        email: 'team@example.org',
        api_key: KEY,
      })
      // The first three ids esearch found, as esummary's ids.
      expect(params(requests[1]).get('id')).toBe('41282813,41148224,41011574')
    },
  },
  {
    name: 'wikipedia',
    make: (baseURL, overrides) => wikipedia({ baseURL, lang: 'en', contact: 'team@example.org', pacer: unpaced(), ...fast, ...overrides }),
    first: '/w/api.php',
    routes: {
      '/w/api.php': { body: fixture('wikipedia-search.json') },
      '/page/summary/Llama': { body: fixture('wikipedia-summary-llama.json') },
      '/page/summary/Alpaca': { body: fixture('wikipedia-summary-404.json'), status: 404 },
      '/page/summary/Llama_(language_model)': { body: fixture('wikipedia-summary-llama.json').replace('"type": "standard"', '"type": "standard", "extra": 1') },
    },
    empty: { '/w/api.php': { body: '{"batchcomplete":true,"query":{"searchinfo":{"totalhits":0},"search":[]}}' } },
    type: JSON_TYPE,
    check: (results, requests) => {
      expect(results[0]).toEqual({
        title: 'Llama',
        url: 'https://en.wikipedia.org/wiki/Llama',
        snippet: 'The llama is a domesticated South American camelid, widely used as a meat and pack animal by Andean cultures since the pre-Columbian era.',
      })
      // Its summary is missing: the search's own snippet, highlight markup removed.
      expect(results[1]?.snippet).toBe(
        'The alpaca (Lama pacos) is a species of South American camelid mammal. It is similar to, and often confused with, the llama',
      )
      expect(results[1]?.url).toMatch(/\/wiki\/Alpaca$/)
      const sent = params(requests[0])
      expect(sent.get('srsearch')).toBe('llama diet')
      expect(sent.get('srlimit')).toBe('3')
      expect(requests[0]?.headers['user-agent']).toContain('team@example.org')
    },
  },
]

describe.each(cases)('$name', ({ name, make, first, routes, empty, type, check }) => {
  it('sends the documented request and reads the recorded response', async () => {
    const server = await serve(routed(routes))
    const results = await make(server.url).search('llama diet', { limit: 3 })
    check(results, server.requests)
  })

  it('answers an empty query with [] without a request', async () => {
    const server = await serve(routed(routes))
    await expect(make(server.url).search('   ')).resolves.toEqual([])
    expect(server.requests).toHaveLength(0)
  })

  it('returns [] when nothing was found', async () => {
    const server = await serve(routed(empty))
    await expect(make(server.url).search('zxqv')).resolves.toEqual([])
  })

  it("waits as long as a 429's Retry-After asks, then succeeds", async () => {
    const handler = routed(routes)
    const server = await serve((req, res, attempt) => {
      if (attempt === 1) {
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' })
        res.end('Too Many Requests')
        return
      }
      return handler(req, res, attempt)
    })
    const retries: { status?: number; delayMs: number }[] = []
    const results = await make(server.url).search('llama diet', { limit: 3, onRetry: ({ status, delayMs }) => retries.push({ status, delayMs }) })
    expect(results.length).toBeGreaterThan(0)
    expect(retries).toEqual([{ status: 429, delayMs: 1000 }])
  })

  it('reports lasting throttling as a rate-limit error', async () => {
    const server = await serve(routed({ [first]: { body: '{"message":"Too many requests"}', status: 429 } }))
    await expect(make(server.url).search('llama')).rejects.toMatchObject({ name: 'ProviderError', code: 'rate-limit', status: 429 })
    expect(server.requests).toHaveLength(2)
  })

  it('reports a server error as a typed error, without leaking the key of a provider that has one', async () => {
    const server = await serve(routed({ [first]: { body: `internal error near ${KEY}`, status: 500, type: 'text/plain' } }))
    const error = (await make(server.url, { maxRetries: 0 })
      .search('llama')
      .catch((e: unknown) => e)) as Error & { code?: string }
    expect(error).toMatchObject({ name: 'ProviderError', code: 'http', status: 500 })
    const keyed = name === 'openalex' || name === 'semanticscholar' || name === 'pubmed'
    expect(JSON.stringify({ ...error, message: error.message }).includes(KEY)).toBe(!keyed)
  })

  it.each([
    ['an HTML login page', '<!doctype html><html><title>Sign in</title><body>Please sign in</body></html>'],
    [
      'a truncated body',
      type === XML
        ? fixture(name === 'pubmed' ? 'pubmed-esearch.xml' : 'arxiv-search.xml').slice(0, 40)
        : '{"results": [{"id": "https://openalex.org/W1", "dis',
    ],
    ['JSON where XML belongs, or XML where JSON belongs', type === XML ? '{"results": []}' : '<?xml version="1.0"?><feed/>'],
  ])('reports %s as a bad response, never a crash', async (_what, body) => {
    const server = await serve(routed({ [first]: { body, type } }))
    await expect(make(server.url).search('llama')).rejects.toMatchObject({ name: 'ProviderError', code: 'bad-response' })
  })

  it('times out a silent server', async () => {
    const server = await serve(() => {})
    await expect(make(server.url, { timeoutMs: 50, maxRetries: 0 }).search('llama')).rejects.toMatchObject({ code: 'timeout' })
  })

  it('aborts an in-flight request', async () => {
    let arrived!: () => void
    const seen = new Promise<void>((resolve) => (arrived = resolve))
    const server = await serve(() => arrived())
    const controller = new AbortController()
    const pending = make(server.url).search('llama', { signal: controller.signal })
    await seen
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'aborted' })
  })
})

describe('arxiv', () => {
  it('reads the older feed layout, with its DOI and journal', async () => {
    const server = await serve(routed({ '/query': { body: fixture('arxiv-doi.xml'), type: XML } }))
    const [result] = await arxiv({ baseURL: server.url, pacer: unpaced() }).search('au:del_maestro AND ti:checkerboard')
    expect(result).toMatchObject({
      title: 'From stripe to checkerboard order on the square lattice in the presence of quenched disorder',
      url: 'https://arxiv.org/pdf/cond-mat/0603029v1',
      meta: {
        authors: ['Adrian Del Maestro', 'Bernd Rosenow', 'Subir Sachdev'],
        year: 2006,
        venue: 'Phys. Rev. B 74, 024520 (2006)',
        doi: '10.1103/physrevb.74.024520',
        arxivId: 'cond-mat/0603029',
      },
    })
  })

  it("explains arXiv's error feed, sent with a 400 or a 200", async () => {
    const refused = await serve(routed({ '/query': { body: fixture('arxiv-error.xml'), status: 400, type: XML } }))
    await expect(arxiv({ baseURL: refused.url, pacer: unpaced() }).search('id:abc')).rejects.toMatchObject({
      code: 'http',
      status: 400,
      hint: expect.stringContaining('query_details'),
    })
    const answered = await serve(routed({ '/query': { body: fixture('arxiv-error.xml'), type: XML } }))
    await expect(arxiv({ baseURL: answered.url, pacer: unpaced() }).search('id:abc')).rejects.toMatchObject({
      code: 'bad-response',
      providerMessage: 'incorrect id format for abc',
    })
  })

  it('goes through its pacer before every attempt, the retry of a 429 included', async () => {
    let now = 0
    const waits: number[] = []
    const pacer = createPacer({
      intervalMs: 3000,
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms)
        now += ms
      },
    })
    const server = await serve((req, res, attempt) => {
      if (attempt === 1) {
        res.writeHead(429, { 'retry-after': '0' })
        res.end()
        return
      }
      return routed({ '/query': { body: fixture('arxiv-empty.xml'), type: XML } })(req, res, attempt)
    })
    const search = arxiv({ baseURL: server.url, pacer, ...fast })
    await search.search('a')
    await search.search('b')
    // The retry waited for its slot 3 s after the first attempt, the second search 3 s after that.
    expect(waits).toEqual([3000, 3000])
    expect(server.requests).toHaveLength(3)
  })

  it("a result's URL is its PDF, which httpFetch reads with its pages", { timeout: 60_000 }, async () => {
    const pdf = readFileSync(new URL('../../fixtures/documents/papers/naacl06-shinyama.pdf', import.meta.url))
    const server = await serve((req, res) => {
      if (req.url.startsWith('/pdf/')) {
        res.writeHead(200, { 'content-type': 'application/pdf' })
        res.end(pdf)
        return
      }
      return routed({ '/query': { body: fixture('arxiv-doi.xml').replaceAll('http://arxiv.org/pdf/', `${serverUrl}/pdf/`), type: XML } })(req, res, 1)
    })
    const serverUrl = server.url
    const [result] = await arxiv({ baseURL: server.url, pacer: unpaced() }).search('checkerboard')
    expect(result?.url).toBe(`${server.url}/pdf/cond-mat/0603029v1`)
    const page = await httpFetch({ allowPrivateNetwork: true, maxRetries: 0, documentTimeoutMs: 60_000 }).fetch(result?.url as string)
    expect(page.kind).toBe('pdf')
    expect(documentPages(page).length).toBeGreaterThan(1)
  })
})

describe('semanticScholar', () => {
  it('sends no x-api-key without a key, and keeps an open PDF as the URL', async () => {
    const saved = process.env.SEMANTIC_SCHOLAR_API_KEY
    delete process.env.SEMANTIC_SCHOLAR_API_KEY
    try {
      const server = await serve(routed({ '/paper/search': { body: fixture('semanticscholar-search.json') } }))
      const results = await semanticScholar({ baseURL: server.url, pacer: unpaced() }).search('turing')
      expect(server.requests[0]?.headers['x-api-key']).toBeUndefined()
      expect(results[3]).toEqual({
        title: 'https://arxiv.org/pdf/2207.03985',
        url: 'https://arxiv.org/pdf/2207.03985',
        snippet: '',
        meta: { pdfUrl: 'https://arxiv.org/pdf/2207.03985' },
      })
    } finally {
      if (saved !== undefined) process.env.SEMANTIC_SCHOLAR_API_KEY = saved
    }
  })

  it("carries the API's own message for a refused request", async () => {
    const server = await serve(routed({ '/paper/search': { body: fixture('semanticscholar-error.json'), status: 400 } }))
    await expect(semanticScholar({ baseURL: server.url, pacer: unpaced() }).search('turing')).rejects.toMatchObject({
      status: 400,
      providerMessage: 'Unrecognized or unsupported fields: [unknown]',
    })
  })

  it('explains a 429 by whether it has a key', async () => {
    const server = await serve(routed({ '/paper/search': { body: '{"message":"Too Many Requests"}', status: 429 } }))
    const saved = process.env.SEMANTIC_SCHOLAR_API_KEY
    delete process.env.SEMANTIC_SCHOLAR_API_KEY
    try {
      await expect(semanticScholar({ baseURL: server.url, pacer: unpaced(), maxRetries: 0 }).search('x')).rejects.toMatchObject({
        hint: expect.stringContaining('SEMANTIC_SCHOLAR_API_KEY'),
      })
    } finally {
      if (saved !== undefined) process.env.SEMANTIC_SCHOLAR_API_KEY = saved
    }
  })
})

describe('openAlex', () => {
  it("carries OpenAlex's message for a refused request", async () => {
    const server = await serve(routed({ '/works': { body: fixture('openalex-error.json'), status: 400 } }))
    await expect(openAlex({ baseURL: server.url, pacer: unpaced() }).search('x')).rejects.toMatchObject({
      status: 400,
      providerMessage: 'Invalid query parameters error.',
    })
  })
})

describe('pubmed', () => {
  it('sends no esummary when esearch finds nothing', async () => {
    const server = await serve(routed({ '/esearch.fcgi': { body: fixture('pubmed-esearch-empty.xml'), type: XML } }))
    await expect(pubmed({ baseURL: server.url, pacer: unpaced() }).search('abcXYZ')).resolves.toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it("reports esearch's ERROR as a refused query", async () => {
    const server = await serve(routed({ '/esearch.fcgi': { body: fixture('pubmed-esearch-error.xml'), type: XML } }))
    await expect(pubmed({ baseURL: server.url, pacer: unpaced() }).search('x')).rejects.toMatchObject({
      code: 'bad-response',
      providerMessage: 'Empty term and query_key - nothing todo',
    })
  })

  it('reports a broken esummary as a bad response', async () => {
    const server = await serve(
      routed({
        '/esearch.fcgi': { body: fixture('pubmed-esearch.xml'), type: XML },
        '/esummary.fcgi': { body: '<html><body>Service unavailable</body></html>', type: 'text/html' },
      }),
    )
    await expect(pubmed({ baseURL: server.url, pacer: unpaced() }).search('x')).rejects.toMatchObject({ code: 'bad-response', provider: 'pubmed' })
  })

  it('keeps to 3 requests a second without a key: esearch and esummary each wait their turn', async () => {
    let now = 0
    const waits: number[] = []
    const pacer = createPacer({
      intervalMs: 334,
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms)
        now += ms
      },
    })
    const server = await serve(
      routed({ '/esearch.fcgi': { body: fixture('pubmed-esearch.xml'), type: XML }, '/esummary.fcgi': { body: fixture('pubmed-esummary.xml'), type: XML } }),
    )
    await pubmed({ baseURL: server.url, pacer }).search('biopython')
    expect(waits).toEqual([334])
  })
})

describe('wikipedia', () => {
  it("warns about a summary it could not read and keeps the search's snippet", async () => {
    const server = await serve(routed(cases[4]?.routes as Routes))
    const warnings: PageWarning[] = []
    const results = await wikipedia({ baseURL: server.url, pacer: unpaced() }).search('llama', { onWarning: (w) => warnings.push(w) })
    expect(results.map((r) => r.title)).toEqual(['Llama', 'Alpaca', 'Llama'])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toContain('"Alpaca"')
  })

  it('reads another edition, named in its errors', async () => {
    const server = await serve(routed({ '/w/api.php': { body: fixture('wikipedia-error.json') } }))
    await expect(wikipedia({ baseURL: server.url, lang: 'de', pacer: unpaced() }).search('x')).rejects.toMatchObject({
      code: 'bad-response',
      provider: 'wikipedia:de',
      providerMessage: 'The "srsearch" parameter must be set.',
    })
  })

  it('refuses a language code that is not one, before any request', () => {
    expect(() => wikipedia({ lang: 'evil.example/x?' })).toThrow(/not a Wikipedia language code/)
    expect(() => wikipedia({ lang: 'zh-yue' })).not.toThrow()
  })

  it('reads only the search with summaries off', async () => {
    const server = await serve(routed(cases[4]?.routes as Routes))
    const results = await wikipedia({ baseURL: server.url, pacer: unpaced(), summaries: false }).search('llama')
    expect(server.requests).toHaveLength(1)
    expect(results[2]).toEqual({
      title: 'Llama (language model)',
      url: `${server.url}/wiki/Llama_(language_model)`,
      snippet: 'Llama (Large Language Model Meta AI) is a family of large language models released by Meta AI & others',
    })
  })
})

describe('scholarly parsers, through each adapter', () => {
  const wellFormed = (result: SearchResult) => {
    expect(result.url).toMatch(/^https?:/)
    expect(typeof result.title).toBe('string')
    expect(typeof result.snippet).toBe('string')
    if (result.meta?.doi !== undefined) expect(result.meta.doi).toMatch(/^10\.\d{4,9}\//)
    if (result.meta?.year !== undefined) expect(Number.isInteger(result.meta.year)).toBe(true)
    if (result.meta?.pdfUrl !== undefined) expect(result.meta.pdfUrl).toMatch(/^https?:/)
  }
  /** A body the parser cannot read is the adapter's typed `bad-response` refusal, never any other throw: else its results. */
  async function readOrRefused(search: Promise<SearchResult[]>): Promise<SearchResult[]> {
    try {
      return await search
    } catch (error) {
      expect(error).toMatchObject({ name: 'ProviderError', code: 'bad-response' })
      return []
    }
  }
  /** One server for every run of a property: it answers each path as the run at hand sets `answers`. */
  async function answering(): Promise<{ url: string; requests: RecordedRequest[]; set(routes: Routes): void }> {
    let answers: Routes = {}
    const server = await serve((req, res, attempt) => routed(answers)(req, res, attempt))
    return { url: server.url, requests: server.requests, set: (routes) => (answers = routes) }
  }
  const once = { pacer: unpaced(), maxRetries: 0 }

  it('never throw on any text, the recorded XML cut anywhere or with bytes spliced in', { timeout: 120_000 }, async () => {
    const feeds = [fixture('arxiv-search.xml'), fixture('arxiv-doi.xml'), fixture('pubmed-esearch.xml'), fixture('pubmed-esummary.xml')]
    const text = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom(...feeds), fc.nat(), fc.nat(), fc.string()).map(([feed, at, cut, junk]) => {
        const start = at % feed.length
        return feed.slice(0, start) + junk + feed.slice(Math.min(feed.length, start + (cut % 200)))
      }),
    )
    const server = await answering()
    const arxivSearch = arxiv({ baseURL: server.url, ...once })
    const pubmedSearch = pubmed({ baseURL: server.url, ...once })
    await fc.assert(
      fc.asyncProperty(text, async (body) => {
        // The body as arXiv's feed.
        server.set({ '/query': { body, type: XML } })
        for (const result of await readOrRefused(arxivSearch.search('llama'))) wellFormed(result)
        // The body as PubMed's esummary, after a recorded esearch.
        server.set({ '/esearch.fcgi': { body: fixture('pubmed-esearch.xml'), type: XML }, '/esummary.fcgi': { body, type: XML } })
        for (const result of await readOrRefused(pubmedSearch.search('llama'))) wellFormed(result)
        // The body as PubMed's esearch: the ids it yields are what esummary is asked for, digits only.
        const before = server.requests.length
        server.set({ '/esearch.fcgi': { body, type: XML }, '/esummary.fcgi': { body: fixture('pubmed-esummary.xml'), type: XML } })
        await readOrRefused(pubmedSearch.search('llama'))
        for (const request of server.requests.slice(before)) {
          if (request.url.includes('/esummary.fcgi')) expect(params(request).get('id')).toMatch(/^\d+(,\d+)*$/)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('never throw on any JSON, and keep only well-formed results', async () => {
    const work = fc.record(
      {
        id: fc.oneof(fc.webUrl(), fc.string()),
        doi: fc.oneof(fc.constant('https://doi.org/10.1000/x'), fc.string(), fc.constant(null)),
        display_name: fc.anything(),
        publication_year: fc.oneof(fc.integer(), fc.string()),
        primary_location: fc.anything(),
        best_oa_location: fc.oneof(fc.record({ pdf_url: fc.oneof(fc.webUrl(), fc.string()) }), fc.anything()),
        abstract_inverted_index: fc.oneof(fc.dictionary(fc.string(), fc.array(fc.oneof(fc.integer(), fc.double(), fc.string()))), fc.anything()),
        authorships: fc.anything(),
        url: fc.oneof(fc.webUrl(), fc.string()),
        paperId: fc.string(),
        externalIds: fc.anything(),
        openAccessPdf: fc.anything(),
        title: fc.anything(),
        snippet: fc.anything(),
        extract: fc.anything(),
      },
      { requiredKeys: [] },
    )
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ results: fc.oneof(fc.array(work), fc.anything()) }),
      fc.record({ data: fc.oneof(fc.array(work), fc.anything()) }),
      fc.record({ query: fc.record({ search: fc.oneof(fc.array(work), fc.anything()) }) }),
    )
    const server = await answering()
    const openAlexSearch = openAlex({ baseURL: server.url, ...once })
    const semanticScholarSearch = semanticScholar({ baseURL: server.url, ...once })
    const wikipediaSearch = wikipedia({ baseURL: server.url, summaries: false, ...once })
    const wikipediaSummaries = wikipedia({ baseURL: server.url, ...once })
    const oneHit = '{"query":{"search":[{"title":"Llama","snippet":"a camelid"}]}}'
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const json = JSON.stringify(value)
        server.set({ '/works': { body: json }, '/paper/search': { body: json }, '/w/api.php': { body: json } })
        for (const result of await openAlexSearch.search('llama', { limit: 50 })) wellFormed(result)
        for (const result of await semanticScholarSearch.search('llama', { limit: 100 })) wellFormed(result)
        // The body as MediaWiki's search answer (an `error` in it is the adapter's refusal).
        for (const hit of await readOrRefused(wikipediaSearch.search('llama', { limit: 20 }))) expect(typeof hit.title).toBe('string')
        // The body as a page summary: whatever it holds, the result's URL is a web URL.
        server.set({ '/w/api.php': { body: oneHit }, '/page/summary/Llama': { body: json } })
        const [summarized, ...rest] = await wikipediaSummaries.search('llama')
        expect(rest).toEqual([])
        expect(summarized?.url).toMatch(/^https?:/)
      }),
    )
  })

  it("puts OpenAlex's inverted abstract back in order and ignores positions no abstract has", async () => {
    const works = [
      { id: 'https://openalex.org/W1', display_name: 'One', abstract_inverted_index: { world: [1], hello: [0, 1e12, -1, 2.5], '!': [2] } },
      { id: 'https://openalex.org/W2', display_name: 'Two', abstract_inverted_index: null },
    ]
    const server = await serve(routed({ '/works': { body: JSON.stringify({ results: works }) } }))
    const results = await openAlex({ baseURL: server.url, ...once }).search('hello')
    expect(results.map((result) => [result.title, result.snippet])).toEqual([
      ['One', 'hello world !'],
      ['Two', ''],
    ])
  })
})
