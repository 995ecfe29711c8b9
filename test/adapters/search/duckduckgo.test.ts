import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { duckduckgo } from '../../../src/adapters/index.js'
import { createPacer } from '../../../src/adapters/index.js'
import { cutAt, startLoopback, writePieces } from '../http/loopback.js'
import type { Handler, Loopback } from '../http/loopback.js'

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url))
const noPacing = () => createPacer({ intervalMs: 0 })

let server: Loopback | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(handler: Handler): Promise<string> {
  server = await startLoopback(handler)
  return `${server.url}/html/`
}

const html =
  (body: Uint8Array | string, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=UTF-8' })
    res.end(body)
  }

describe('duckduckgo', () => {
  it('posts the query as a form and parses results, however the page is chunked', async () => {
    const page = fixture('ddg-html.html')
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: page.length }), { maxLength: 12 }), async (offsets) => {
        const endpoint = await serve(async (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' })
          await writePieces(res, cutAt(page, offsets))
          res.end()
        })
        const results = await duckduckgo({ endpoint, pacer: noPacing(), region: 'fr-fr' }).search('llama diet', { limit: 2 })
        expect(results.map((r) => r.url)).toEqual(['https://en.wikipedia.org/wiki/Llama#Diet', 'https://www.fao.org/camelids/diet?lang=en&x=1'])
        expect(results[1]?.title).toBe('What do llamas eat? — FAO')
        const request = server?.requests[0]
        expect(request?.method).toBe('POST')
        expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({ q: 'llama diet', kl: 'fr-fr' })
        await server?.close()
        server = undefined
      }),
      { numRuns: 10 },
    )
  })

  it('answers an empty query with [] without a request', async () => {
    const endpoint = await serve(html(fixture('ddg-html.html')))
    await expect(duckduckgo({ endpoint, pacer: noPacing() }).search('')).resolves.toEqual([])
    expect(server?.requests).toHaveLength(0)
  })

  it('returns an empty list only when DuckDuckGo says there are no results', async () => {
    const endpoint = await serve(html(fixture('ddg-no-results.html')))
    await expect(duckduckgo({ endpoint, pacer: noPacing() }).search('zxqvj')).resolves.toEqual([])
  })

  it("reads DuckDuckGo's placeholder page (one EOF link to a Google search, an empty .no-results) as no results", async () => {
    const endpoint = await serve(html(fixture('ddg-placeholder.html')))
    await expect(duckduckgo({ endpoint, pacer: noPacing() }).search('zxqvj llamaqq')).resolves.toEqual([])
  })

  it.each([
    ['202 Accepted', 202, fixture('ddg-html.html')],
    ['403', 403, 'Forbidden'],
    ['429', 429, 'Too Many Requests'],
    ['a 200 captcha page', 200, fixture('ddg-anomaly.html')],
    ['a malformed 200 body', 200, '\u0000<<<>garbage'],
  ])('reports %s as a retryable rate-limit error, not as no results', async (_name, status, body) => {
    const endpoint = await serve(html(body, status))
    const error = await duckduckgo({ endpoint, pacer: noPacing(), maxRetries: 0 })
      .search('llama')
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'ProviderError', code: 'rate-limit', provider: 'duckduckgo', status, retryable: true })
    expect((error as Error).message).toContain('wait a few minutes')
  })

  it('retries a throttled attempt, within the budget, and tells the caller', async () => {
    const endpoint = await serve((req, res, attempt) => html(attempt === 1 ? fixture('ddg-anomaly.html') : fixture('ddg-lite.html'))(req, res, attempt))
    const retries: number[] = []
    const results = await duckduckgo({ endpoint, pacer: noPacing(), maxRetries: 1, backoff: { initialMs: 1, maxMs: 1 } }).search('llama', {
      onRetry: (info) => retries.push(info.attempt),
    })
    expect(results).toHaveLength(3)
    expect(retries).toEqual([1])
    expect(server?.requests).toHaveLength(2)
  })

  it('gives up after maxRetries', async () => {
    const endpoint = await serve(html('', 202))
    await expect(duckduckgo({ endpoint, pacer: noPacing(), maxRetries: 2, backoff: { initialMs: 1, maxMs: 1 } }).search('llama')).rejects.toMatchObject({
      code: 'rate-limit',
    })
    expect(server?.requests).toHaveLength(3)
  })

  it('times out a silent server', async () => {
    const endpoint = await serve(() => {})
    await expect(duckduckgo({ endpoint, pacer: noPacing(), timeoutMs: 50, maxRetries: 0 }).search('llama')).rejects.toMatchObject({ code: 'timeout' })
  })

  it('aborts an in-flight request', async () => {
    // The server announces the request and never answers: the abort lands mid-request.
    let requestArrived!: () => void
    const arrived = new Promise<void>((resolve) => (requestArrived = resolve))
    const endpoint = await serve(() => requestArrived())
    const controller = new AbortController()
    const pending = duckduckgo({ endpoint, pacer: noPacing() }).search('llama', { signal: controller.signal })
    await arrived
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'aborted' })
  })

  it('paces requests and can be aborted while waiting its turn', async () => {
    const endpoint = await serve(html(fixture('ddg-lite.html')))
    const pacer = createPacer({ intervalMs: 60_000 })
    const search = duckduckgo({ endpoint, pacer })
    await search.search('first')
    const controller = new AbortController()
    const second = search.search('second', { signal: controller.signal })
    controller.abort()
    await expect(second).rejects.toMatchObject({ code: 'aborted' })
    expect(server?.requests).toHaveLength(1)
  })
})
