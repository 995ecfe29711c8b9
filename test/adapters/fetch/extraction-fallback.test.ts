/**
 * A page read by a fallback (its readable-text extraction ran out of time, or the page has too
 * many elements to look for its article) says so on the fetched page, and the run warns.
 */
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import { manyParagraphs, unclosedDivs } from '../../fixtures/hostile/pages.js'
import { loopbacks } from '../http/loopback.js'
import { readInRun } from './read-in-run.js'

const serve = loopbacks()
const local = { allowPrivateNetwork: true, maxRetries: 0 }
const servePage = (html: string) =>
  serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(html)
  })

const article = `<!doctype html><html><head><title>Tides</title></head><body><nav>Home | About</nav><article><h1>Tides</h1>${'<p>The moon pulls the sea toward it, and the sea rises on the near side and on the far side of the earth.</p>'.repeat(6)}</article></body></html>`

describe('a page read by a fallback', () => {
  it('an article page is read by Readability, with no fallback', async () => {
    const { url } = await servePage(article)
    const page = await httpFetch(local).fetch(`${url}/article`)
    expect(page.text).toMatch(/^The moon pulls the sea/)
    expect(page.text).not.toContain('Home | About')
    expect(page.fallback).toBeUndefined()
  })

  it('a page over the element limit keeps its whole text and says why', async () => {
    // The same article with 20,000 empty elements after it: more than Readability is given.
    const { url } = await servePage(article.replace('</body>', `${'<i></i>'.repeat(20_000)}</body>`))
    const page = await httpFetch({ ...local, extractTimeoutMs: 60_000 }).fetch(`${url}/padded`)
    expect(page.text).toMatch(/^Home \| About\n\n# Tides\n/)
    expect(page.fallback).toMatch(/more than 20000 elements/)
  })

  it('a page whose extraction runs out of time is its tag-stripped text, and says so', async () => {
    // Readability takes seconds on this page: a 1 ms budget always ends it.
    const { url } = await servePage(unclosedDivs)
    const page = await httpFetch({ ...local, extractTimeoutMs: 1 }).fetch(`${url}/divs`)
    // Tags dropped, whitespace collapsed: its title, then one "x" per <div>.
    expect(page.text).toBe(['unclosed', ...Array.from({ length: unclosedDivs.split('<div>').length - 1 }, () => 'x')].join(' '))
    expect(page.fallback).toMatch(/not done within 1 ms.*tag-stripped/)
  })

  it('reaches the run through the fetch path: httpFetch marks the page and readPage warns after it', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(req.url === '/many' ? manyParagraphs : article)
    })
    // A minute of budget: on a loaded machine parsing 820 KB may take seconds, and running out of
    // time is a fallback of its own (the test above), not the one this page is for.
    const fetch = httpFetch({ ...local, extractTimeoutMs: 60_000 })
    // 20,000 paragraphs: more elements than Readability is given.
    const many = await readInRun(fetch, `${url}/many`)
    expect(many.value?.fallback).toMatch(/more than 20000 elements/)
    expect(many.value?.text).toContain('A paragraph of ordinary words, repeated.')
    expect(many.events.map((e) => e.type)).toEqual(['page', 'cost', 'warning'])
    expect(many.events.at(-1)).toEqual({
      type: 'warning',
      code: 'extraction-fallback',
      queryId: 'q1',
      message: expect.stringMatching(new RegExp(`^${url}/many was read by a fallback: it has more than 20000 elements`)),
    })

    const plain = await readInRun(fetch, `${url}/article`)
    expect(plain.value?.fallback).toBeUndefined()
    expect(plain.events.map((e) => e.type)).toEqual(['page', 'cost'])
  })
})
