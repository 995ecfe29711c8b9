/**
 * How long to wait before retrying: the server's own hint when it is sane, else exponential
 * backoff with jitter (the policy of the official OpenAI SDK).
 */

/** Exponential backoff bounds. */
export interface Backoff {
  /** Delay before the first retry, before jitter. @defaultValue 500 */
  initialMs?: number
  /** Cap on any backoff delay. @defaultValue 8000 */
  maxMs?: number
}

/** Server hints outside this range are ignored: negative is nonsense, longer stalls a run. */
const MAX_HINT_MS = 60_000

const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/
const GO_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 }

/** Milliseconds of a Go-style duration (`1s`, `6m0s`, `250ms`) or plain seconds (`1.5`); undefined otherwise. */
export function parseDurationMs(text: string): number | undefined {
  const value = text.trim()
  if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value) * 1000
  if (!GO_DURATION.test(value)) return undefined
  let total = 0
  for (const [, amount, unit] of value.matchAll(GO_PART)) total += Number(amount) * (UNIT_MS[unit ?? ''] ?? 0)
  return total
}

/**
 * The delay a response asks for, in ms, from `retry-after-ms`, `retry-after` (seconds or an
 * HTTP date) or `x-ratelimit-reset-*` (the exhausted limits' resets when the server says which
 * one ran out, else the longest). Undefined when there is no usable hint in 0–60 s.
 */
export function retryDelayFromHeaders(headers: Headers, now: number = Date.now()): number | undefined {
  return within(hintMs(headers, now))
}

function hintMs(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Number(ms)
  const after = headers.get('retry-after')
  if (after !== null && after.trim() !== '') {
    if (Number.isFinite(Number(after))) return Number(after) * 1000
    const date = Date.parse(after)
    if (Number.isFinite(date)) return date - now
  }
  return rateLimitResetMs(headers)
}

function rateLimitResetMs(headers: Headers): number | undefined {
  const resets: { ms: number; exhausted: boolean }[] = []
  headers.forEach((value, name) => {
    if (!name.startsWith('x-ratelimit-reset')) return
    const ms = parseDurationMs(value)
    if (ms === undefined) return
    const remaining = headers.get(name.replace('x-ratelimit-reset', 'x-ratelimit-remaining'))
    resets.push({ ms, exhausted: remaining !== null && Number(remaining) === 0 })
  })
  const relevant = resets.some((r) => r.exhausted) ? resets.filter((r) => r.exhausted) : resets
  return relevant.length === 0 ? undefined : Math.max(...relevant.map((r) => r.ms))
}

function within(ms: number | undefined): number | undefined {
  return ms !== undefined && Number.isFinite(ms) && ms >= 0 && ms <= MAX_HINT_MS ? Math.ceil(ms) : undefined
}

/** Backoff before retry number `retry` (1-based): initial × 2^(retry-1), capped, minus up to 25% jitter. */
export function backoffDelayMs(retry: number, backoff: Backoff = {}, random: () => number = Math.random): number {
  const initial = backoff.initialMs ?? 500
  const max = backoff.maxMs ?? 8000
  const base = Math.min(initial * 2 ** Math.max(0, retry - 1), max)
  return Math.round(base * (1 - random() * 0.25))
}
