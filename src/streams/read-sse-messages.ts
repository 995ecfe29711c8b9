import { createParser, type EventSourceMessage } from 'eventsource-parser'

export interface ReadSSEOptions {
  signal?: AbortSignal | undefined
  /** The server's `retry:` hint, when it sends one. */
  onRetry?: ((ms: number) => void) | undefined
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
  const parser = createParser({ onEvent: (message) => ready.push(message), onRetry: options.onRetry })
  const cancel = () => void reader.cancel(options.signal?.reason).catch(() => {})
  options.signal?.addEventListener('abort', cancel, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      // A body that ends mid-frame did not send that frame: drop the partial frame.
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }))
      while (ready.length > 0) yield ready.shift() as EventSourceMessage
      if (done) return
    }
  } finally {
    options.signal?.removeEventListener('abort', cancel)
    cancel()
  }
}
