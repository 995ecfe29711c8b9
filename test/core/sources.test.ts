import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type FetchProvider, type ResearchEvent, type SearchProvider, type SearchResult } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { assertEventInvariants, scriptedLLM } from '../../src/testing/index.js'

type Sources = NonNullable<Parameters<typeof createAgent>[0]['sources']>

/** Whether a run under `sources` keeps `result` of its search (`applied`: what the provider says it applied of the rules). */
async function kept(sources: Sources, result: Omit<SearchResult, 'title' | 'snippet'>, applied: ('domains' | 'dates')[] = []): Promise<boolean> {
  const search: SearchProvider = {
    async search(_query, opts = {}) {
      if (applied.length) opts.onSourcesApplied?.(applied)
      return [{ title: 'the result', snippet: 's', ...result }]
    },
  }
  const searchOnce: Strategy = {
    name: 'search-once',
    async *run(_question, ctx) {
      yield* ctx.runSearch('q')
    },
  }
  let results: SearchResult[] | undefined
  for await (const event of createAgent({ llm: scriptedLLM({ replies: [] }), search, strategy: searchOnce, sources }).research('q?')) {
    if (event.type === 'result') results = event.results
  }
  if (!results) throw new Error('the run made no search')
  return results.length === 1
}

/** Whether a run under `sources` keeps a search result at `url`. */
const urlAllowed = (sources: Sources, url: string) => kept(sources, { url })

/** Whether a run under `sources` keeps a search result at a URL dated as `dated` says. */
const dateAllowed = (sources: Sources, dated: Pick<SearchResult, 'published' | 'meta'>, providerFilteredDates = false) =>
  kept(sources, { url: 'https://dated.example/', ...dated }, providerFilteredDates ? ['dates'] : [])

/** The config error an agent under `sources` is refused with. */
const refused = (sources: unknown) => () => createAgent({ llm: scriptedLLM({ replies: [] }), sources: sources as Sources })

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/)
const domain = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => `${labels.join('.')}.com`)

describe('domain matching', () => {
  it('matches a domain and every subdomain of it, whatever the case or a trailing dot', async () => {
    await fc.assert(
      fc.asyncProperty(domain, fc.array(label, { maxLength: 3 }), fc.boolean(), fc.boolean(), async (base, sub, upper, dot) => {
        const rules = { allow: [upper ? base.toUpperCase() : base] }
        const host = [...sub, base].join('.')
        const url = `https://${upper ? host : host.toUpperCase()}${dot ? '.' : ''}/page`
        expect(await urlAllowed(rules, url)).toBe(true)
        expect(await urlAllowed({ deny: [`${base}${dot ? '.' : ''}`] }, url)).toBe(false)
      }),
    )
  })

  it('never matches a look-alike: a name that only ends with the domain, or contains it', async () => {
    await fc.assert(
      fc.asyncProperty(domain, label, async (base, prefix) => {
        const rules = { allow: [base] }
        expect(await urlAllowed(rules, `https://${prefix}-${base}/`)).toBe(false)
        expect(await urlAllowed(rules, `https://${prefix}${base}/`)).toBe(false)
        expect(await urlAllowed(rules, `https://${base}.${prefix}.net/`)).toBe(false)
        expect(await urlAllowed(rules, `https://${prefix}.net/${base}`)).toBe(false)
        expect(await urlAllowed(rules, `https://${base}@${prefix}.net/`)).toBe(false)
      }),
    )
    expect(await urlAllowed({ allow: ['example.com'] }, 'https://evil-example.com/')).toBe(false)
    expect(await urlAllowed({ deny: ['example.com'] }, 'https://evil-example.com/')).toBe(true)
  })

  it('compares internationalized names in one form, written either way', async () => {
    // A domain given as 'Bücher.DE.' is xn--bcher-kva.de; '*.example.com' is example.com; a URL is its host.
    expect(await urlAllowed({ allow: ['Bücher.DE.'] }, 'https://xn--bcher-kva.de/')).toBe(true)
    expect(await urlAllowed({ allow: ['Bücher.DE.'] }, 'https://xn--bcher-kva-de.example/')).toBe(false)
    expect(await urlAllowed({ allow: ['*.example.com'] }, 'https://example.com/')).toBe(true)
    expect(await urlAllowed({ allow: ['https://www.Example.com/path'] }, 'https://www.example.com/other')).toBe(true)
    expect(await urlAllowed({ allow: ['https://www.Example.com/path'] }, 'https://example.com/path')).toBe(false)
    expect(await urlAllowed({ allow: ['bücher.de'] }, 'https://shop.xn--bcher-kva.de/')).toBe(true)
    expect(await urlAllowed({ allow: ['xn--bcher-kva.de'] }, 'https://shop.bücher.de/')).toBe(true)
    // Text that is not a URL has no host: out of an allow list, not out of a deny list.
    expect(await urlAllowed({ allow: ['example.com'] }, 'not a url')).toBe(false)
    expect(await urlAllowed({ deny: ['example.com'] }, 'not a url')).toBe(true)
  })

  it('lets deny win over allow, and keeps hostless URLs out of an allow list only', async () => {
    const rules = { allow: ['example.com'], deny: ['ads.example.com'] }
    expect(await urlAllowed(rules, 'https://news.example.com/a')).toBe(true)
    expect(await urlAllowed(rules, 'https://x.ads.example.com/a')).toBe(false)
    expect(await urlAllowed(rules, 'file:///etc/hosts')).toBe(false)
    expect(await urlAllowed({ deny: ['example.com'] }, 'file:///etc/hosts')).toBe(true)
  })

  it('a host is under a domain exactly when "equal or ends with a dot and the domain"', async () => {
    await fc.assert(
      fc.asyncProperty(domain, domain, async (host, base) => {
        expect(await urlAllowed({ allow: [base] }, `https://${host}/`)).toBe(host === base || host.endsWith(`.${base}`))
      }),
    )
  })

  it('refuses what is not a domain or a date, with a config error naming it', () => {
    expect(refused({ allow: ['exa mple.com'] })).toThrow(/sources\.allow/)
    expect(refused({ deny: 'example.com' })).toThrow(/list of domains/)
    expect(refused({ after: '2024-13-01' })).toThrow(/sources\.after/)
    expect(refused({ before: 'yesterday' })).toThrow(/sources\.before/)
    expect(refused({ after: '2025', before: '2024' })).toThrow(/later than/)
    expect(refused({ since: '2024' })).toThrow(/no option `since`/)
    expect(refused({ after: 'soon' })).toThrow(expect.objectContaining({ code: 'config', message: expect.stringMatching(/sources\.after/) }))
  })
})

