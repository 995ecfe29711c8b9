/**
 * Turning what went wrong on the wire into a `ProviderError`: a code, the provider's own
 * message, the request id and a hint, with every secret redacted.
 */
import { ProviderError, redact, type ErrorCode } from '../../core/contracts/laconic-error.js'

/** What the caller's hint hook sees; it returns a hint to use instead of the default one. */
export interface HttpFailure {
  kind: 'status' | 'network' | 'timeout'
  status?: number
  /** The provider's message, already redacted. */
  providerMessage?: string
  /** The request URL, already redacted. */
  url: string
}

export type HintFor = (failure: HttpFailure) => string | undefined

/** Context every failure needs: who failed, where, and which strings must never show. */
export interface FailureContext {
  provider: string
  url: string
  method: string
  secrets: ReadonlyArray<string | undefined>
  hint?: HintFor | undefined
}

const RETRYABLE_STATUS = new Set([408, 409, 429])

/** The statuses the official SDKs retry: 408, 409, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status) || status >= 500
}

function codeForStatus(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'auth'
  if (status === 404) return 'not-found'
  if (status === 429) return 'rate-limit'
  if (status === 408) return 'timeout'
  return 'http'
}

function defaultStatusHint(status: number, isHtml: boolean, host: string): string | undefined {
  if (status === 401) return 'check the API key'
  if (status === 403) return 'check the API key and what it is allowed to do'
  if (status === 404) return 'check the base URL and the model or resource name'
  if (status === 429) return 'rate limited: slow down, wait, or raise the plan limits'
  if (status >= 500 && isHtml) return `a proxy or gateway in front of ${host} answered with an HTML error page; try again later`
  if (status >= 500) return `${host} had a server error; try again later`
  return undefined
}

/** `origin + path` without the query string, which can carry keys. */
function where(ctx: FailureContext): string {
  try {
    const url = new URL(ctx.url)
    return redact(`${ctx.method} ${url.origin}${url.pathname}`, ctx.secrets)
  } catch {
    return ctx.method
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'the server'
  }
}

/** An error for a non-2xx response, from its status, headers and (capped) body text. */
export function statusError(ctx: FailureContext, status: number, headers: Headers, body: string): ProviderError {
  const isHtml = /^\s*<(!doctype|html)/i.test(body) || (headers.get('content-type') ?? '').includes('text/html')
  // Redacted before anything is cut from it: a cut could leave part of a key that no longer matches.
  const safeBody = redact(body, ctx.secrets)
  const providerMessage = isHtml ? htmlSummary(safeBody) : messageFromBody(safeBody)
  const url = redact(ctx.url, ctx.secrets)
  const hint =
    ctx.hint?.({ kind: 'status', status, url, ...(providerMessage !== undefined && { providerMessage }) }) ?? defaultStatusHint(status, isHtml, hostOf(ctx.url))
  const requestId = headers.get('x-request-id') ?? headers.get('request-id') ?? requestIdFromBody(body)
  const message = `${ctx.provider}: HTTP ${status} from ${where(ctx)}${providerMessage ? `: ${providerMessage}` : ''}`
  return new ProviderError(message, {
    code: codeForStatus(status),
    provider: ctx.provider,
    status,
    url,
    retryable: isRetryableStatus(status),
    ...(providerMessage !== undefined && { providerMessage }),
    ...(requestId !== undefined && { requestId: redact(requestId, ctx.secrets) }),
    ...(hint !== undefined && { hint: redact(hint, ctx.secrets) }),
  })
}

/** An error for a request that never got (or lost) its response: refused, reset, DNS, TLS. */
export function networkError(ctx: FailureContext, cause: unknown, phase: 'connect' | 'body'): ProviderError {
  const url = redact(ctx.url, ctx.secrets)
  const detail = redact(causeText(cause), ctx.secrets)
  const hint =
    ctx.hint?.({ kind: 'network', url }) ??
    (phase === 'connect'
      ? `could not reach ${hostOf(ctx.url)}: check the URL, that the server is up, and the network`
      : 'the connection dropped while the response was streaming')
  const lead = phase === 'connect' ? 'request failed' : 'connection lost mid-response'
  return new ProviderError(`${ctx.provider}: ${lead} (${where(ctx)}): ${detail}`, {
    code: 'network',
    provider: ctx.provider,
    url,
    retryable: true,
    hint: redact(hint, ctx.secrets),
    cause: scrubbedCause(cause, ctx.secrets),
  })
}

