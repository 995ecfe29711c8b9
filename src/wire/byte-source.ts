/**
 * Where wire readers take their input from: a `ReadableStream` (a `fetch` body, a file) or any
 * iterable of chunks. Text chunks are read as their UTF-8 bytes.
 */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>

const encoder = new TextEncoder()

/**
 * The chunks of `source` as bytes. Leaving the loop early (or `signal` aborting) cancels a
 * `ReadableStream`, which releases the connection, file or pipe behind it; an aborted signal
 * ends the chunks quietly: the caller decides what an abort means.
 */
export async function* chunksOf(source: ByteSource, signal?: AbortSignal | undefined): AsyncGenerator<Uint8Array, void, undefined> {
  if (!(source instanceof ReadableStream)) {
    for await (const chunk of source) yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk
    return
  }
  // Node 20's ReadableStream is async-iterable but the DOM typings do not say so: read it by hand.
  const reader = source.getReader()
  const cancel = () => void reader.cancel(signal?.reason).catch(() => {})
  if (signal?.aborted) return cancel()
  signal?.addEventListener('abort', cancel, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done || signal?.aborted) return
      yield value
    }
  } finally {
    signal?.removeEventListener('abort', cancel)
    cancel()
  }
}
