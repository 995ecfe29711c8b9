/**
 * One JSON API call over the shared HTTP layer: retries, timeouts and typed errors come
 * from there; a body that is not JSON becomes a `bad-response` error naming the provider.
 */
import { ProviderError, redact } from '../../core/index.js'
import { httpRequest, quoteSafely } from '../http/index.js'
import type { HttpRequestOptions } from '../http/index.js'

/** JSON answers from search APIs are small; anything bigger is not the API talking. */
const MAX_JSON_BYTES = 5_000_000

export async function requestJson(options: HttpRequestOptions): Promise<unknown> {
  const response = await httpRequest({ ...options, headers: { accept: 'application/json', ...options.headers } })
  const text = await response.text({ maxBytes: MAX_JSON_BYTES })
  try {
    return JSON.parse(text)
  } catch {
    // The SyntaxError is not kept: its message quotes a cut of the body, and a cut key no
    // longer matches the key to redact.
    const secrets = options.secrets ?? []
    const start = quoteSafely(text, secrets, 120)
    const where = new URL(options.url)
    throw new ProviderError(`${options.provider}: the response is not JSON`, {
      code: 'bad-response',
      provider: options.provider,
      status: response.status,
      url: redact(where.origin + where.pathname, secrets),
      providerMessage: start,
      hint: 'check that the base URL points at the API itself, not at a web page or a proxy login',
    })
  }
}
