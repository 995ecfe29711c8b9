/**
 * The HTTP layer every adapter shares, met where a user meets it: search adapters pointed at a
 * loopback server (`baseURL`, `endpoint`). Headers and bodies sent, retries of what is
 * retryable, typed and redacted errors, aborts, and bodies read only as far as needed.
 */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { brave, createPacer, duckduckgo, pubmed } from '../../../src/adapters/index.js'
import { ProviderError, type LLMRequest } from '../../../src/index.js'
import { isAbortError } from '../../../src/strategy.js'
import { loopbacks, startLoopback, writePieces } from './loopback.js'

type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

const KEY = 'brave-key-0123456789abcdef'
const serve = loopbacks()
const noResults = readFileSync(new URL('../search/fixtures/ddg-no-results.html', import.meta.url))
const noPacing = () => createPacer({ intervalMs: 0 })
const braveAt = (url: string, options: Omit<Parameters<typeof brave>[0] & object, 'apiKey' | 'baseURL'> = {}) =>
  brave({ apiKey: KEY, baseURL: `${url}/res/v1`, ...options })

it('a JSON GET: headers sent, body read as JSON', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"web":{"results":[{"title":"Zürich","url":"https://zurich.example/","description":"A city."}]}}')
  })
  const results = await braveAt(server.url).search('zürich')
  expect(results).toMatchObject([{ title: 'Zürich', url: 'https://zurich.example/', snippet: 'A city.' }])
  expect(server.requests[0]).toMatchObject({ method: 'GET', url: expect.stringMatching(/^\/res\/v1\/web\/search\?q=z%C3%BCrich(&|$)/) })
  expect(server.requests[0]?.headers['x-subscription-token']).toBe(KEY)
})

it('a form POST is resent whole on retry', async () => {
  const server = await serve((_req, res, attempt) => {
    res.writeHead(attempt === 1 ? 503 : 200, { 'retry-after': '0', 'content-type': 'text/html; charset=utf-8' })
    res.end(attempt === 1 ? 'ok' : noResults)
  })
  const seen: RetryInfo[] = []
  await duckduckgo({ endpoint: server.url, pacer: noPacing() }).search('a b', { onRetry: (i) => seen.push(i) })
  expect(server.requests.map((r) => [r.method, r.body])).toEqual([
    ['POST', 'q=a+b'],
    ['POST', 'q=a+b'],
  ])
  expect(seen).toEqual([expect.objectContaining({ attempt: 1, delayMs: 0, status: 503 })])
})

it('a body is decoded by its charset, and read no further than the cap', async () => {
  const latin1 = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=iso-8859-1' })
    res.end(Buffer.from('{"web":{"results":[{"title":"Zürich","url":"https://zurich.example/","description":"Crème."}]}}', 'latin1'))
  })
  expect(await braveAt(latin1.url).search('q')).toMatchObject([{ title: 'Zürich', snippet: 'Crème.' }])
  // A JSON answer past the 5 MB an API answer may be: the rest is never downloaded.
  const huge = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    await writePieces(res, ['{"web":{"results":[], "padding": "'])
    for (let i = 0; i < 8 && !res.destroyed; i++) await writePieces(res, ['x'.repeat(1_000_000)])
    res.end('"}}')
  })
  await expect(braveAt(huge.url, { maxRetries: 0 }).search('q')).rejects.toMatchObject({ code: 'bad-response' })
  await huge.closedEarly
})

it('the adapter hint replaces the default hint of a status', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(422, { 'content-type': 'application/json' })
    res.end('{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":422}}')
  })
  const error = await braveAt(server.url)
    .search('q')
    .catch((e: unknown) => e)
  expect(error).toBeInstanceOf(ProviderError)
  expect(error).toMatchObject({
    code: 'http',
    status: 422,
    retryable: false,
    hint: expect.stringContaining('Brave refused the subscription token'),
    providerMessage: 'The provided subscription token is invalid.',
  })
  expect(server.requests).toHaveLength(1)
})

it('a key in the query string never reaches the error', async () => {
  const server = await serve((req, res) => {
    res.writeHead(401, { 'content-type': 'text/plain' })
    res.end(`bad key in ${req.url}`)
  })
  // PubMed sends its key as `api_key` in the query, and leaves a 401's hint to the shared default.
  const error = (await pubmed({ apiKey: KEY, baseURL: server.url, pacer: noPacing() })
    .search('x')
    .catch((e: unknown) => e)) as ProviderError
  expect(server.requests[0]?.url).toContain(`api_key=${KEY}`)
  expect(error).toMatchObject({ code: 'auth', hint: 'check the API key' })
  expect(JSON.stringify({ ...error, message: error.message })).not.toContain(KEY)
  expect(error.providerMessage).toContain('[redacted]')
})

it('a refused connection is a network error, retried, then final', async () => {
  const gone = await startLoopback(() => undefined)
  await gone.close()
  const seen: RetryInfo[] = []
  const error = await braveAt(gone.url, { backoff: { initialMs: 1, maxMs: 1 } })
    .search('q', { onRetry: (i) => seen.push(i) })
    .catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'network', retryable: true })
  expect((error as ProviderError).hint).toMatch(/could not reach 127\.0\.0\.1/)
  expect(seen.map((i) => i.attempt)).toEqual([1, 2])
})

it('maxRetries: 0 sends exactly one request', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(429)
    res.end()
  })
  const error = await braveAt(server.url, { maxRetries: 0 })
    .search('q')
    .catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'rate-limit', status: 429 })
  expect(server.requests).toHaveLength(1)
})

it('an abort during the backoff wait ends at once with an abort error', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(500)
    res.end()
  })
  const controller = new AbortController()
  const error = await braveAt(server.url, { backoff: { initialMs: 60_000 } })
    .search('q', { signal: controller.signal, onRetry: () => controller.abort() })
    .catch((e: unknown) => e)
  expect(isAbortError(error)).toBe(true)
  expect(server.requests).toHaveLength(1)
})

it('an already aborted signal sends nothing', async () => {
  const server = await serve((_req, res) => void res.end())
  const error = await braveAt(server.url)
    .search('q', { signal: AbortSignal.abort() })
    .catch((e: unknown) => e)
  expect(isAbortError(error)).toBe(true)
  expect(server.requests).toHaveLength(0)
})

it('a body that is not read is cancelled: its connection is closed', async () => {
  // DuckDuckGo's 202 is a throttle page: its body is dropped unread.
  const server = await serve(async (_req, res) => {
    res.writeHead(202, { 'content-type': 'text/html' })
    await writePieces(res, ['a'])
  })
  await expect(duckduckgo({ endpoint: server.url, pacer: noPacing(), maxRetries: 0 }).search('q')).rejects.toMatchObject({ code: 'rate-limit', status: 202 })
  await server.closedEarly
})
