import { onAbort } from '../core/abort-listener.js'
import type { EventSourceMessage } from 'eventsource-parser'
import { createSSEFeed } from '../core/line-buffer.js'

export interface ReadSSEOptions {
  signal?: AbortSignal | undefined
  /** The server's `retry:` hint, when it sends one. */
  onRetry?: ((ms: number) => void) | undefined
  /** Longest line or event accepted, in characters. @defaultValue 4_000_000 */
  maxChars?: number | undefined
}

/**
 * The messages of one SSE body, parsed with eventsource-parser whatever the chunking.
 * Ends when the body ends or the signal aborts; stopping early cancels the body, which
 * closes the connection.
 */
export async function* readSSEMessages(body: ReadableStream<Uint8Array>, options: ReadSSEOptions = {}): AsyncGenerator<EventSourceMessage> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const ready: EventSourceMessage[] = []
  const parser = createSSEFeed({ onEvent: (message) => ready.push(message), ...(options.onRetry ? { onRetry: options.onRetry } : {}) }, options.maxChars)
  const cancel = () => void reader.cancel(options.signal?.reason).catch(() => {})
  const stopWaiting = onAbort(options.signal, cancel)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      // A body that ends mid-frame did not send that frame: drop the partial frame.
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }))
      if (done) parser.end(false)
      while (ready.length > 0) yield ready.shift() as EventSourceMessage
      if (done) return
    }
  } finally {
    stopWaiting()
    cancel()
  }
}
