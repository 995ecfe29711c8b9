import type { SearchOptions } from '../../core/contracts/providers.js'
import { callTimeouts, secretHeaderValues, type Backoff } from '../http/index.js'

/** What every HTTP search provider accepts besides its own options. */
export interface HttpSearchOptions {
  /** Time limit to the first byte and between body chunks; the whole call gets twice it. @defaultValue 15_000 */
  readonly timeoutMs?: number
  /** Retries of network failures, timeouts, 429 and 5xx. @defaultValue 2 (DuckDuckGo: 1) */
  readonly maxRetries?: number
  readonly backoff?: Backoff
  /** Sent with every request (a `user-agent`, an `authorization` header for a protected instance, ...). */
  readonly headers?: Record<string, string>
  readonly fetch?: typeof globalThis.fetch
}

/**
 * The transport half of every search request: the call's signal and retry hook, this provider's
 * time limit, retries and fetch, and the secrets to keep out of errors.
 */
export function transport(options: HttpSearchOptions, call: SearchOptions, apiKey?: string) {
  const timeoutMs = options.timeoutMs ?? 15_000
  return {
    signal: call.signal,
    onRetry: call.onRetry,
    timeouts: callTimeouts(timeoutMs),
    maxRetries: options.maxRetries ?? 2,
    backoff: options.backoff,
    fetch: options.fetch,
    secrets: [apiKey, ...secretHeaderValues(options.headers)],
  }
}