describe('date filtering', () => {
  const day = fc.date({ min: new Date('1990-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))

  it('keeps a dated result exactly when its date is inside the window (both ends inclusive)', async () => {
    await fc.assert(
      fc.asyncProperty(day, day, day, async (a, b, published) => {
        const [after, before] = a <= b ? [a, b] : [b, a]
        expect(await dateAllowed({ after, before }, { published })).toBe(published >= after && published <= before)
      }),
    )
  })

  it('counts a work dated by its year for any day of that year', async () => {
    await fc.assert(
      fc.asyncProperty(day, fc.integer({ min: 1990, max: 2030 }), async (after, year) => {
        expect(await dateAllowed({ after }, { meta: { year } })).toBe(year >= Number(after.slice(0, 4)))
      }),
    )
  })

  it('keeps an undated result unless strictDates, and under strictDates when the provider filtered by date', async () => {
    const loose = { after: '2024' }
    const strict = { after: '2024', strictDates: true }
    expect(await dateAllowed(loose, {})).toBe(true)
    expect(await dateAllowed(strict, {})).toBe(false)
    expect(await dateAllowed(strict, {}, true)).toBe(true)
    expect(await dateAllowed(strict, { published: 'garbage' })).toBe(false)
    expect(await dateAllowed({ before: '2024-02' }, { published: '2024-02-29' })).toBe(true)
  })
})

describe('a run with sources', () => {
  const results: SearchResult[] = [
    { title: 'Kept', url: 'https://docs.example.com/a', snippet: 'a', published: '2024-05-01' },
    { title: 'Denied', url: 'https://ads.example.com/b', snippet: 'b', published: '2024-05-01' },
    { title: 'Elsewhere', url: 'https://other.org/c', snippet: 'c', published: '2024-05-01' },
    { title: 'Too old', url: 'https://example.com/d', snippet: 'd', meta: { year: 2019 } },
    { title: 'Undated', url: 'https://example.com/e', snippet: 'e' },
  ]
  /** A search that records what the run handed it, and says it applied the domains. */
  const recordingSearch = (seen: unknown[]): SearchProvider => ({
    async search(_query, opts = {}) {
      seen.push(opts.sources)
      opts.onSourcesApplied?.(['domains'])
      return results.map((result) => ({ ...result }))
    },
  })
  const strategy: Strategy = {
    name: 'search-then-read',
    async *run(_question, ctx) {
      yield* ctx.runSearch('q')
      yield* ctx.readPage('https://ads.example.com/b')
      yield* ctx.readPage('https://docs.example.com/a')
      yield* ctx.readPage('https://docs.example.com/moved')
    },
  }
  const collect = async (events: AsyncIterable<ResearchEvent>) => {
    const all: ResearchEvent[] = []
    for await (const event of events) all.push(event)
    return assertEventInvariants(all) as ResearchEvent[]
  }

  it('hands the rules to the provider, filters the results, counts them, and refuses denied pages before fetching', async () => {
    const seen: unknown[] = []
    // A fetcher whose 'moved' page is redirected to a denied domain.
    const calls: string[] = []
    const fetch: FetchProvider = {
      fetch: async (url) => {
        calls.push(url)
        return url.endsWith('/moved') ? { url: 'https://ads.example.com/landing', text: 'ad' } : { url, text: 'text' }
      },
    }
    const sources = { allow: ['example.com'], deny: ['ads.example.com'], after: '2024-01-01' }
    const agent = createAgent({ llm: scriptedLLM({ replies: [] }), search: recordingSearch(seen), fetch, strategy, sources })
    const events = await collect(agent.research('what?'))
    expect(seen).toEqual([sources])
    const result = events.find((event) => event.type === 'result')
    expect(result?.type === 'result' && result.results.map((r) => r.title)).toEqual(['Kept', 'Undated'])
    expect(result?.type === 'result' && result.sourcesFiltered).toBe(3)
    // Refused before the request: the fetcher never saw the denied URL.
    expect(calls).toEqual(['https://docs.example.com/a', 'https://docs.example.com/moved'])
    expect(events.filter((event) => event.type === 'page').map((event) => event.type === 'page' && event.url)).toEqual(['https://docs.example.com/a'])
    expect(events.filter((event) => event.type === 'warning' && event.code === 'source-denied')).toHaveLength(2)
  })

  it("lets a run's own sources replace the agent's, and strictDates drop what has no date", async () => {
    const seen: unknown[] = []
    const agent = createAgent({ llm: scriptedLLM({ replies: [] }), search: recordingSearch(seen), strategy, sources: { deny: ['example.com'] } })
    const events = await collect(agent.research('what?', { sources: { after: '2024-01-01', strictDates: true } }))
    const result = events.find((event) => event.type === 'result')
    expect(result?.type === 'result' && result.results.map((r) => r.title)).toEqual(['Kept', 'Denied', 'Elsewhere'])
    expect(result?.type === 'result' && result.sourcesFiltered).toBe(2)
    expect(() => agent.research('what?', { sources: { before: 'never' } })).toThrow(/sources\.before/)
  })

  it('has no sources-filtered figure and hands no rules without sources', async () => {
    const seen: unknown[] = []
    const agent = createAgent({ llm: scriptedLLM({ replies: [] }), search: recordingSearch(seen), strategy })
    const events = await collect(agent.research('what?'))
    const result = events.find((event) => event.type === 'result')
    expect(result?.type === 'result' && result.results).toHaveLength(5)
    expect(result && 'sourcesFiltered' in result).toBe(false)
    expect(seen).toEqual([undefined])
  })
})

describe('page reads by their published date', () => {
  // Pages as a fetcher reads them: dated by their own markup, or not.
  const pages: Record<string, { published?: string }> = {
    'https://news.example/new': { published: '2024-06-01' },
    'https://news.example/old': { published: '2019-03-29' },
    'https://news.example/undated': {},
    'https://news.example/undated-but-found': {},
    'https://news.example/old-but-found-new': { published: '2019-03-29' },
  }
  const fetch: FetchProvider = {
    fetch: async (url) => ({ url, text: `the text of ${url}`, ...pages[url] }),
  }
  // The search finds two of them, dated by the engine.
  const search: SearchProvider = {
    search: async () => [
      { title: 'Found', url: 'https://news.example/undated-but-found', snippet: 's', published: '2024-02-02' },
      { title: 'Found too', url: 'https://news.example/old-but-found-new', snippet: 's', published: '2024-02-02' },
    ],
  }
  const strategy: Strategy = {
    name: 'search-then-read-all',
    async *run(_question, ctx) {
      yield* ctx.runSearch('q')
      for (const url of Object.keys(pages)) yield* ctx.readPage(url)
    },
  }
  const readAll = async (sources: object) => {
    const events: ResearchEvent[] = []
    for await (const event of createAgent({ llm: scriptedLLM({ replies: [] }), search, fetch, strategy, sources }).research('what?')) events.push(event)
    assertEventInvariants(events)
    const read = events.flatMap((event) => (event.type === 'page' ? [event.url] : []))
    const warnings = events.flatMap((event) => (event.type === 'warning' && event.code === 'source-denied' ? [event.message] : []))
    const fetches = (events.at(-1) as { cost: { fetches: number } }).cost.fetches
    return { read, warnings, fetches }
  }

  it("drops a page its own date puts outside the window (the fetch counted), judging an undated one by its search result's date, else keeping it", async () => {
    const { read, warnings, fetches } = await readAll({ after: '2024-01-01' })
    expect(read).toEqual(['https://news.example/new', 'https://news.example/undated', 'https://news.example/undated-but-found'])
    expect(warnings).toEqual([
      "https://news.example/old is not used: it was published 2019-03-29, outside the run's sources dates (from 2024-01-01)",
      "https://news.example/old-but-found-new is not used: it was published 2019-03-29, outside the run's sources dates (from 2024-01-01)",
    ])
    expect(fetches).toBe(5)
  })

  it('under strictDates drops a page dated neither by itself nor by a search result', async () => {
    const { read, warnings } = await readAll({ after: '2024-01-01', before: '2024-12-31', strictDates: true })
    expect(read).toEqual(['https://news.example/new', 'https://news.example/undated-but-found'])
    expect(warnings).toContain(
      "https://news.example/undated is not used: it gives no published date, and the run's sources rules keep only dated sources (strictDates)",
    )
  })

  it('reads every page when the rules set no dates', async () => {
    expect((await readAll({ deny: ['elsewhere.example'] })).read).toHaveLength(5)
  })
})
