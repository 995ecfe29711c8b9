/**
 * Issue 13, finding 1: pages that are cheap to send and expensive to read. Readable-text
 * extraction runs in worker threads under a time budget, so the event loop stays free, the
 * budget ends the work, and an abort ends it at once.
 */
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import fc from 'fast-check'
import { taglessText, taglessTextSync } from '../../../src/adapters/fetch/extract.js'
import { createExtractPool } from '../../../src/node/extract-pool.js'
import { manyParagraphs, unclosedDivs, unterminatedTags } from '../../fixtures/hostile/pages.js'
import { loopbacks } from '../http/loopback.js'
import { deliverOnce } from './served.js'
import { pendingAfterALoopTurn } from '../../support/loop-turn.js'

const serve = loopbacks()
const local = { allowPrivateNetwork: true, maxRetries: 0 }

const servePage = (html: string) =>
  serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(html)
  })

/** `html` read by httpFetch, pending or not once the event loop has turned after its body arrived. */
async function readOffTheLoop(html: string, options: { extractTimeoutMs?: number } = {}) {
  // A small page first, so everything the reader loads is loaded: no I/O comes before the parse.
  const warm = deliverOnce('<p>warm</p>', 'text/html; charset=utf-8')
  await httpFetch({ resolveHost: async () => ['93.184.216.34'], fetch: warm.fetch, maxRetries: 0 }).fetch('http://pages.test/warm')
  const { fetch, delivered } = deliverOnce(html, 'text/html; charset=utf-8')
  const reading = httpFetch({ resolveHost: async () => ['93.184.216.34'], fetch, maxRetries: 0, ...options }).fetch('http://pages.test/page')
  await delivered
  return { pending: await pendingAfterALoopTurn(reading), page: await reading }
}

describe('hostile pages', () => {
  it('1,000 unclosed divs: read off the main thread (the event loop turns meanwhile), and the budget ends the work with the plain text', async () => {
    // Readability takes many seconds on this page (13.6 s on the main thread before): a second of budget ends it.
    const { pending, page: read } = await readOffTheLoop(unclosedDivs, { extractTimeoutMs: 1_000 })
    expect(pending).toBe(true)
    expect(read).toMatchObject({ text: await taglessText(unclosedDivs) })
    // And from a server: the tag-stripped text stands.
    const { url } = await servePage(unclosedDivs)
    const page = await httpFetch({ ...local, extractTimeoutMs: 1_000 }).fetch(`${url}/divs`)
    expect(page.text).toBe(await taglessText(unclosedDivs))
    expect(page.text).toMatch(/^unclosed x x x/)
  })

  it('20,000 paragraphs: read off the main thread (the event loop turns meanwhile)', async () => {
    const { pending, page: read } = await readOffTheLoop(manyParagraphs)
    expect(pending).toBe(true)
    expect(read.text).toContain('A paragraph of ordinary words, repeated.')
    const { url } = await servePage(manyParagraphs)
    expect((await httpFetch(local).fetch(`${url}/paragraphs`)).text).toContain('A paragraph of ordinary words, repeated.')
  })

  it('an abort ends an extraction in progress at once, and the pool keeps working', async () => {
    const pool = createExtractPool(1)
    try {
      // Once a thread is ready, the next job goes to it as it is submitted.
      await pool.run({ html: '<p>warm</p>', maxElements: 100, timeoutMs: 60_000 })
      const controller = new AbortController()
      // A minute of budget: only the abort can end this job before Readability does (seconds).
      const running = pool.run({ html: unclosedDivs, maxElements: 20_000, timeoutMs: 60_000, signal: controller.signal })
      controller.abort()
      await expect(running).rejects.toMatchObject({ code: 'aborted' })
      expect(await pool.run({ html: '<p>after</p>', maxElements: 100, timeoutMs: 60_000 })).toEqual({ text: 'after' })
    } finally {
      await pool.close()
    }
  })

  it('an abort while the page is being read rejects the fetch with an aborted error', async () => {
    const { url } = await servePage(unclosedDivs)
    const controller = new AbortController()
    const fetching = httpFetch({ ...local, extractTimeoutMs: 60_000 }).fetch(`${url}/divs`, { signal: controller.signal })
    // Whichever step the fetch is at (reading the body, waiting for a thread, extracting), it stops.
    setImmediate(() => controller.abort())
    await expect(fetching).rejects.toMatchObject({ code: 'aborted' })
  })

  it('a server dripping a byte every 10 ms is cut off at the total deadline with a timeout error', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      const timer = setInterval(() => res.write('x'), 10)
      res.on('close', () => clearInterval(timer))
    })
    // The idle timeout (2 s) never trips: only the total deadline can end this.
    const fetching = httpFetch({ ...local, timeoutMs: 2_000, totalTimeoutMs: 300, maxRetries: 2 }).fetch(`${url}/drip`)
    await expect(fetching).rejects.toMatchObject({ code: 'timeout', retryable: false, message: expect.stringContaining('not done within') })
  })

  it('the fallback text costs one pass, whatever the markup, and pauses for the event loop', async () => {
    expect(await taglessText(unterminatedTags)).toBe('')
    expect(await taglessText('<p>a &amp; b</p><SCRIPT>x < y</Script><style>p{}</style>c&#233;')).toBe('a & b cé')
    expect(await taglessText('no tags')).toBe('no tags')
    let pauses = 0
    const text = await taglessText(manyParagraphs, async () => void pauses++)
    expect(pauses).toBeGreaterThan(manyParagraphs.length / 40_000)
    expect(text).toBe(taglessTextSync(manyParagraphs))
    expect(text.split('A paragraph of ordinary words, repeated.').length - 1).toBe(20_000)
    expect(text).not.toMatch(/\s\s/)
  })

  it('the fallback text is the same whatever its batches (whitespace collapsed once, across batches)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('<p>', '</p>', ' ', 'word', '&amp;', '<script>', '</script>', '\n', '<b>', 'x'.repeat(40_000)), { maxLength: 12 }),
        async (parts) => {
          const html = parts.join('')
          const text = await taglessText(html)
          expect(text).toBe(text.trim())
          expect(text).not.toMatch(/\s\s/)
          expect(text.replace(/ /g, '')).toBe(taglessTextSync(html).replace(/ /g, ''))
        },
      ),
      { numRuns: 100 },
    )
  })
})
