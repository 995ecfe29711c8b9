/**
 * Bounded retries of retryable `ProviderError`s, shared by one-shot requests and streams.
 * A stream is retried only while it has delivered nothing: repeating delivered data would
 * duplicate it downstream.
 */
import { ProviderError } from '../../core/contracts/laconic-error.js'
import type { RetryInfo } from '../../core/contracts/providers.js'
import { sleep } from '../../core/run/abortable-sleep.js'
import { backoffDelayMs, type Backoff } from './retry-delay.js'

export interface RetryOptions {
  /** Retries after the first attempt. @defaultValue 2 */
  maxRetries?: number | undefined
  backoff?: Backoff | undefined
  /** Called before each retry with the delay it is about to wait. */
  onRetry?: ((info: RetryInfo) => void) | undefined
  signal?: AbortSignal | undefined
  /** Jitter source, injectable for tests. @defaultValue Math.random */
  random?: (() => number) | undefined
}

/** Server-requested delays, attached to the errors of the responses that asked for them. */
const hintedDelays = new WeakMap<ProviderError, number>()

export function withRetryHint(error: ProviderError, delayMs: number | undefined): ProviderError {
  if (delayMs !== undefined) hintedDelays.set(error, delayMs)
  return error
}

/** Run `attempt` until it succeeds, a failure is not retryable, or the budget is spent. */
export async function withRetries<T>(options: RetryOptions, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n)
    } catch (error) {
      await pauseBeforeRetry(error, n, options)
    }
  }
}

/**
 * Yield what `attempt` yields; on a retryable failure before the first item, start over.
 * After an item went out, a failure is final and says so.
 */
export async function* streamWithRetries<T>(options: RetryOptions, attempt: (n: number) => AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
  for (let n = 1; ; n++) {
    let delivered = false
    try {
      for await (const item of attempt(n)) {
        delivered = true
        yield item
      }
      return
    } catch (error) {
      if (delivered) throw final(error)
      await pauseBeforeRetry(error, n, options)
    }
  }
}

/** Rethrows `error` unless it may be retried; otherwise reports and waits out the delay. */
async function pauseBeforeRetry(error: unknown, n: number, options: RetryOptions): Promise<void> {
  const maxRetries = options.maxRetries ?? 2
  if (!(error instanceof ProviderError) || !error.retryable || n > maxRetries || options.signal?.aborted) throw error
  const delayMs = hintedDelays.get(error) ?? backoffDelayMs(n, options.backoff, options.random)
  options.onRetry?.({
    attempt: n,
    delayMs,
    reason: error.message,
    ...(error.status !== undefined && { status: error.status }),
  })
  await sleep(delayMs, options.signal)
}

/** The same failure, marked not retryable, with a hint that explains why it was not retried. */
function final(error: unknown): unknown {
  if (!(error instanceof ProviderError) || !error.retryable) return error
  const hinted = error.hint !== undefined ? ` (${error.hint})` : ''
  const message = hinted && error.message.endsWith(hinted) ? error.message.slice(0, -hinted.length) : error.message
  return new ProviderError(message, {
    code: error.code,
    provider: error.provider,
    retryable: false,
    hint: `${error.hint ? `${error.hint}; ` : ''}not retried because data was already delivered (a retry would repeat it)`,
    cause: error,
    ...(error.status !== undefined && { status: error.status }),
    ...(error.providerMessage !== undefined && { providerMessage: error.providerMessage }),
    ...(error.requestId !== undefined && { requestId: error.requestId }),
    ...(error.url !== undefined && { url: error.url }),
  })
}