/** An error for a server that went silent (no headers in time, no bytes for too long) or took too long overall. */
export function timeoutError(ctx: FailureContext, phase: 'first-byte' | 'idle' | 'total', ms: number): ProviderError {
  const url = redact(ctx.url, ctx.secrets)
  const option = phase === 'first-byte' ? 'timeouts.firstByteMs' : phase === 'idle' ? 'timeouts.idleMs' : 'timeouts.totalMs'
  const hint =
    ctx.hint?.({ kind: 'timeout', url }) ??
    (phase === 'total'
      ? `${hostOf(ctx.url)} kept the response going for too long; raise \`${option}\` if that is expected`
      : `${hostOf(ctx.url)} is slow or stuck; raise \`${option}\` if it is just slow`)
  const what = phase === 'first-byte' ? `no response within ${ms} ms` : phase === 'idle' ? `no data for ${ms} ms` : `not done within ${ms} ms`
  return new ProviderError(`${ctx.provider}: ${what} (${where(ctx)})`, {
    code: 'timeout',
    provider: ctx.provider,
    url,
    // The whole budget is spent: another attempt would have none.
    retryable: phase !== 'total',
    hint: redact(hint, ctx.secrets),
  })
}

/**
 * The human part of an error body: OpenAI `{error:{message}}`, Ollama `{error}`, Anthropic
 * `{error:{message}}`, Tavily `{detail:{error}}`, Brave `{error:{detail}}`, or plain text.
 */
export function messageFromBody(body: string): string | undefined {
  const text = body.trim()
  if (text === '') return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return clip(text)
  }
  const found = firstString(parsed, [
    ['error', 'message'],
    ['error'],
    ['error', 'detail'],
    ['message'],
    ['detail'],
    ['detail', 'error'],
    ['detail', 'message'],
    ['errors', 0, 'message'],
  ])
  return found === undefined ? clip(text) : clip(found)
}

function firstString(value: unknown, paths: (string | number)[][]): string | undefined {
  for (const path of paths) {
    let node: unknown = value
    for (const key of path) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined
    if (typeof node === 'string' && node.trim() !== '') return node
  }
  return undefined
}

function requestIdFromBody(body: string): string | undefined {
  try {
    const id = firstString(JSON.parse(body), [['request_id'], ['error', 'request_id']])
    return id
  } catch {
    return undefined
  }
}

function htmlSummary(body: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim()
  const heading = /<h1[^>]*>([^<]*)<\/h1>/i.exec(body)?.[1]?.trim()
  const label = title || heading
  return label ? `HTML page "${clip(label)}"` : 'an HTML page'
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat
}

function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause)
  // undici hides the useful part (ECONNREFUSED, ECONNRESET, ...) in `cause`
  const inner = cause.cause instanceof Error ? cause.cause : undefined
  const code = inner && 'code' in inner && typeof inner.code === 'string' ? inner.code : undefined
  return [cause.message, code ?? inner?.message].filter(Boolean).join(': ')
}

/**
 * The cause kept for debugging, as a copy with every secret redacted: its message and stack,
 * its whole `cause` chain and an `AggregateError`'s `errors`, however deep.
 */
export function scrubbedCause(cause: unknown, secrets: ReadonlyArray<string | undefined>, seen = new Map<unknown, unknown>()): unknown {
  if (typeof cause === 'string') return redact(cause, secrets)
  // A plain object could hold anything (a request, its headers): not kept.
  if (!(cause instanceof Error)) return typeof cause === 'object' && cause !== null ? undefined : cause
  const done = seen.get(cause)
  if (done !== undefined) return done
  const copy = cause instanceof AggregateError ? new AggregateError([], redact(cause.message, secrets)) : new Error(redact(cause.message, secrets))
  seen.set(cause, copy)
  copy.name = cause.name
  copy.stack = cause.stack === undefined ? '' : redact(cause.stack, secrets)
  const code = (cause as { code?: unknown }).code
  if (typeof code === 'string') Object.assign(copy, { code: redact(code, secrets) })
  if (cause.cause !== undefined) copy.cause = scrubbedCause(cause.cause, secrets, seen)
  if (cause instanceof AggregateError && copy instanceof AggregateError) copy.errors = cause.errors.map((error) => scrubbedCause(error, secrets, seen))
  return copy
}

/** A text to quote in an error: redacted first, then cut to `max` characters, whitespace collapsed. */
export function quoteSafely(text: string, secrets: ReadonlyArray<string | undefined>, max = 300): string {
  const flat = redact(text, secrets).replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}
