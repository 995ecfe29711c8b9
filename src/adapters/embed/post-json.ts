/**
 * One JSON request of an embedding adapter over the shared HTTP layer (retries, timeouts, typed
 * errors), its reply read up to a byte limit: a reply past it is refused, never cut and parsed.
 */
import { ProviderError } from '../../core/contracts/laconic-error.js'
import { httpRequest, type HttpRequestOptions } from '../http/index.js'

/** The longest reply a vector may take: 8,192 dimensions at up to 32 characters a number. */
const BYTES_PER_VECTOR = 262_144
/** Room for the envelope around the vectors (usage, model, an error message). */
const ENVELOPE_BYTES = 65_536

/** The reply's byte limit for a batch of `texts` texts. */
export function replyLimit(texts: number): number {
  return texts * BYTES_PER_VECTOR + ENVELOPE_BYTES
}

export async function postJson(options: HttpRequestOptions & { maxBytes: number }): Promise<unknown> {
  const { maxBytes, ...request } = options
  const response = await httpRequest({ ...request, headers: { accept: 'application/json', ...request.headers } })
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  for await (const chunk of response.chunks()) {
    bytes += chunk.byteLength
    if (bytes > maxBytes)
      throw new ProviderError(`${options.provider}: the reply is larger than ${maxBytes} bytes`, {
        code: 'bad-response',
        provider: options.provider,
        status: response.status,
        hint: 'check that the URL points at an embeddings API, or lower `batchSize`',
      })
    text += decoder.decode(chunk, { stream: true })
  }
  text += decoder.decode()
  try {
    return JSON.parse(text)
  } catch {
    // The SyntaxError is not kept: it quotes the body, which is the server's, not ours to show.
    throw new ProviderError(`${options.provider}: the reply is not JSON`, {
      code: 'bad-response',
      provider: options.provider,
      status: response.status,
      hint: 'check that the URL points at the embeddings API itself, not at a web page or a proxy login',
    })
  }
}
