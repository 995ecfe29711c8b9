/**
 * The `Host` check of every guarded server (against DNS rebinding), through `createRequestGuard`:
 * a read carrying only a `Host` header is refused exactly when that header does not name the
 * guard's host (any loopback name standing for any other).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRequestGuard } from '../../src/server/index.js'

/** Whether a guard serving `host` lets a plain read through with this `Host` header; a refusal must be the host check's. */
function hostAllowed(header: string | undefined, host: string): boolean {
  const refusal = createRequestGuard({ host, token: false }).checkRead({ method: 'GET', headers: header === undefined ? {} : { host: header } })
  if (refusal !== undefined) expect(refusal).toMatchObject({ status: 403, message: expect.stringContaining(`addressed to ${host} only`) })
  return refusal === undefined
}

describe('the request guard host check', () => {
  it.each([
    ['127.0.0.1:3000', '127.0.0.1', true],
    ['localhost:3000', '127.0.0.1', true],
    ['LOCALHOST', '127.0.0.1', true],
    ['[::1]:3000', '127.0.0.1', true],
    ['127.0.0.1', '::1', true],
    ['evil.example:3000', '127.0.0.1', false],
    ['localhost.evil.example', 'localhost', false],
    ['evil.example@127.0.0.1', '127.0.0.1', false],
    ['127.0.0.1/x', '127.0.0.1', false],
    ['', '127.0.0.1', false],
    [undefined, '127.0.0.1', false],
    ['research.example.org:8080', 'research.example.org', true],
    ['localhost', 'research.example.org', false],
  ])('Host %j against %j → %s', (header, host, allowed) => {
    expect(hostAllowed(header, host)).toBe(allowed)
  })

  it('is total: any header, any host, a boolean and never a throw', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), fc.string(), (header, host) => {
        expect(typeof hostAllowed(header, host)).toBe('boolean')
      }),
    )
  })
})
