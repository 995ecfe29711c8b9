/**
 * What an error says about a failed response, as an adapter's caller gets it: the provider's own
 * message from the body (`providerMessage`), and whether the status is worth retrying.
 */
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { brave } from '../../../src/adapters/index.js'
import { ProviderError } from '../../../src/index.js'
import { loopbacks } from './loopback.js'

const serve = loopbacks()

/** The error brave() ends with when its API answers `status` with `body`. */
async function failureOf(status: number, body: string, maxRetries = 0): Promise<{ error: unknown; requests: number }> {
  const server = await serve((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' })
    res.end(body)
  })
  const error = await brave({ apiKey: 'k', baseURL: server.url, maxRetries })
    .search('q')
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  return { error, requests: server.requests.length }
}

it.each([
  ['{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}', 'Rate limit reached'],
  ['{"error":"model \'x\' not found"}', "model 'x' not found"],
  ['{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}', 'Overloaded'],
  ['{"detail":{"error":"Unauthorized: missing or invalid API key."}}', 'Unauthorized: missing or invalid API key.'],
  [
    '{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":422}}',
    'The provided subscription token is invalid.',
  ],
  ['{"detail":"Not Found"}', 'Not Found'],
  ['upstream connect error or disconnect/reset before headers', 'upstream connect error or disconnect/reset before headers'],
  ['   ', undefined],
])('the provider message of %s', async (body, message) => {
  const { error } = await failureOf(400, body)
  expect(error).toBeInstanceOf(ProviderError)
  expect((error as ProviderError).providerMessage).toBe(message)
})

it('long bodies are clipped', async () => {
  const { error } = await failureOf(400, 'x'.repeat(1000))
  expect((error as ProviderError).providerMessage?.length).toBeLessThanOrEqual(301)
})

it('any body of a failed response ends as a typed error', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.string(), fc.json()), async (body) => {
      const { error } = await failureOf(400, body)
      expect(error).toBeInstanceOf(ProviderError)
      expect(error).toMatchObject({ status: 400 })
    }),
  )
})

it.each([
  [408, true],
  [409, true],
  [429, true],
  [500, true],
  [529, true],
  [400, false],
  [401, false],
  [404, false],
  [422, false],
])('status %d retryable: %s', async (status, retryable) => {
  // One retry allowed (and asked for at once): a retryable status is sent again, another is final.
  const { error, requests } = await failureOf(status, '{}', 1)
  expect(error).toMatchObject({ status, retryable })
  expect(requests).toBe(retryable ? 2 : 1)
})
