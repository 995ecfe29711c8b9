/**
 * How long an adapter waits before a retry, as its caller sees it: the delay `onRetry` reports.
 * The server's own hint when it is sane (retry-after-ms, retry-after, x-ratelimit-reset-*), else
 * exponential backoff with jitter. Each answer comes from a loopback server; the run is aborted
 * once the delay is reported, so no test waits it out (the backoff series runs on fake timers).
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { brave } from '../../../src/adapters/index.js'
import { loopbacks } from './loopback.js'

const serve = loopbacks()

/** The backoff every test here falls back on when the server gives no usable hint (jitter off). */
const NO_HINT = 4321

beforeEach(() => {
  // No jitter unless a test says otherwise: a backoff delay is then exactly its base.
  vi.spyOn(Math, 'random').mockReturnValue(0)
})
afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

/** The delay brave() reports before retrying a 429 that carries `headers`. */
async function delayAsked(headers: Record<string, string>): Promise<number | undefined> {
  const server = await serve((_req, res) => {
    res.writeHead(429, headers)
    res.end()
  })
  const controller = new AbortController()
  let delay: number | undefined
  await brave({ apiKey: 'k', baseURL: server.url, backoff: { initialMs: NO_HINT, maxMs: NO_HINT } })
    .search('q', {
      signal: controller.signal,
      onRetry: (info) => {
        delay = info.delayMs
        controller.abort()
      },
    })
    .catch(() => undefined)
  return delay
}

describe('Go-style durations (x-ratelimit-reset-*)', () => {
  it.each([
    ['1s', 1000],
    ['250ms', 250],
    ['120ms', 120],
    ['1.5', 1500],
    // Half a millisecond, waited as one.
    ['500us', 1],
    // Six minutes and an hour: read, and past the 60 s a hint may ask, so the backoff stands.
    ['6m0s', NO_HINT],
    ['1h2m3.5s', NO_HINT],
  ])('%s → %d ms', async (text, ms) => expect(await delayAsked({ 'x-ratelimit-reset-requests': text })).toBe(ms))

  it.each(['', 's', '1x', '-1s', 'soon', '1 s'])('%j is not a duration', async (text) =>
    expect(await delayAsked({ 'x-ratelimit-reset-requests': text })).toBe(NO_HINT),
  )

  it('any value is read or passed over', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (text) => {
        const ms = await delayAsked({ 'x-ratelimit-reset-requests': text })
        expect(ms !== undefined && ms >= 0 && ms <= 60_000).toBe(true)
      }),
    )
  })
})

describe('the delay a response asks for', () => {
  it('retry-after-ms wins over retry-after', async () => expect(await delayAsked({ 'retry-after-ms': '50', 'retry-after': '3' })).toBe(50))
  it('retry-after in seconds', async () => expect(await delayAsked({ 'retry-after': '2' })).toBe(2000))
  it('retry-after as an HTTP date', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.parse('2025-11-22T02:00:00Z'))
    expect(await delayAsked({ 'retry-after': 'Sat, 22 Nov 2025 02:00:07 GMT' })).toBe(7000)
  })
  it('x-ratelimit-reset of the exhausted limit', async () =>
    expect(
      await delayAsked({
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-remaining-tokens': '1200',
        'x-ratelimit-reset-tokens': '6m0s',
      }),
    ).toBe(1000))
  it('x-ratelimit-reset: the longest when none says it is exhausted', async () =>
    expect(await delayAsked({ 'x-ratelimit-reset-requests': '250ms', 'x-ratelimit-reset-tokens': '2s' })).toBe(2000))
  it.each<Record<string, string>>([
    { 'retry-after': '120' },
    { 'retry-after-ms': '-5' },
    { 'x-ratelimit-reset-tokens': '6m0s' },
    { 'retry-after': 'later' },
    {},
  ])('no usable hint outside 0–60 s: %j', async (headers) => expect(await delayAsked(headers)).toBe(NO_HINT))
  it('is total over header values', async () =>
    fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), fc.string(), async (a, b, c) => {
        const ms = await delayAsked({ 'retry-after-ms': a, 'retry-after': b, 'x-ratelimit-reset-tokens': c })
        expect(ms !== undefined && ms >= 0 && ms <= 60_000).toBe(true)
      }),
    ))
})

describe('backoff', () => {
  /** The delays brave() reports while a server keeps failing, with `options`. */
  async function backoffSeries(options: Parameters<typeof brave>[0] & object, fakeTimers: boolean): Promise<number[]> {
    const server = await serve((_req, res) => {
      res.writeHead(500)
      res.end()
    })
    const delays: number[] = []
    await brave({ apiKey: 'k', baseURL: server.url, ...options })
      .search('q', {
        onRetry: (info) => {
          delays.push(info.delayMs)
          // The wait starts as onRetry returns: end it on the fake clock right after.
          if (fakeTimers) setImmediate(() => vi.advanceTimersByTime(info.delayMs))
        },
      })
      .catch(() => undefined)
    expect(server.requests).toHaveLength(delays.length + 1)
    return delays
  }

  it('doubles from the initial delay up to the cap', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    // brave()'s defaults: 500 ms, doubling, capped at 8 s.
    expect(await backoffSeries({ maxRetries: 6 }, true)).toEqual([500, 1000, 2000, 4000, 8000, 8000])
  })

  it('jitter takes off at most a quarter', async () => {
    vi.mocked(Math.random).mockReturnValue(1)
    expect((await backoffSeries({ maxRetries: 2, backoff: { initialMs: 100 } }, false))[1]).toBe(150)
    vi.mocked(Math.random).mockReturnValue(0.5)
    expect((await backoffSeries({ maxRetries: 2, backoff: { initialMs: 100 } }, false))[1]).toBe(175)
  })
})
