/**
 * DuckDuckGo's results pages as `duckduckgo()` reads them: the recorded pages served from a
 * loopback server, what the search returns (or the error it throws) asserted. A page of results
 * is those results, an explicit "no results" page is `[]`, and anything else is throttling: a
 * `rate-limit` error, never an empty list.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createPacer, duckduckgo } from '../../../src/adapters/index.js'
import { parseDuckDuckGoPage } from '../../../src/adapters/search/duckduckgo-parse.js'
import type { SearchResult } from '../../../src/index.js'
import { nestedResultBlocks } from '../../fixtures/hostile/pages.js'
import { pendingAfterALoopTurn } from '../../support/loop-turn.js'
import { loopbacks } from '../http/loopback.js'

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')
const serve = loopbacks()

/** A server answering every search with `page()` (the page of the moment), and `duckduckgo()` pointed at it, unpaced and not retrying. */
async function searchServing(page: () => string, fetch?: typeof globalThis.fetch) {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' })
    res.end(page())
  })
  const provider = duckduckgo({ endpoint: `${server.url}/html/`, pacer: createPacer({ intervalMs: 0 }), maxRetries: 0, ...(fetch && { fetch }) })
  return (options?: { signal?: AbortSignal }): Promise<SearchResult[]> => provider.search('llama', options)
}
const searchOf = (page: string) => searchServing(() => page)

describe('duckduckgo() reading a results page', () => {
  it('reads the HTML layout: <b> in titles, entities, uddg unwrapped, ads dropped, snippets paired by block', async () => {
    const search = await searchOf(fixture('ddg-html.html'))
    expect(await search()).toEqual([
      {
        title: 'Llama - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Llama#Diet',
        snippet: "Llamas are herbivores & graze on grasses; they're efficient eaters.",
      },
      { title: 'What do llamas eat? — FAO', url: 'https://www.fao.org/camelids/diet?lang=en&x=1', snippet: '' },
      { title: 'Étude sur les lamas', url: 'https://example.org/%C3%A9tude?q=lama&p=2', snippet: "Les lamas mangent de l'herbe." },
    ])
  })

  it('reads the lite layout, whatever the attribute quoting', async () => {
    const search = await searchOf(fixture('ddg-lite.html'))
    expect(await search()).toEqual([
      { title: 'Llama - Wikipedia', url: 'https://en.wikipedia.org/wiki/Llama', snippet: 'Llamas graze & browse.' },
      { title: 'Llama care guide', url: 'https://www.llama.example/care', snippet: '' },
      { title: 'Feeding llamas', url: 'https://vet.example/llamas', snippet: 'Hay, pasture and "minerals".' },
    ])
  })

  it('tells an explicit "no results" page from a throttling page', async () => {
    expect(await (await searchOf(fixture('ddg-no-results.html')))()).toEqual([])
    const throttled = { name: 'ProviderError', code: 'rate-limit', status: 200 }
    await expect((await searchOf(fixture('ddg-anomaly.html')))()).rejects.toMatchObject(throttled)
    await expect((await searchOf(''))()).rejects.toMatchObject(throttled)
  })

  it('never fails but as throttling, whatever the page', async () => {
    const fragments = fc.constantFrom(
      '<div class="result">',
      '<a class="result__a" href="',
      '//duckduckgo.com/l/?uddg=',
      '%',
      '"',
      '>',
      '</a>',
      '<b>',
      '&amp;',
      '&#x',
      '<tr>',
      "<a class='result-link' href=",
      '</div>',
      'y.js',
      'no results',
    )
    let page = ''
    const search = await searchServing(() => page)
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.array(fc.oneof(fragments, fc.string()), { maxLength: 30 }).map((parts) => parts.join('')),
        ),
        async (html) => {
          page = html
          let results: SearchResult[] = []
          try {
            results = await search()
          } catch (error) {
            // A page that is neither results nor "no results" reads as throttling; nothing else fails.
            expect(error).toMatchObject({ name: 'ProviderError', code: 'rate-limit', status: 200 })
          }
          for (const result of results) expect(result.url).toMatch(/^https?:\/\//)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('unwraps redirects and refuses ads and non-web links', async () => {
    const hrefs = [
      '//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=z',
      'https://duckduckgo.com/y.js?ad_domain=a.example',
      '//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fy.js%3Fad%3D1',
      '//duckduckgo.com/l/?uddg=javascript%3Aalert(1)',
      'javascript:alert(1)',
      '/html/?q=next',
      null,
    ]
    const blocks = hrefs.map(
      (href, i) => `<div class="result"><a class="result__a"${href === null ? '' : ` href="${href.replaceAll('&', '&amp;')}"`}>link ${i}</a></div>`,
    )
    const search = await searchOf(`<html><body>${blocks.join('')}</body></html>`)
    // Only the first link leads to a web page: the redirect, unwrapped.
    expect((await search()).map((result) => [result.title, result.url])).toEqual([['link 0', 'https://a.example/x?y=1']])
  })
})

describe('duckduckgo() reading a hostile page', () => {
  // 8,000 nested result blocks keep a DOM walk busy for many seconds.
  const hostile = nestedResultBlocks(8_000)

  it('reads it off the main thread: the event loop turns while it is read, and an abort ends the read', { timeout: 60_000 }, async () => {
    // The body's end, seen as the adapter reads it: from there on, the page is being read.
    let bodyEnded!: () => void
    const ended = new Promise<void>((resolve) => (bodyEnded = resolve))
    let current = fixture('ddg-html.html')
    const observed: typeof globalThis.fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (!response.body || current !== hostile) return response
      const body = response.body.pipeThrough(new TransformStream({ flush: () => bodyEnded() }))
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    }
    const search = await searchServing(() => current, observed)
    // A thread is ready and idle once a small page has been read: the hostile one starts at once.
    expect(await search()).toHaveLength(3)
    current = hostile
    const controller = new AbortController()
    const reading = search({ signal: controller.signal })
    await ended
    // Read in place, the page would be done (after many seconds of a blocked loop) before this turn came.
    expect(await pendingAfterALoopTurn(reading)).toBe(true)
    controller.abort()
    await expect(reading).rejects.toMatchObject({ code: 'aborted' })
  })

  it('is unreadable once it outlives its time budget, saying why', async () => {
    // A budget far below the seconds the read takes always ends it, on any machine (only a read off
    // the main thread can be cut). The adapter's own 5 s budget, and the bad-response error it
    // makes of an unreadable page, are duckduckgo-unreadable.test.ts's.
    expect(await parseDuckDuckGoPage(hostile, { timeoutMs: 1 })).toEqual({ kind: 'unreadable', reason: 'not done within 1 ms' })
  })
})
