/**
 * One API call over the shared HTTP layer, its body read as JSON (`requestJson`) or as text
 * (`requestText`, for XML APIs): retries, timeouts and typed errors come from there; a body
 * that is not what the API speaks becomes a `bad-response` error naming the provider.
 */
import { ProviderError, redact } from '../../core/contracts/laconic-error.js'
import { httpRequest, quoteSafely } from '../http/index.js'
import type { HttpRequestOptions } from '../http/index.js'

/** JSON answers from search APIs are small; anything bigger is not the API talking. */
const MAX_JSON_BYTES = 5_000_000

export async function requestJson(options: HttpRequestOptions): Promise<unknown> {
  const { text, status } = await requestText({ ...options, headers: { accept: 'application/json', ...options.headers } })
  try {
    return JSON.parse(text)
  } catch {
    // The SyntaxError is not kept: its message quotes a cut of the body, and a cut key no
    // longer matches the key to redact.
    throw badResponse(options, status, text, 'the response is not JSON')
  }
}

/** The body of a 2xx answer as text, at most `maxBytes` of it. */
export async function requestText(options: HttpRequestOptions, maxBytes = MAX_JSON_BYTES): Promise<{ text: string; status: number }> {
  const response = await httpRequest(options)
  return { text: await response.text({ maxBytes }), status: response.status }
}

/** A `bad-response` error for a body the provider cannot read, quoting its start with secrets redacted. */
export function badResponse(options: HttpRequestOptions, status: number, text: string, what: string, hint?: string): ProviderError {
  const secrets = options.secrets ?? []
  const where = new URL(options.url)
  return new ProviderError(`${options.provider}: ${what}`, {
    code: 'bad-response',
    provider: options.provider,
    status,
    url: redact(where.origin + where.pathname, secrets),
    providerMessage: quoteSafely(text, secrets, 120),
    hint: hint ?? 'check that the base URL points at the API itself, not at a web page or a proxy login',
  })
}
