import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { brave, searxng, tavily } from '../../../src/adapters/index.js'
import type { SearchProvider, SearchResult } from '../../../src/index.js'
import { cutAt, startLoopback, writePieces } from '../http/loopback.js'
import type { Handler, Loopback, RecordedRequest } from '../http/loopback.js'

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url))
const KEY = 'tvly-secret-key-1234'
const fast = { maxRetries: 1, backoff: { initialMs: 1, maxMs: 1 }, timeoutMs: 2000 }

interface Case {
  name: string
  make: (baseURL: string, overrides?: { timeoutMs?: number; maxRetries?: number }) => SearchProvider
  fixture: Buffer
  expected: SearchResult[]
  empty: string
  checkRequest: (request: RecordedRequest) => void
}

const cases: Case[] = [
  {
    name: 'brave',
    make: (baseURL, overrides) => brave({ apiKey: KEY, baseURL, ...fast, ...overrides }),
    fixture: fixture('brave.json'),
    expected: [
      {
        title: 'Llama - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Llama',
        snippet: "The llama (Lama glama) is a domesticated South American camelid & a pack animal. Llamas eat grasses — they're herbivores.",
        published: '2024-05-01',
      },
      { title: 'Lamas: Ernährung und Pflege', url: 'https://tiere.example.de/lama-ernährung', snippet: 'Was fressen Lamas? Heu, Gras & Mineralien.' },
    ],
    empty: '{"query":{"original":"zxqv"},"mixed":{"type":"mixed","main":[]},"type":"search"}',
    checkRequest: (request) => {
      expect(request.method).toBe('GET')
      const url = new URL(request.url, 'http://x')
      expect(url.pathname).toBe('/web/search')
      expect(url.searchParams.get('q')).toBe('llama diet')
      expect(url.searchParams.get('count')).toBe('3')
      expect(request.headers['x-subscription-token']).toBe(KEY)
    },
  },
  {
    name: 'tavily',
    make: (baseURL, overrides) => tavily({ apiKey: KEY, baseURL, ...fast, ...overrides }),
    fixture: fixture('tavily.json'),
    expected: [
      {
        title: 'Llama - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Llama',
        snippet: 'Llamas are herbivores that graze on grasses and browse on shrubs.',
        score: 0.91837,
      },
      {
        title: 'What do llamas eat? — FAO',
        url: 'https://www.fao.org/camelids/diet',
        snippet: 'Hay, pasture and mineral supplements; 2–4% of body weight daily.',
        score: 0.7712,
      },
    ],
    empty: '{"query":"zxqv","answer":null,"images":[],"results":[],"response_time":0.5}',
    checkRequest: (request) => {
      expect(request.method).toBe('POST')
      expect(request.url).toBe('/search')
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`)
      expect(JSON.parse(request.body)).toEqual({ query: 'llama diet', search_depth: 'basic', max_results: 3 })
    },
  },
  {
    name: 'searxng',
    make: (baseURL, overrides) => searxng({ baseURL, categories: 'general', headers: { authorization: `Basic ${KEY}` }, ...fast, ...overrides }),
    fixture: fixture('searxng.json'),
    expected: [
      { title: 'Llama - Wikipedia', url: 'https://en.wikipedia.org/wiki/Llama', snippet: 'Llamas eat grass — and hay.', score: 4 },
      { title: 'Étude des lamas', url: 'https://www.lamas.example/étude', snippet: '', score: 0.33 },
    ],
    empty: '{"query":"zxqv","number_of_results":0,"results":[],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}',
    checkRequest: (request) => {
      const url = new URL(request.url, 'http://x')
      expect(url.pathname).toBe('/search')
      expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'llama diet', format: 'json', categories: 'general' })
      expect(request.headers.authorization).toBe(`Basic ${KEY}`)
    },
  },
]

let server: Loopback | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(handler: Handler): Promise<string> {
  server = await startLoopback(handler)
  return server.url
}

const json =
  (body: string | Uint8Array, status = 200, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(body)
  }

describe.each(cases)('$name', ({ name, make, fixture: body, expected, empty, checkRequest }) => {
  it('sends the documented request and reads results, however the body is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: body.length }), { maxLength: 16 }), async (offsets) => {
        const baseURL = await serve(async (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
          await writePieces(res, cutAt(body, offsets))
          res.end()
        })
        const results = await make(baseURL).search('llama diet', { limit: 3 })
        expect(results).toEqual(expected)
        checkRequest(server?.requests[0] as RecordedRequest)
        await server?.close()
        server = undefined
      }),
      { numRuns: 8 },
    )
  })

  it('answers an empty query with [] without a request', async () => {
    const baseURL = await serve(json(body))
    await expect(make(baseURL).search('  ')).resolves.toEqual([])
    expect(server?.requests).toHaveLength(0)
  })

  it('returns [] when nothing was found', async () => {
    const baseURL = await serve(json(empty))
    await expect(make(baseURL).search('zxqv')).resolves.toEqual([])
  })

  it('retries a 429 after the Retry-After delay, then succeeds', async () => {
    const baseURL = await serve((req, res, attempt) =>
      attempt === 1 ? json('{"detail":{"error":"slow down"}}', 429, { 'retry-after': '0' })(req, res, attempt) : json(body)(req, res, attempt),
    )
    const retries: (number | undefined)[] = []
    await expect(make(baseURL).search('llama diet', { onRetry: (info) => retries.push(info.status) })).resolves.toHaveLength(2)
    expect(retries).toEqual([429])
  })

  it('reports lasting throttling as a rate-limit error', async () => {
    const baseURL = await serve(json('{"error":"Too many requests"}', 429, { 'retry-after': '0' }))
    await expect(make(baseURL).search('llama diet')).rejects.toMatchObject({ code: 'rate-limit', provider: name, status: 429 })
    expect(server?.requests).toHaveLength(2)
  })

  it.each([401, 422, 432])('explains HTTP %i without leaking the key', async (status) => {
    const baseURL = await serve(json(`{"type":"ErrorResponse","error":{"code":"E","detail":"bad token ${KEY}","status":${status}}}`, status))
    const error = (await make(baseURL)
      .search('llama')
      .catch((e: unknown) => e)) as Error & { status?: number; hint?: string }
    expect(error).toMatchObject({ name: 'ProviderError', provider: name, status })
    expect(error.message).not.toContain(KEY)
    expect(JSON.stringify({ ...error })).not.toContain(KEY)
    if (status === 401) expect(error.hint).toBeTruthy()
  })

  it('reports a body that is not JSON as a bad response', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<html><title>Sign in</title></html>')
    })
    await expect(make(baseURL).search('llama')).rejects.toMatchObject({
      code: 'bad-response',
      provider: name,
      providerMessage: '<html><title>Sign in</title></html>',
    })
  })

  it('times out a silent server', async () => {
    const baseURL = await serve(() => {})
    await expect(make(baseURL, { timeoutMs: 50, maxRetries: 0 }).search('llama')).rejects.toMatchObject({ code: 'timeout', provider: name })
  })

  it('aborts an in-flight request', async () => {
    // The server announces the request and never answers: the abort lands mid-request.
    let requestArrived!: () => void
    const arrived = new Promise<void>((resolve) => (requestArrived = resolve))
    const baseURL = await serve(() => requestArrived())
    const controller = new AbortController()
    const pending = make(baseURL).search('llama', { signal: controller.signal })
    await arrived
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'aborted' })
  })
})

describe('provider-specific errors and options', () => {
  it('tavily explains its plan (432) and spending (433) limits', async () => {
    const baseURL = await serve((_req, res, attempt) => json('{"detail":{"error":"limit"}}', attempt === 1 ? 432 : 433)(_req, res, attempt))
    const search = tavily({ apiKey: KEY, baseURL, maxRetries: 0 })
    await expect(search.search('q')).rejects.toMatchObject({ status: 432, hint: expect.stringContaining('plan') })
    await expect(search.search('q')).rejects.toMatchObject({ status: 433, hint: expect.stringContaining('spending limit') })
  })

  it('brave explains a refused token (422)', async () => {
    const baseURL = await serve(
      json('{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":422}}', 422),
    )
    await expect(brave({ apiKey: KEY, baseURL }).search('q')).rejects.toMatchObject({
      status: 422,
      providerMessage: 'The provided subscription token is invalid.',
      hint: expect.stringContaining('BRAVE_API_KEY'),
    })
  })

  it('searxng explains a 403 as the json format being disabled', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/html' })
      res.end('<!doctype html><title>403 Forbidden</title>')
    })
    await expect(searxng({ baseURL }).search('q')).rejects.toMatchObject({ status: 403, hint: expect.stringContaining('settings.yml') })
  })

  it('refuses to start without a key or an instance URL, and says how to fix it', () => {
    const saved = { brave: process.env.BRAVE_API_KEY, tavily: process.env.TAVILY_API_KEY }
    delete process.env.BRAVE_API_KEY
    delete process.env.TAVILY_API_KEY
    try {
      expect(() => brave()).toThrow(/BRAVE_API_KEY/)
      expect(() => tavily()).toThrow(/TAVILY_API_KEY/)
      expect(() => searxng({ baseURL: '' })).toThrow(/baseURL/)
    } finally {
      if (saved.brave !== undefined) process.env.BRAVE_API_KEY = saved.brave
      if (saved.tavily !== undefined) process.env.TAVILY_API_KEY = saved.tavily
    }
  })

  it('exposes search costs: brave and tavily list prices, searxng free, overridable', () => {
    expect(brave({ apiKey: KEY }).searchCost).toBe(0.005)
    expect(tavily({ apiKey: KEY }).searchCost).toBe(0.008)
    expect(tavily({ apiKey: KEY, searchDepth: 'advanced' }).searchCost).toBe(0.016)
    expect(tavily({ apiKey: KEY, searchCost: 0.01 }).searchCost).toBe(0.01)
    expect(searxng({ baseURL: 'http://localhost:8080' }).searchCost).toBe(0)
  })
})

describe('JSON result parsers, through each adapter', () => {
  /** JSON cannot write a non-finite number, but `1e999` reads back as Infinity: written so, in place of these markers. */
  const INFINITY = '\u0000+infinity\u0000'
  const MINUS_INFINITY = '\u0000-infinity\u0000'
  const asJson = (value: unknown) =>
    JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isNaN(v) && !Number.isFinite(v) ? (v > 0 ? INFINITY : MINUS_INFINITY) : v))
      .replaceAll(JSON.stringify(INFINITY), '1e999')
      .replaceAll(JSON.stringify(MINUS_INFINITY), '-1e999')

  it('never throw and only return well-formed web results, whatever the JSON the API answers', async () => {
    const entry = fc.record(
      {
        url: fc.oneof(fc.webUrl(), fc.string(), fc.constant(null)),
        title: fc.oneof(fc.string(), fc.integer()),
        content: fc.anything(),
        description: fc.string(),
        score: fc.oneof(fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    )
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ results: fc.oneof(fc.array(entry), fc.anything()) }),
      fc.record({ web: fc.record({ results: fc.oneof(fc.array(entry), fc.anything()) }) }),
    )
    // One server for every run: it answers each request with the body of the run at hand.
    let answer = ''
    const baseURL = await serve((_req, res) => json(answer)(_req, res, 1))
    const providers = cases.map((c) => c.make(baseURL, { maxRetries: 0 }))
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        answer = asJson(value)
        for (const provider of providers) {
          for (const result of await provider.search('llama', { limit: 20 })) {
            expect(result.url).toMatch(/^https?:/)
            expect(typeof result.title).toBe('string')
            expect(typeof result.snippet).toBe('string')
            if (result.score !== undefined) expect(Number.isFinite(result.score)).toBe(true)
          }
        }
      }),
    )
  })
})
