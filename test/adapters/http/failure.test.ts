import fc from 'fast-check'
import { expect, it } from 'vitest'
import { isRetryableStatus, messageFromBody } from '../../../src/adapters/http/index.js'

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
])('the provider message of %s', (body, message) => expect(messageFromBody(body)).toBe(message))

it('long bodies are clipped', () => expect(messageFromBody('x'.repeat(1000))?.length).toBeLessThanOrEqual(301))

it('messageFromBody is total', () => {
  fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (body) => void messageFromBody(body)))
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
])('status %d retryable: %s', (status, retryable) => expect(isRetryableStatus(status)).toBe(retryable))
