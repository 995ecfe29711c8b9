/**
 * Issue 13, finding 2: the one check every research server runs before starting a run. The
 * headers are the ones a browser sends (Chromium's, for a page on another origin).
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import fc from 'fast-check'
import { createRequestGuard, type RequestGuard } from '../../src/server/index.js'

/** The header a page sends the token in, as `RequestGuard['token']` documents it. */
const TOKEN_HEADER = 'x-laconic-token'

type GuardedRequest = Parameters<RequestGuard['checkStart']>[0]
type RequestRefusal = NonNullable<ReturnType<RequestGuard['checkStart']>>

const guard = createRequestGuard({ host: '127.0.0.1', token: 'a-token-of-enough-length' })
const host = '127.0.0.1:8787'
const ours = { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin', [TOKEN_HEADER]: guard.token as string }
const post = (headers: Record<string, string>) => new Request(`http://${host}/research`, { method: 'POST', headers })

describe('createRequestGuard', () => {
  it('lets the page start a run: POST, same origin, its token', () => {
    // Request forbids setting Host, Origin and Sec-Fetch-*: a plain record stands for Node's req.headers.
    expect(guard.checkStart({ method: 'POST', headers: ours })).toBeUndefined()
    // A client that is not a browser sends no Origin or Sec-Fetch-Site; the token alone is enough.
    expect(guard.checkStart({ method: 'POST', headers: { host, [TOKEN_HEADER]: guard.token } })).toBeUndefined()
  })

  it.each<[string, GuardedRequest, number, string]>([
    ['a GET (img, EventSource, link)', { method: 'GET', headers: ours }, 405, 'POST'],
    [
      'another site (Sec-Fetch-Site: cross-site)',
      { method: 'POST', headers: { ...ours, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } },
      403,
      'cross-site',
    ],
    [
      'a sibling app on another port (same-site)',
      { method: 'POST', headers: { ...ours, 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:3000' } },
      403,
      'cross-site',
    ],
    [
      'an Origin of another host, no Sec-Fetch-Site',
      { method: 'POST', headers: { ...ours, 'sec-fetch-site': undefined as unknown as string, origin: 'http://evil.example' } },
      403,
      'cross-origin',
    ],
    ['Origin: null (a sandboxed frame)', { method: 'POST', headers: { host, origin: 'null', [TOKEN_HEADER]: guard.token } }, 403, 'cross-origin'],
    ['no token', { method: 'POST', headers: { ...ours, [TOKEN_HEADER]: undefined as unknown as string } }, 403, TOKEN_HEADER],
    ['a wrong token', { method: 'POST', headers: { ...ours, [TOKEN_HEADER]: 'a-token-of-enough-lengtH' } }, 403, TOKEN_HEADER],
    [
      'another Host (DNS rebinding)',
      { method: 'POST', headers: { ...ours, host: 'evil.example:8787', origin: 'http://evil.example:8787' } },
      403,
      'addressed to 127.0.0.1',
    ],
  ])('refuses to start a run on %s', (_what, request, status, message) => {
    const refusal = guard.checkStart(request) as RequestRefusal
    expect(refusal.status).toBe(status)
    expect(refusal.message).toContain(message)
  })

  it('reads Web Requests too', () => {
    const refusal = guard.checkStart(post({ [TOKEN_HEADER]: 'nope-nope-nope-nope' }))
    expect(refusal?.status).toBe(403)
  })

  it('lets reads through from the page and the address bar, not from other sites', () => {
    expect(guard.checkRead({ method: 'GET', headers: { host, 'sec-fetch-site': 'same-origin' } })).toBeUndefined()
    expect(guard.checkRead({ method: 'GET', headers: { host, 'sec-fetch-site': 'none' } })).toBeUndefined()
    expect(guard.checkRead({ method: 'GET', headers: { host, 'sec-fetch-site': 'cross-site' } })?.status).toBe(403)
    expect(guard.checkRead({ method: 'DELETE', headers: { host } })?.status).toBe(405)
  })

  it('checks a cancel (DELETE) like a start, and refuses reads there', () => {
    expect(guard.checkChange({ method: 'DELETE', headers: ours })).toBeUndefined()
    expect(guard.checkChange({ method: 'DELETE', headers: { ...ours, 'sec-fetch-site': 'cross-site' } })?.status).toBe(403)
    expect(guard.checkChange({ method: 'DELETE', headers: { host } })?.status).toBe(403)
    expect(guard.checkChange({ method: 'GET', headers: ours })?.status).toBe(405)
  })

  it('only the exact token starts a run', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (sent) => {
        const refused = guard.checkStart({ method: 'POST', headers: { host, [TOKEN_HEADER]: sent } }) !== undefined
        expect(refused).toBe(sent !== guard.token)
      }),
    )
  })

  it('serves loopback names only when no host is given, and any host with host: false', () => {
    const loopback = createRequestGuard({ token: 'a-token-of-enough-length' })
    const anyHost = createRequestGuard({ token: 'a-token-of-enough-length', host: false })
    for (const name of ['localhost:8787', '127.0.0.1:8787', '[::1]:8787']) {
      expect(loopback.checkRead({ method: 'GET', headers: { host: name } })).toBeUndefined()
    }
    // A page on a name rebound to 127.0.0.1 still says its own name.
    const rebound = { method: 'GET', headers: { host: 'evil.example:8787' } }
    expect(loopback.checkRead(rebound)?.status).toBe(403)
    expect(loopback.checkRead(rebound)?.message).toContain('localhost')
    expect(anyHost.checkRead(rebound)).toBeUndefined()
  })

  it('with token: false, a start needs the origin checks alone (the chat handler by default)', () => {
    const originOnly = createRequestGuard({ host: '127.0.0.1', token: false })
    expect(originOnly.token).toBeUndefined()
    const { [TOKEN_HEADER]: _, ...noToken } = ours
    expect(originOnly.checkStart(post(noToken))).toBeUndefined()
    expect(originOnly.checkStart(post({ ...noToken, 'sec-fetch-site': 'cross-site' }))?.status).toBe(403)
    expect(originOnly.checkStart(post({ ...noToken, host: 'evil.example:8787' }))?.status).toBe(403)
    expect(originOnly.checkStart(new Request(`http://${host}/research`, { headers: noToken }))?.status).toBe(405)
    expect(guard.checkStart(post(noToken))?.status).toBe(403)
  })

  it('makes a fresh random token per guard', () => {
    const tokens = new Set(Array.from({ length: 20 }, () => createRequestGuard().token))
    expect(tokens.size).toBe(20)
    for (const token of tokens) expect(token).toMatch(/^[\w-]{43}$/)
  })

  it('has the documented types', () => {
    expectTypeOf(createRequestGuard).parameter(0).toEqualTypeOf<{ host?: string | false | undefined; token?: string | false | undefined } | undefined>()
    expectTypeOf(guard.checkStart).returns.toEqualTypeOf<RequestRefusal | undefined>()
    expectTypeOf<Request>().toMatchTypeOf<GuardedRequest>()
  })
})
