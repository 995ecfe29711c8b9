import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { arxiv, brave, combineSearch, createPacer, openAlex, pubmed, tavily } from '../../../src/adapters/index.js'
import type { SearchProvider, ResearchOptions, SearchOptions } from '../../../src/index.js'
import { loopbacks, type RecordedRequest } from '../http/loopback.js'

type SourceFilter = NonNullable<ResearchOptions['sources']>
type SourceFilterPart = Parameters<NonNullable<SearchOptions['onSourcesApplied']>>[0][number]

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/scholarly/${name}`, import.meta.url), 'utf8')
const serve = loopbacks()
const unpaced = () => createPacer({ intervalMs: 0 })
const fast = { maxRetries: 0, timeoutMs: 5000 }
const params = (request: RecordedRequest | undefined) => new URL(request?.url ?? '/', 'http://x').searchParams
const sources: SourceFilter = { allow: ['Example.com'], deny: ['ads.example.com'], after: '2023-02', before: '2024' }

async function searchWith(provider: SearchProvider, filter: SourceFilter | null = sources): Promise<SourceFilterPart[]> {
  const applied: SourceFilterPart[] = []
  await provider.search('llama diet', { ...(filter ? { sources: filter } : {}), onSourcesApplied: (parts) => applied.push(...parts) })
  return applied
}

const answer = (type: string, body: string) => (_req: RecordedRequest, res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': type })
  res.end(body)
}

describe('providers handed the run’s source rules', () => {
  it('tavily puts domains and dates in its request, and says it applied both', async () => {
    const server = await serve(
      answer(
        'application/json',
        JSON.stringify({ results: [{ title: 't', url: 'https://example.com/a', content: 'c', published_date: 'Tue, 05 Mar 2024 10:00:00 GMT' }] }),
      ),
    )
    const provider = tavily({ apiKey: 'tvly-test', baseURL: server.url, ...fast })
    expect(await searchWith(provider)).toEqual(['domains', 'dates'])
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({
      include_domains: ['example.com'],
      exclude_domains: ['ads.example.com'],
      start_date: '2023-02-01',
      end_date: '2024-12-31',
    })
    const [result] = await provider.search('x')
    expect(result?.published).toBe('2024-03-05')
    // Without rules: nothing added, nothing claimed.
    expect(await searchWith(provider, null)).toEqual([])
    expect(JSON.parse(server.requests[2]!.body)).not.toHaveProperty('include_domains')
  })

  it('openAlex adds the dates to its own filter, arXiv a submittedDate range, PubMed mindate/maxdate', async () => {
    const works = await serve(answer('application/json', fixture('openalex-works.json')))
    expect(await searchWith(openAlex({ baseURL: works.url, filter: 'is_oa:true', pacer: unpaced(), ...fast }))).toEqual(['dates'])
    expect(params(works.requests[0]).get('filter')).toBe('is_oa:true,from_publication_date:2023-02-01,to_publication_date:2024-12-31')

    const feed = await serve(answer('application/atom+xml', fixture('arxiv-search.xml')))
    expect(await searchWith(arxiv({ baseURL: feed.url, pacer: unpaced(), ...fast }), { after: '2023-02-01' })).toEqual(['dates'])
    expect(params(feed.requests[0]).get('search_query')).toBe('(llama diet) AND submittedDate:[202302010000 TO 299912312359]')

    const eutils = await serve((req, res) => {
      const body = req.url.startsWith('/esearch') ? fixture('pubmed-esearch.xml') : fixture('pubmed-esummary.xml')
      answer('application/xml', body)(req, res)
    })
    expect(await searchWith(pubmed({ baseURL: eutils.url, pacer: unpaced(), ...fast }))).toEqual(['dates'])
    const esearch = params(eutils.requests[0])
    expect([esearch.get('datetype'), esearch.get('mindate'), esearch.get('maxdate')]).toEqual(['pdat', '2023/02/01', '2024/12/31'])
    // Domains alone are nothing these APIs filter by: not claimed.
    expect(await searchWith(openAlex({ baseURL: works.url, pacer: unpaced(), ...fast }), { deny: ['example.com'] })).toEqual([])
  })

  it('brave asks for a freshness range unless its own freshness is set, and dates results by page_age', async () => {
    const body = JSON.stringify({ web: { results: [{ title: 't', url: 'https://example.com/a', description: 'd', page_age: '2024-03-05T10:00:00' }] } })
    const server = await serve(answer('application/json', body))
    const provider = brave({ apiKey: 'brave-test', baseURL: server.url, ...fast })
    expect(await searchWith(provider)).toEqual(['dates'])
    expect(params(server.requests[0]).get('freshness')).toBe('2023-02-01to2024-12-31')
    expect((await provider.search('x'))[0]?.published).toBe('2024-03-05')
    const own = brave({ apiKey: 'brave-test', baseURL: server.url, freshness: 'pw', ...fast })
    expect(await searchWith(own)).toEqual([])
    expect(params(server.requests[2]).get('freshness')).toBe('pw')
  })

  it('combineSearch tells only what every provider applied', async () => {
    const both: SearchProvider = {
      search: async (_q, opts) => {
        opts?.onSourcesApplied?.(['domains', 'dates'])
        return []
      },
    }
    const dates: SearchProvider = {
      search: async (_q, opts) => {
        opts?.onSourcesApplied?.(['dates'])
        return []
      },
    }
    const none: SearchProvider = { search: async () => [] }
    expect(await searchWith(combineSearch([both, dates]))).toEqual(['dates'])
    expect(await searchWith(combineSearch([both, none]))).toEqual([])
  })
})
