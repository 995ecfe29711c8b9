import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { backoffDelayMs, parseDurationMs, retryDelayFromHeaders } from '../../../src/adapters/http/index.js'

describe('parseDurationMs', () => {
  it.each([
    ['1s', 1000],
    ['6m0s', 360_000],
    ['250ms', 250],
    ['1h2m3.5s', 3_723_500],
    ['120ms', 120],
    ['1.5', 1500],
    ['500us', 0.5],
  ])('%s → %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms))

  it.each(['', 's', '1x', '-1s', 'soon', '1 s'])('%j is not a duration', (text) => expect(parseDurationMs(text)).toBeUndefined())

  it('is total', () => fc.assert(fc.property(fc.string(), (text) => void parseDurationMs(text))))
})

describe('retryDelayFromHeaders', () => {
  const now = Date.parse('2025-11-22T02:00:00Z')
  const delay = (headers: Record<string, string>) => retryDelayFromHeaders(new Headers(headers), now)

  it('retry-after-ms wins over retry-after', () => expect(delay({ 'retry-after-ms': '50', 'retry-after': '3' })).toBe(50))
  it('retry-after in seconds', () => expect(delay({ 'retry-after': '2' })).toBe(2000))
  it('retry-after as an HTTP date', () => expect(delay({ 'retry-after': 'Sat, 22 Nov 2025 02:00:07 GMT' })).toBe(7000))
  it('x-ratelimit-reset of the exhausted limit', () =>
    expect(
      delay({
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-remaining-tokens': '1200',
        'x-ratelimit-reset-tokens': '6m0s',
      }),
    ).toBe(1000))
  it('x-ratelimit-reset: the longest when none says it is exhausted', () =>
    expect(delay({ 'x-ratelimit-reset-requests': '250ms', 'x-ratelimit-reset-tokens': '2s' })).toBe(2000))
  it.each<Record<string, string>>([
    { 'retry-after': '120' },
    { 'retry-after-ms': '-5' },
    { 'x-ratelimit-reset-tokens': '6m0s' },
    { 'retry-after': 'later' },
    {},
  ])('no usable hint outside 0–60 s: %j', (headers) => expect(delay(headers)).toBeUndefined())
  it('is total over header values', () =>
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
        const ms = delay({ 'retry-after-ms': a, 'retry-after': b, 'x-ratelimit-reset-tokens': c })
        expect(ms === undefined || (ms >= 0 && ms <= 60_000)).toBe(true)
      }),
    ))
})

describe('backoffDelayMs', () => {
  it('doubles from the initial delay up to the cap', () => {
    const noJitter = () => 0
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, {}, noJitter))).toEqual([500, 1000, 2000, 4000, 8000, 8000])
  })
  it('jitter takes off at most a quarter', () => {
    expect(backoffDelayMs(2, { initialMs: 100 }, () => 1)).toBe(150)
    expect(backoffDelayMs(2, { initialMs: 100 }, () => 0.5)).toBe(175)
  })
})
