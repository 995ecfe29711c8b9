import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { combineSearch, createPacer, openAlex, semanticScholar } from '../../../src/adapters/index.js'
import { ProviderError } from '../../../src/index.js'
import { normalizeUrl } from '../../../src/strategy.js'
import { createAgent, type ResearchEvent, type SearchProvider, type SearchResult, type FetchedPage } from '../../../src/index.js'
import { assertEventInvariants, scriptedLLM } from '../../../src/testing/index.js'
import { loopbacks } from '../http/loopback.js'

type PageWarning = NonNullable<FetchedPage['warnings']>[number]

const serve = loopbacks()
const fixed = (results: SearchResult[]): SearchProvider => ({ search: async () => results })
const failing = (error: unknown): SearchProvider => ({
  search: async () => {
    throw error
  },
})
const result = (url: string, meta?: SearchResult['meta']): SearchResult => ({ title: url, url, snippet: '', ...(meta && { meta }) })

describe('combineSearch', () => {
  it('ranks first what several providers found, and keeps each work once by URL, DOI or arXiv id', async () => {
    const a = fixed([
      result('https://arxiv.org/pdf/2202.12139v1', { arxivId: '2202.12139', pdfUrl: 'https://arxiv.org/pdf/2202.12139v1' }),
      result('https://example.org/only-a'),
    ])
    const b = fixed([
      result('https://example.org/only-b'),
      result('https://doi.org/10.1109/icstw55395.2022.00035', { doi: '10.1109/icstw55395.2022.00035', arxivId: '2202.12139', year: 2022 }),
      result('https://WWW.example.org/only-a/?utm_source=x'),
    ])
    const found = await combineSearch([a, b]).search('q')
    expect(found.map((r) => r.url)).toEqual(['https://arxiv.org/pdf/2202.12139v1', 'https://example.org/only-a', 'https://example.org/only-b'])
    // The work kept takes the facts the other provider adds.
    expect(found[0]?.meta).toEqual({ arxivId: '2202.12139', pdfUrl: 'https://arxiv.org/pdf/2202.12139v1', doi: '10.1109/icstw55395.2022.00035', year: 2022 })
  })

  it('weights a provider', async () => {
    const a = fixed([result('https://a.example/1'), result('https://a.example/2')])
    const b = fixed([result('https://b.example/1'), result('https://b.example/2')])
    expect((await combineSearch([a, b]).search('q')).map((r) => r.url)[0]).toBe('https://a.example/1')
    expect((await combineSearch([a, b], { weights: [1, 2] }).search('q')).map((r) => r.url)).toEqual([
      'https://b.example/1',
      'https://b.example/2',
      'https://a.example/1',
      'https://a.example/2',
    ])
  })

  it("degrades a failing provider to a warning and keeps the others' results", async () => {
    const warnings: PageWarning[] = []
    const broken = failing(new ProviderError('arxiv: HTTP 503', { code: 'http', provider: 'arxiv', status: 503 }))
    const found = await combineSearch([broken, fixed([result('https://ok.example/')])]).search('q', { onWarning: (w) => warnings.push(w) })
    expect(found.map((r) => r.url)).toEqual(['https://ok.example/'])
    expect(warnings).toEqual([{ code: 'search-partial', message: "arxiv failed, the other providers' results are used: arxiv: HTTP 503" }])
  })

  it('fails with the first error when every provider fails', async () => {
    const first = new ProviderError('arxiv: HTTP 429', { code: 'rate-limit', provider: 'arxiv', status: 429 })
    await expect(combineSearch([failing(first), failing(new Error('second'))]).search('q')).rejects.toBe(first)
  })

  it('passes an abort on rather than degrading it', async () => {
    const controller = new AbortController()
    controller.abort()
    const aborting: SearchProvider = {
      search: async (_q, opts) => {
        opts?.signal?.throwIfAborted()
        return []
      },
    }
    await expect(combineSearch([aborting, fixed([result('https://ok.example/')])]).search('q', { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    })
  })

  it('passes the limit, the signal and the callbacks on, and cuts the fused list to the limit', async () => {
    const seen: (number | undefined)[] = []
    const spy: SearchProvider = {
      search: async (_q, opts) => {
        seen.push(opts?.limit)
        return [result('https://a.example/1'), result('https://a.example/2'), result('https://a.example/3')]
      },
    }
    expect(await combineSearch([spy, spy]).search('q', { limit: 2 })).toHaveLength(2)
    expect(seen).toEqual([2, 2])
  })

  it('costs what its providers cost, and refuses no providers or a negative weight', () => {
    expect(combineSearch([{ ...fixed([]), searchCost: 0.005 }, { ...fixed([]), searchCost: 0.008 }, fixed([])]).searchCost).toBeCloseTo(0.013)
    expect(combineSearch([fixed([])]).searchCost).toBeUndefined()
    expect(() => combineSearch([])).toThrow(/no providers/)
    expect(() => combineSearch([fixed([])], { weights: [-1] })).toThrow(/weight/)
  })

  it('keeps a paper found by OpenAlex and Semantic Scholar once, by its DOI (recorded responses)', async () => {
    const fixture = (name: string) => readFileSync(new URL(`../../fixtures/scholarly/${name}`, import.meta.url), 'utf8')
    const server = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(fixture(req.url.startsWith('/works') ? 'openalex-works.json' : 'semanticscholar-search.json'))
    })
    const pacer = createPacer({ intervalMs: 0 })
    const found = await combineSearch([openAlex({ baseURL: server.url, pacer }), semanticScholar({ baseURL: server.url, pacer })]).search('turing')
    const turing = found.filter((r) => r.meta?.doi === '10.1093/mind/lix.236.433')
    expect(turing).toHaveLength(1)
    // Found by both, so it outranks what only one of them found at the same rank.
    expect(found.indexOf(turing[0] as SearchResult)).toBe(0)
    expect(found).toHaveLength(2 + 4 - 1)
  })
})

