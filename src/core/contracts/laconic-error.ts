import { FrameTooLongError } from '../../wire/frame-errors.js'

/**
 * Errors carry a `code` discriminator and, where it helps, a hint that says what to do next.
 * No message ever contains a secret: adapters pass every text they build through `redact`.
 */
export type ErrorCode =
  | 'config'
  | 'unknown-strategy'
  | 'aborted'
  | 'timeout'
  | 'network'
  | 'http'
  | 'auth'
  | 'rate-limit'
  | 'not-found'
  | 'bad-response'
  | 'blocked-url'
  | 'unsupported-content'
  | 'strategy'
  /** A run's lock is held elsewhere (a second resume of one run). */
  | 'locked'
  /** The model declined to answer; its words are in the message. */
  | 'refusal'
  /** A search failed for a reason no more specific code names. */
  | 'search-failed'
  /** A run's event stream ended before its `run-end`. */
  | 'incomplete'
  /** Something was thrown that is not a `LaconicError` (a strategy's or a provider's own bug). */
  | 'error'
  /** Adapters and strategies users write may throw their own codes. */
  | (string & {})

/** A failure as events carry it: what went wrong, and its code (see `ErrorCode`). */
export interface ErrorInfo {
  message: string
  code: ErrorCode
  /**
   * Why, when the error had a cause its message does not say: the messages of its causes,
   * outermost first, joined by `: ` (e.g. why a folder could not be read). Set on a failed
   * search's error and a run's `run-end` error; the CLI prints it with `--debug`.
   */
  cause?: string
}

/** The error laconic throws, with a `code` saying what went wrong and, when there is one, a `hint` saying how to fix it. */
export class LaconicError extends Error {
  readonly code: ErrorCode
  readonly hint?: string
  constructor(message: string, options: { code: ErrorCode; hint?: string; cause?: unknown }) {
    super(options.hint ? `${message} (${options.hint})` : message, { cause: options.cause })
    this.name = 'LaconicError'
    this.code = options.code
    if (options.hint !== undefined) this.hint = options.hint
  }
}

/** What a `ProviderError` says about the failure: which adapter, the HTTP status, and whether a retry may help. */
export interface ProviderErrorDetails {
  code: ErrorCode
  /** Which adapter failed, e.g. `openai`, `ollama`, `brave`. */
  provider: string
  status?: number
  /** The provider's own error text, redacted. */
  providerMessage?: string
  requestId?: string
  url?: string
  hint?: string
  retryable?: boolean
  cause?: unknown
}

/** A model, search or fetch backend failed. */
export class ProviderError extends LaconicError {
  readonly provider: string
  readonly status?: number
  readonly providerMessage?: string
  readonly requestId?: string
  readonly url?: string
  readonly retryable: boolean
  constructor(message: string, details: ProviderErrorDetails) {
    super(message, details)
    this.name = 'ProviderError'
    this.provider = details.provider
    this.retryable = details.retryable ?? false
    if (details.status !== undefined) this.status = details.status
    if (details.providerMessage !== undefined) this.providerMessage = details.providerMessage
    if (details.requestId !== undefined) this.requestId = details.requestId
    if (details.url !== undefined) this.url = details.url
  }
}

/** True for the errors an aborted signal produces, whatever produced them. */
export function isAbortError(error: unknown): boolean {
  if (error instanceof LaconicError) return error.code === 'aborted'
  return error instanceof Error && error.name === 'AbortError'
}

export function abortError(signal?: AbortSignal): LaconicError {
  const reason = signal?.reason
  const detail = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'the run was aborted'
  return new LaconicError(detail, { code: 'aborted', cause: reason })
}

/**
 * The messages of `error.cause`, its cause, and so on, that the message before them does not
 * already say, outermost first, joined by `: `; undefined when there are none. Reads `Error`s,
 * `ErrorInfo`s (whose `cause` is already text) and strings; at most eight deep, cycles cut.
 */
export function causeText(error: unknown): string | undefined {
  const said = [messageOf(error) ?? '']
  const parts: string[] = []
  const seen = new Set<unknown>([error])
  let current = (error as { cause?: unknown } | null | undefined)?.cause
  for (let depth = 0; current !== undefined && current !== null && depth < 8 && !seen.has(current); depth++) {
    seen.add(current)
    const text = messageOf(current)?.trim()
    // Node's fetch wraps every failure in "fetch failed": the link says nothing its own cause does not.
    if (text && text !== 'fetch failed' && !said.some((before) => before.includes(text))) parts.push(text)
    if (text) said.push(text)
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined
  }
  return parts.length > 0 ? parts.join(': ') : undefined
}

function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value instanceof Error) return value.message || value.name
  const message = (value as { message?: unknown } | null)?.message
  return typeof message === 'string' ? message : undefined
}

/** `describeError` with the error's `cause` (see `causeText`): for the failures whose reason may lie in a cause. */
export function describeWithCause(error: unknown): ErrorInfo {
  const cause = causeText(error)
  return { ...describeError(error), ...(cause !== undefined ? { cause } : {}) }
}

/** `{message, code}` of any thrown value, for `warning` and `run-end` events. */
export function describeError(error: unknown): ErrorInfo {
  if (error instanceof LaconicError) return { message: error.message, code: error.code }
  if (error instanceof Error) return { message: error.message || error.name, code: error.name === 'AbortError' ? 'aborted' : 'error' }
  return { message: String(error), code: 'error' }
}

/** Replace every occurrence of each secret with a marker; secrets shorter than 4 chars are ignored. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]')
  }
  return out
}

/**
 * A wire reader's failure as this package's typed error (an oversized frame is the server's
 * doing: `bad-response`); any other error as it is.
 */
export function fromWireError(error: unknown): unknown {
  if (!(error instanceof FrameTooLongError)) return error
  return new LaconicError(error.message, {
    code: 'bad-response',
    hint: 'the server sent an oversized or unterminated frame; check that the URL points at the right API',
    cause: error,
  })
}
