import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type FetchProvider, type ResearchEvent, type SearchProvider, type SearchResult } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { dateAllowed, hostOf, hostUnder, normalizeDomain, sourceRules, urlAllowed } from '../../src/core/run/allowed-sources.js'
import { assertEventInvariants, scriptedLLM } from '../../src/testing/index.js'

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/)
const domain = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => `${labels.join('.')}.com`)

describe('domain matching', () => {
  it('matches a domain and every subdomain of it, whatever the case or a trailing dot', () => {
    fc.assert(
      fc.property(domain, fc.array(label, { maxLength: 3 }), fc.boolean(), fc.boolean(), (base, sub, upper, dot) => {
        const rules = sourceRules({ allow: [upper ? base.toUpperCase() : base] })!
        const host = [...sub, base].join('.')
        const url = `https://${upper ? host : host.toUpperCase()}${dot ? '.' : ''}/page`
        expect(urlAllowed(rules, url)).toBe(true)
        expect(urlAllowed(sourceRules({ deny: [`${base}${dot ? '.' : ''}`] })!, url)).toBe(false)
      }),
    )
  })

  it('never matches a look-alike: a name that only ends with the domain, or contains it', () => {
    fc.assert(
      fc.property(domain, label, (base, prefix) => {
        const rules = sourceRules({ allow: [base] })!
        expect(urlAllowed(rules, `https://${prefix}-${base}/`)).toBe(false)
        expect(urlAllowed(rules, `https://${prefix}${base}/`)).toBe(false)
        expect(urlAllowed(rules, `https://${base}.${prefix}.net/`)).toBe(false)
        expect(urlAllowed(rules, `https://${prefix}.net/${base}`)).toBe(false)
        expect(urlAllowed(rules, `https://${base}@${prefix}.net/`)).toBe(false)
      }),
    )
    expect(urlAllowed(sourceRules({ allow: ['example.com'] })!, 'https://evil-example.com/')).toBe(false)
    expect(urlAllowed(sourceRules({ deny: ['example.com'] })!, 'https://evil-example.com/')).toBe(true)
  })

  it('compares internationalized names in one form, written either way', () => {
    expect(normalizeDomain('Bücher.DE.')).toBe('xn--bcher-kva.de')
    expect(normalizeDomain('*.example.com')).toBe('example.com')
    expect(normalizeDomain('https://www.Example.com/path')).toBe('www.example.com')
    expect(urlAllowed(sourceRules({ allow: ['bücher.de'] })!, 'https://shop.xn--bcher-kva.de/')).toBe(true)
    expect(urlAllowed(sourceRules({ allow: ['xn--bcher-kva.de'] })!, 'https://shop.bücher.de/')).toBe(true)
    expect(hostOf('not a url')).toBeUndefined()
  })

  it('lets deny win over allow, and keeps hostless URLs out of an allow list only', () => {
    const rules = sourceRules({ allow: ['example.com'], deny: ['ads.example.com'] })!
    expect(urlAllowed(rules, 'https://news.example.com/a')).toBe(true)
    expect(urlAllowed(rules, 'https://x.ads.example.com/a')).toBe(false)
    expect(urlAllowed(rules, 'file:///etc/hosts')).toBe(false)
    expect(urlAllowed(sourceRules({ deny: ['example.com'] })!, 'file:///etc/hosts')).toBe(true)
  })

  it('hostUnder is exactly "equal or ends with a dot and the domain"', () => {
    fc.assert(
      fc.property(domain, domain, (host, base) => {
        expect(hostUnder(host, base)).toBe(host === base || host.endsWith(`.${base}`))
      }),
    )
  })

  it('refuses what is not a domain or a date, with a config error naming it', () => {
    expect(() => sourceRules({ allow: ['exa mple.com'] })).toThrow(/sources\.allow/)
    expect(() => sourceRules({ deny: 'example.com' })).toThrow(/list of domains/)
    expect(() => sourceRules({ after: '2024-13-01' })).toThrow(/sources\.after/)
    expect(() => sourceRules({ before: 'yesterday' })).toThrow(/sources\.before/)
    expect(() => sourceRules({ after: '2025', before: '2024' })).toThrow(/later than/)
    expect(() => sourceRules({ since: '2024' })).toThrow(/no option `since`/)
    expect(() => createAgent({ llm: scriptedLLM({ replies: [] }), sources: { after: 'soon' } })).toThrow(/sources\.after/)
  })
})

describe('date filtering', () => {
  const day = fc.date({ min: new Date('1990-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))

  it('keeps a dated result exactly when its date is inside the window (both ends inclusive)', () => {
    fc.assert(
      fc.property(day, day, day, (a, b, published) => {
        const [after, before] = a <= b ? [a, b] : [b, a]
        const rules = sourceRules({ after, before })!
        expect(dateAllowed(rules, { published })).toBe(published >= after && published <= before)
      }),
    )
  })

  it('counts a work dated by its year for any day of that year', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 1990, max: 2030 }), (after, year) => {
        const rules = sourceRules({ after })!
        expect(dateAllowed(rules, { meta: { year } })).toBe(year >= Number(after.slice(0, 4)))
      }),
    )
  })

  it('keeps an undated result unless strictDates, and under strictDates when the provider filtered by date', () => {
    const loose = sourceRules({ after: '2024' })!
    const strict = sourceRules({ after: '2024', strictDates: true })!
    expect(dateAllowed(loose, {})).toBe(true)
    expect(dateAllowed(strict, {})).toBe(false)
    expect(dateAllowed(strict, {}, true)).toBe(true)
    expect(dateAllowed(strict, { published: 'garbage' })).toBe(false)
    expect(dateAllowed(sourceRules({ before: '2024-02' })!, { published: '2024-02-29' })).toBe(true)
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
