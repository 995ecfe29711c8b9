/**
 * One HTTP call with timeouts, retries and typed errors, on global `fetch` (or an injected one).
 * The response body stays a stream: callers read it chunk by chunk under an idle timeout.
 */
import { onAbort } from '../../core/util/abort-listener.js'
import { abortError, LaconicError } from '../../core/contracts/laconic-error.js'
import type { RetryInfo } from '../../core/contracts/providers.js'
import { networkError, statusError, timeoutError, type FailureContext, type HintFor } from './failure.js'
import { withRetries, withRetryHint, type RetryOptions } from './retry.js'
import { retryDelayFromHeaders, type Backoff } from './retry-delay.js'
import { openBody, type HttpResponse } from './response.js'

/** Time limits of an HTTP call: to the first byte, between two chunks, and for the whole call. */
export interface HttpTimeouts {
  /** From sending the request to the response headers. @defaultValue 60_000 */
  firstByteMs?: number | undefined
  /** Longest silence between two body chunks (and before the first). @defaultValue 60_000 */
  idleMs?: number | undefined
  /**
   * The whole request, from sending it to the end of the body (for `httpRequest`, retries
   * included): a server that drips a byte now and then never trips the idle timeout.
   * @defaultValue 600_000
   */
  totalMs?: number | undefined
}

export interface HttpRequestOptions {
  url: string
  /** @defaultValue `POST` when a body is given, else `GET` */
  method?: string | undefined
  headers?: Record<string, string> | undefined
  /** Serialised as JSON with `content-type: application/json`. */
  json?: unknown
  /** A raw body (a form post, say); ignored when `json` is given. Replayable, so retries can resend it. */
  body?: string | URLSearchParams | undefined
  /** Names the adapter in errors, e.g. `openai`. */
  provider: string
  /** Strings that must never appear in an error (API keys, tokens). */
  secrets?: ReadonlyArray<string | undefined> | undefined
  signal?: AbortSignal | undefined
  timeouts?: HttpTimeouts | undefined
  /** Retries after the first attempt, for 408/409/429/5xx, network errors and first-byte timeouts. @defaultValue 2 */
  maxRetries?: number | undefined
  backoff?: Backoff | undefined
  onRetry?: ((info: RetryInfo) => void) | undefined
  /** Replace the default hint of a failure (e.g. per-status advice); return undefined to keep it. */
  hint?: HintFor | undefined
  fetch?: typeof globalThis.fetch | undefined
  /** Jitter source for backoff, injectable for tests. */
  random?: (() => number) | undefined
  /**
   * Awaited before each attempt (`httpRequest` only), e.g. a pacer's turn for an API that asks
   * for a gap between requests. The whole-call deadline starts once the first wait is over.
   */
  beforeAttempt?: ((signal: AbortSignal | undefined) => Promise<void>) | undefined
}

export const DEFAULT_TIMEOUTS = { firstByteMs: 60_000, idleMs: 60_000, totalMs: 600_000 } as const

/**
 * The timeouts of a provider that takes one `timeoutMs`: that long to the first byte and between
 * chunks, and twice that for the whole call (the first byte, then the body). Without the whole-
 * call limit a server dripping a byte now and then would hold the call for the 10-minute
 * default, whatever limit the user set.
 */
export function callTimeouts(timeoutMs: number): HttpTimeouts {
  return { firstByteMs: timeoutMs, idleMs: timeoutMs, totalMs: 2 * timeoutMs }
}

/** Largest error body read to find the provider's message. */
const ERROR_BODY_BYTES = 16_384

/**
 * Send the request, retrying what is worth retrying, and return the response once its status
 * is 2xx. Any other status becomes a `ProviderError` (code `auth`, `not-found`, `rate-limit`,
 * `timeout` or `http`); an aborted `signal` rejects with a `LaconicError` of code `aborted`.
 */
export function httpRequest(options: HttpRequestOptions): Promise<HttpResponse> {
  const { beforeAttempt } = options
  const totalMs = options.timeouts?.totalMs ?? DEFAULT_TIMEOUTS.totalMs
  if (!beforeAttempt) {
    const deadline = performance.now() + totalMs
    return withRetries(retryOptionsOf(options), () => attemptRequest(options, deadline))
  }
  let deadline: number | undefined
  return withRetries(retryOptionsOf(options), async () => {
    await beforeAttempt(options.signal)
    deadline ??= performance.now() + totalMs
    return attemptRequest(options, deadline)
  })
}

