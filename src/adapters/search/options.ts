import type { Backoff } from '../http/index.js'

/** What every HTTP search provider accepts besides its own options. */
export interface HttpSearchOptions {
  /** Time limit to the first byte and between body chunks. @defaultValue 15_000 */
  readonly timeoutMs?: number
  /** Retries of network failures, timeouts, 429 and 5xx. @defaultValue 2 (DuckDuckGo: 1) */
  readonly maxRetries?: number
  readonly backoff?: Backoff
  /** Sent with every request (a `user-agent`, an `authorization` header for a protected instance, ...). */
  readonly headers?: Record<string, string>
  readonly fetch?: typeof globalThis.fetch
}