describe('combineSearch in a run', () => {
  it("a failing provider is a warning of the search's query, and the run reads the others' results", async () => {
    const broken = failing(new ProviderError('semanticscholar: HTTP 429', { code: 'rate-limit', provider: 'semanticscholar', status: 429 }))
    const working = fixed([{ title: 'Llama', url: 'https://en.wikipedia.org/wiki/Llama', snippet: 'Llamas eat grass.' }])
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: llama diet', 'Action: Answer'] })
    const agent = createAgent({
      models: { planner, synthesizer: scriptedLLM({ replies: ['Llamas eat grass.', 'They eat grass.'] }) },
      search: combineSearch([broken, working]),
    })
    const events: ResearchEvent[] = []
    for await (const event of agent.research('What do llamas eat?')) events.push(event)
    assertEventInvariants(events)
    const query = events.find((event) => event.type === 'query')
    const partial = events.filter((event) => event.type === 'warning' && event.code === 'search-partial')
    expect(partial).toMatchObject([{ queryId: query?.type === 'query' ? query.queryId : 'none', message: expect.stringMatching(/^semanticscholar failed/) }])
    const result = events.find((event) => event.type === 'result')
    expect(result).toMatchObject({ results: [{ url: 'https://en.wikipedia.org/wiki/Llama' }] })
  })
})

/** Results over a small pool of URLs and DOIs, so that lists overlap. */
const pooled = fc.record(
  {
    url: fc.constantFrom(
      'https://a.example/1',
      'https://a.example/2',
      'https://www.a.example/1/',
      'https://b.example/x',
      'https://c.example/y?utm_source=z',
      'https://c.example/y',
    ),
    doi: fc.constantFrom('10.1000/one', '10.1000/two', '10.1000/three'),
    withDoi: fc.boolean(),
  },
  { requiredKeys: ['url', 'doi', 'withDoi'] },
)
const lists = fc.array(fc.array(pooled, { maxLength: 6 }), { minLength: 1, maxLength: 4 })
const asResults = (entries: { url: string; doi: string; withDoi: boolean }[]) => entries.map((e) => result(e.url, e.withDoi ? { doi: e.doi } : undefined))

describe('combineSearch properties', () => {
  it('lists each canonical URL and each DOI once', async () => {
    await fc.assert(
      fc.asyncProperty(lists, async (entries) => {
        const found = await combineSearch(entries.map((list) => fixed(asResults(list)))).search('q')
        const urls = found.map((r) => normalizeUrl(r.url))
        const dois = found.flatMap((r) => (r.meta?.doi ? [r.meta.doi] : []))
        expect(new Set(urls).size).toBe(urls.length)
        expect(new Set(dois).size).toBe(dois.length)
      }),
    )
  })

  it('never ranks a result found by more providers below one found by fewer at the same ranks', async () => {
    // Distinct URLs per list; item i of list j is `https://w.example/<id>`.
    const ids = fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 6 }), { minLength: 1, maxLength: 4 })
    await fc.assert(
      fc.asyncProperty(ids, async (idLists) => {
        const combined = combineSearch(idLists.map((list) => fixed(list.map((id) => result(`https://w.example/${id}`)))))
        const found = (await combined.search('q')).map((r) => Number(r.url.split('/').pop()))
        const ranks = (id: number) => idLists.map((list) => list.indexOf(id))
        for (const x of found) {
          for (const y of found) {
            const [rx, ry] = [ranks(x), ranks(y)]
            // x is in every list y is in, at a rank no worse, and in at least one more.
            const dominates =
              ry.every((r, j) => r === -1 || (rx[j] !== -1 && (rx[j] as number) <= r)) && rx.filter((r) => r !== -1).length > ry.filter((r) => r !== -1).length
            if (dominates) expect(found.indexOf(x)).toBeLessThan(found.indexOf(y))
          }
        }
      }),
    )
  })

  it('gives the same results in the same order whatever the order of equally weighted providers', async () => {
    const shuffle = lists.chain((entries) =>
      fc.tuple(fc.constant(entries), fc.shuffledSubarray([...entries.keys()], { minLength: entries.length, maxLength: entries.length })),
    )
    await fc.assert(
      fc.asyncProperty(shuffle, async ([entries, order]) => {
        const straight = await combineSearch(entries.map((list) => fixed(asResults(list)))).search('q')
        const shuffled = await combineSearch(order.map((i) => fixed(asResults(entries[i] ?? [])))).search('q')
        expect(shuffled).toEqual(straight)
      }),
    )
  })
})