/**
 * One attempt, no retries: for callers (streams) that run their own retry loop. `deadline`
 * (a `performance.now()` time) bounds it instead of `timeouts.totalMs` from now.
 */
export async function attemptRequest(options: HttpRequestOptions, deadline?: number): Promise<HttpResponse> {
  const { signal } = options
  const firstByteMs = options.timeouts?.firstByteMs ?? DEFAULT_TIMEOUTS.firstByteMs
  const idleMs = options.timeouts?.idleMs ?? DEFAULT_TIMEOUTS.idleMs
  const totalMs = options.timeouts?.totalMs ?? DEFAULT_TIMEOUTS.totalMs
  const remainingMs = deadline === undefined ? totalMs : deadline - performance.now()
  const init = requestInit(options)
  const ctx: FailureContext = {
    provider: options.provider,
    url: options.url,
    method: init.method,
    secrets: options.secrets ?? [],
    hint: options.hint,
  }
  if (signal?.aborted) throw abortError(signal)
  if (remainingMs <= 0) throw timeoutError(ctx, 'total', totalMs)

  // One controller per attempt: the caller's signal, the timeouts and early exits all abort it,
  // which closes the socket.
  const controller = new AbortController()
  const forwardAbort = () => controller.abort(signal?.reason)
  const stopForwarding = onAbort(signal, forwardAbort)
  const totalTimeout = new Error('total timeout')
  // Runs until the body is done; unref'd so a body its reader forgot never holds the process.
  const totalTimer = setTimeout(() => controller.abort(totalTimeout), remainingMs)
  totalTimer.unref?.()
  const release = () => {
    clearTimeout(totalTimer)
    stopForwarding()
  }
  const firstByteTimeout = new Error('first-byte timeout')
  const timer = setTimeout(() => controller.abort(firstByteTimeout), firstByteMs)

  let response: Response
  try {
    response = await (options.fetch ?? globalThis.fetch)(options.url, { ...init, signal: controller.signal })
  } catch (error) {
    release()
    if (signal?.aborted) throw abortError(signal)
    if (controller.signal.reason === firstByteTimeout) throw timeoutError(ctx, 'first-byte', firstByteMs)
    if (controller.signal.reason === totalTimeout) throw timeoutError(ctx, 'total', totalMs)
    // A guard inside the fetch refused (e.g. the SSRF check at connect time): a decision, not a
    // network failure, so it passes through as is and is not retried.
    const decided = laconicErrorIn(error)
    if (decided) throw decided
    throw networkError(ctx, error, 'connect')
  } finally {
    clearTimeout(timer)
  }

  const body = openBody(response, { controller, idleMs, ctx, signal, release, total: { reason: totalTimeout, ms: totalMs } })
  if (response.ok) return body
  const text = await body.text({ maxBytes: ERROR_BODY_BYTES }).catch(() => '')
  throw withRetryHint(statusError(ctx, response.status, response.headers, text), retryDelayFromHeaders(response.headers))
}

export function retryOptionsOf(options: HttpRequestOptions): RetryOptions {
  return {
    maxRetries: options.maxRetries,
    backoff: options.backoff,
    onRetry: options.onRetry,
    signal: options.signal,
    random: options.random,
  }
}

function requestInit(options: HttpRequestOptions): { method: string; headers: Headers; body?: string | URLSearchParams } {
  const headers = new Headers(options.headers)
  let body = options.body
  if (options.json !== undefined) {
    body = JSON.stringify(options.json)
    if (!headers.has('content-type')) headers.set('content-type', 'application/json')
  }
  const method = options.method ?? (body !== undefined ? 'POST' : 'GET')
  return body === undefined ? { method, headers } : { method, headers, body }
}

/** The first `LaconicError` in an error's `cause` chain (fetch wraps what its socket threw). */
function laconicErrorIn(error: unknown): LaconicError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof LaconicError) return current
  }
  return undefined
}
