import { expect, it } from 'vitest'
import { httpRequest } from '../../../src/adapters/http/index.js'
import { ProviderError, type LLMRequest } from '../../../src/index.js'
import { isAbortError } from '../../../src/strategy.js'
import { loopbacks, startLoopback, writePieces } from './loopback.js'

type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

const KEY = 'brave-key-0123456789abcdef'
const serve = loopbacks()

it('a JSON GET: headers sent, body read as text', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"web":{"results":[]}}')
  })
  const res = await httpRequest({ url: `${server.url}/res/v1/web/search?q=zürich`, provider: 'brave', headers: { 'x-subscription-token': KEY } })
  expect(JSON.parse(await res.text())).toEqual({ web: { results: [] } })
  expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/res/v1/web/search?q=z%C3%BCrich' })
  expect(server.requests[0]?.headers['x-subscription-token']).toBe(KEY)
})

it('a form POST is resent whole on retry', async () => {
  const server = await serve((_req, res, attempt) => {
    res.writeHead(attempt === 1 ? 503 : 200, { 'retry-after': '0' })
    res.end('ok')
  })
  const seen: RetryInfo[] = []
  await httpRequest({ url: server.url, provider: 'duckduckgo', body: new URLSearchParams({ q: 'a b' }), onRetry: (i) => seen.push(i) })
  expect(server.requests.map((r) => [r.method, r.body])).toEqual([
    ['POST', 'q=a+b'],
    ['POST', 'q=a+b'],
  ])
  expect(seen).toEqual([expect.objectContaining({ attempt: 1, delayMs: 0, status: 503 })])
})

it('text() honours the charset and stops at maxBytes', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
    res.end(Buffer.from(`<p>Zürich</p>${'x'.repeat(1000)}`, 'latin1'))
  })
  const res = await httpRequest({ url: server.url, provider: 'fetch' })
  expect(await res.text({ maxBytes: 13 })).toBe('<p>Zürich</p>')
})

it('the hint hook replaces the default hint of a status', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(422, { 'content-type': 'application/json' })
    res.end('{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":422}}')
  })
  const error = await httpRequest({
    url: server.url,
    provider: 'brave',
    hint: (f) => (f.status === 422 ? 'check the Brave subscription token' : undefined),
  }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(ProviderError)
  expect(error).toMatchObject({
    code: 'http',
    status: 422,
    retryable: false,
    hint: 'check the Brave subscription token',
    providerMessage: 'The provided subscription token is invalid.',
  })
  expect(server.requests).toHaveLength(1)
})

it('a key in the query string never reaches the error', async () => {
  const server = await serve((req, res) => {
    res.writeHead(401, { 'content-type': 'text/plain' })
    res.end(`bad key in ${req.url}`)
  })
  const error = (await httpRequest({ url: `${server.url}/search?key=${KEY}&q=x`, provider: 'p', secrets: [KEY] }).catch((e: unknown) => e)) as ProviderError
  expect(error).toMatchObject({ code: 'auth', hint: 'check the API key' })
  expect(JSON.stringify({ ...error, message: error.message })).not.toContain(KEY)
  expect(error.providerMessage).toContain('[redacted]')
})

it('a refused connection is a network error, retried, then final', async () => {
  const gone = await startLoopback(() => undefined)
  await gone.close()
  const seen: RetryInfo[] = []
  const error = await httpRequest({ url: gone.url, provider: 'p', backoff: { initialMs: 1, maxMs: 1 }, onRetry: (i) => seen.push(i) }).catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'network', retryable: true })
  expect((error as ProviderError).hint).toMatch(/could not reach 127\.0\.0\.1/)
  expect(seen.map((i) => i.attempt)).toEqual([1, 2])
})

it('maxRetries: 0 sends exactly one request', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(429)
    res.end()
  })
  const error = await httpRequest({ url: server.url, provider: 'p', maxRetries: 0 }).catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'rate-limit', status: 429 })
  expect(server.requests).toHaveLength(1)
})

it('an abort during the backoff wait ends at once with an abort error', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(500)
    res.end()
  })
  const controller = new AbortController()
  const error = await httpRequest({
    url: server.url,
    provider: 'p',
    signal: controller.signal,
    backoff: { initialMs: 60_000 },
    onRetry: () => controller.abort(),
  }).catch((e: unknown) => e)
  expect(isAbortError(error)).toBe(true)
  expect(server.requests).toHaveLength(1)
})

it('an already aborted signal sends nothing', async () => {
  const server = await serve((_req, res) => void res.end())
  const error = await httpRequest({ url: server.url, provider: 'p', signal: AbortSignal.abort() }).catch((e: unknown) => e)
  expect(isAbortError(error)).toBe(true)
  expect(server.requests).toHaveLength(0)
})

it('cancel() closes the connection of a streaming body', async () => {
  const server = await serve(async (_req, res) => {
    res.writeHead(200)
    await writePieces(res, ['a'])
  })
  const res = await httpRequest({ url: server.url, provider: 'p' })
  res.cancel()
  await server.closedEarly
})
