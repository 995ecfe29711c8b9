/**
 * A 2xx response whose body is read under an idle timeout, with read failures mapped to
 * `ProviderError`s and early exits closing the connection.
 */
import { abortError } from '../../core/contracts/laconic-error.js'
import { networkError, timeoutError, type FailureContext } from './failure.js'

export interface HttpResponse {
  readonly status: number
  readonly headers: Headers
  /** The final URL, after redirects. */
  readonly url: string
  /**
   * The body bytes as they arrive. Read once. Leaving the loop early closes the connection.
   * Throws `ProviderError` code `timeout` (idle) or `network` (reset), or an `aborted` error.
   */
  chunks(): AsyncGenerator<Uint8Array, void, undefined>
  /**
   * The body decoded as text (charset from `content-type`, else UTF-8), stopping after
   * `maxBytes` bytes when given.
   */
  text(options?: { maxBytes?: number }): Promise<string>
  /** Stop reading and close the connection. */
  cancel(): void
}

export interface BodyControl {
  controller: AbortController
  idleMs: number
  ctx: FailureContext
  signal?: AbortSignal | undefined
  /** Detach from the caller's signal (and stop the total timer) once the body is finished. */
  release: () => void
  /** The abort reason of the request's total deadline, and its length for the error. */
  total?: { reason: unknown; ms: number } | undefined
}

export function openBody(response: Response, control: BodyControl): HttpResponse {
  const { controller, idleMs, ctx, signal, release, total } = control
  const idleTimeout = new Error('idle timeout')
  let finished = false
  const cancel = () => {
    if (!finished) controller.abort()
    finished = true
    release()
  }

  async function* chunks(): AsyncGenerator<Uint8Array, void, undefined> {
    if (!response.body) return cancel()
    const reader = response.body.getReader()
    try {
      for (;;) {
        const timer = setTimeout(() => controller.abort(idleTimeout), idleMs)
        let read: ReadableStreamReadResult<Uint8Array>
        try {
          read = await reader.read()
        } catch (error) {
          if (signal?.aborted) throw abortError(signal)
          if (controller.signal.reason === idleTimeout) throw timeoutError(ctx, 'idle', idleMs)
          if (total && controller.signal.reason === total.reason) throw timeoutError(ctx, 'total', total.ms)
          throw networkError(ctx, error, 'body')
        } finally {
          clearTimeout(timer)
        }
        if (read.done) {
          finished = true
          return
        }
        yield read.value
      }
    } finally {
      // Leaving early (a consumer's `break`, an error): stop the body, then the socket.
      if (!finished) reader.cancel().catch(() => {})
      cancel()
    }
  }

  async function text(options: { maxBytes?: number } = {}): Promise<string> {
    const decoder = decoderFor(response.headers.get('content-type'))
    const max = options.maxBytes ?? Number.POSITIVE_INFINITY
    let out = ''
    let bytes = 0
    for await (const chunk of chunks()) {
      const room = max - bytes
      out += decoder.decode(chunk.byteLength > room ? chunk.subarray(0, room) : chunk, { stream: true })
      bytes += chunk.byteLength
      if (bytes >= max) break
    }
    return out + decoder.decode()
  }

  return { status: response.status, headers: response.headers, url: response.url, chunks, text, cancel }
}

function decoderFor(contentType: string | null): TextDecoder {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? '')?.[1]
  try {
    return new TextDecoder(charset ?? 'utf-8')
  } catch {
    return new TextDecoder('utf-8')
  }
}
