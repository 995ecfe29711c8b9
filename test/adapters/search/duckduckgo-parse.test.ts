import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parseDuckDuckGoPage, resultUrl } from '../../../src/adapters/search/duckduckgo-parse.js'
import { nestedResultBlocks } from '../../fixtures/hostile/pages.js'
import { pendingAfterALoopTurn } from '../../support/loop-turn.js'

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')

describe('parseDuckDuckGoPage', () => {
  it('reads the HTML layout: <b> in titles, entities, uddg unwrapped, ads dropped, snippets paired by block', async () => {
    const page = await parseDuckDuckGoPage(fixture('ddg-html.html'))
    expect(page).toEqual({
      kind: 'results',
      results: [
        {
          title: 'Llama - Wikipedia',
          url: 'https://en.wikipedia.org/wiki/Llama#Diet',
          snippet: "Llamas are herbivores & graze on grasses; they're efficient eaters.",
        },
        { title: 'What do llamas eat? — FAO', url: 'https://www.fao.org/camelids/diet?lang=en&x=1', snippet: '' },
        { title: 'Étude sur les lamas', url: 'https://example.org/%C3%A9tude?q=lama&p=2', snippet: "Les lamas mangent de l'herbe." },
      ],
    })
  })

  it('reads the lite layout, whatever the attribute quoting', async () => {
    const page = await parseDuckDuckGoPage(fixture('ddg-lite.html'))
    expect(page).toEqual({
      kind: 'results',
      results: [
        { title: 'Llama - Wikipedia', url: 'https://en.wikipedia.org/wiki/Llama', snippet: 'Llamas graze & browse.' },
        { title: 'Llama care guide', url: 'https://www.llama.example/care', snippet: '' },
        { title: 'Feeding llamas', url: 'https://vet.example/llamas', snippet: 'Hay, pasture and "minerals".' },
      ],
    })
  })

  it('tells an explicit "no results" page from a throttling page', async () => {
    expect(await parseDuckDuckGoPage(fixture('ddg-no-results.html'))).toEqual({ kind: 'no-results' })
    expect(await parseDuckDuckGoPage(fixture('ddg-anomaly.html'))).toEqual({ kind: 'blocked' })
    expect(await parseDuckDuckGoPage('')).toEqual({ kind: 'blocked' })
  })

  it('never throws, whatever the input', async () => {
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
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.array(fc.oneof(fragments, fc.string()), { maxLength: 30 }).map((parts) => parts.join('')),
        ),
        async (html) => {
          const page = await parseDuckDuckGoPage(html)
          expect(['results', 'no-results', 'blocked']).toContain(page.kind)
          if (page.kind === 'results') for (const result of page.results) expect(result.url).toMatch(/^https?:\/\//)
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('resultUrl', () => {
  it('unwraps redirects and refuses ads and non-web links', () => {
    expect(resultUrl('//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=z')).toBe('https://a.example/x?y=1')
    expect(resultUrl('https://duckduckgo.com/y.js?ad_domain=a.example')).toBeUndefined()
    expect(resultUrl('//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fy.js%3Fad%3D1')).toBeUndefined()
    expect(resultUrl('//duckduckgo.com/l/?uddg=javascript%3Aalert(1)')).toBeUndefined()
    expect(resultUrl('javascript:alert(1)')).toBeUndefined()
    expect(resultUrl('/html/?q=next')).toBeUndefined()
    expect(resultUrl(null)).toBeUndefined()
  })
})

describe('parseDuckDuckGoPage on a hostile page', () => {
  const hostile = nestedResultBlocks(1_000)

  it('reads it off the main thread: the event loop turns while it is read, and an abort ends the read', async () => {
    // A thread is ready and idle once a small page has been read: the hostile one starts at once.
    expect((await parseDuckDuckGoPage(fixture('ddg-html.html'))).kind).toBe('results')
    const controller = new AbortController()
    const reading = parseDuckDuckGoPage(nestedResultBlocks(8_000), { signal: controller.signal, timeoutMs: 60_000 })
    // Read in place, the page would be done (after many seconds of a blocked loop) before this turn came.
    expect(await pendingAfterALoopTurn(reading)).toBe(true)
    controller.abort()
    await expect(reading).rejects.toMatchObject({ code: 'aborted' })
  })

  it('is unreadable once it outlives its time budget, saying why', async () => {
    // It takes seconds to read: a 1 ms budget always ends it (only a read off the main thread can be cut).
    expect(await parseDuckDuckGoPage(hostile, { timeoutMs: 1 })).toEqual({ kind: 'unreadable', reason: 'not done within 1 ms' })
  })
})
