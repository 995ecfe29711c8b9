import type { Pricing } from '../../core/contracts/run-cost.js'
import type { Backoff, HttpTimeouts } from '../http/index.js'

/** Options every LLM adapter accepts besides its own. */
export interface LLMAdapterOptions {
  /** Extra request headers (OpenRouter's `HTTP-Referer`, a proxy token, ...). */
  headers?: Record<string, string> | undefined
  /** Per-model prices; turns the usage chunk's tokens into `cost` when the provider reports none. */
  pricing?: Pricing | undefined
  /** First-byte and idle-between-chunks timeouts. */
  timeouts?: HttpTimeouts | undefined
  /** Retries before the first token (408/409/429/5xx, network, timeouts). @defaultValue 2 */
  maxRetries?: number | undefined
  backoff?: Backoff | undefined
  fetch?: typeof globalThis.fetch | undefined
}
