/**
 * Which pages `httpFetch({ fallback })` hands to its fallback reader: those whose readable text is
 * empty or tiny and whose markup says scripts write it (an empty app root, a `<noscript>` hint,
 * or several scripts). Each page is served from a loopback server; the fallback is a reader of
 * the test's own, and the page it returns says whether it was asked.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import type { FetchProvider } from '../../../src/index.js'
import { pageHost } from './served.js'

const host = pageHost()
const fallback: FetchProvider = { fetch: async (url) => ({ url, text: 'Rendered by the fallback.' }) }
const fetcher = httpFetch({ allowPrivateNetwork: true, maxRetries: 0, fallback })

/** Whether httpFetch took the page served as `html` for a script-rendered one. */
async function readByFallback(html: string): Promise<boolean> {
  const page = await fetcher.fetch(host.at({ type: 'text/html; charset=utf-8', body: html }))
  return page.text === 'Rendered by the fallback.' && page.fallback !== undefined
}

const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

describe('a script-rendered page', () => {
  it('is seen by an empty app root, a noscript hint, or several scripts around tiny text', async () => {
    expect(await readByFallback('<div id="root"></div><script src="/app.js"></script>')).toBe(true)
    expect(await readByFallback('<noscript>Enable JavaScript</noscript><script></script>')).toBe(true)
    expect(await readByFallback('<p>Hi</p><script></script><script></script><script></script>')).toBe(true)
  })

  it('is not a page without scripts, or with one script and no hint', async () => {
    expect(await readByFallback('<div id="root"></div>')).toBe(false)
    expect(await readByFallback('<p>Short note.</p><script></script>')).toBe(false)
  })

  it('is never a page with enough readable text (200 characters), whatever its markup', async () => {
    // Words, so the page's text is as long as written (runs of spaces collapse in HTML).
    const words = fc.array(fc.stringMatching(/^[A-Za-z0-9,.;:!?'"()-]{1,12}$/), { minLength: 40, maxLength: 80 }).map((list) => list.join(' '))
    await fc.assert(
      fc.asyncProperty(fc.string(), words, async (html, text) => {
        fc.pre(text.length >= 200)
        expect(await readByFallback(`<p>${escaped(text)}</p><noscript></noscript><div id="root"></div><script></script>${html}`)).toBe(false)
      }),
      { numRuns: 100 },
    )
  })
})
