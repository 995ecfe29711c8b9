/**
 * Byte streams to text units: lines (NDJSON) and server-sent events. Decoding keeps state
 * across chunks, so a multi-byte character or a line cut anywhere comes out whole.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'

export type { EventSourceMessage }

/** Text pieces of a byte stream, decoded as UTF-8 with split characters rejoined. */
export async function* decodeUtf8(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder('utf-8')
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true })
    if (text) yield text
  }
  const rest = decoder.decode()
  if (rest) yield rest
}

/** Lines of a byte stream, without their `\n` or `\r\n`; a last line without newline is kept. */
export async function* readLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string, void, undefined> {
  let pending = ''
  for await (const text of decodeUtf8(chunks)) {
    pending += text
    for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
      yield pending.slice(0, newline).replace(/\r$/, '')
      pending = pending.slice(newline + 1)
    }
  }
  if (pending.replace(/\r$/, '') !== '') yield pending.replace(/\r$/, '')
}

/** Server-sent events of a byte stream (comments and `retry:` fields are dropped). */
export async function* readSSE(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<EventSourceMessage, void, undefined> {
  const ready: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (event) => ready.push(event) })
  for await (const text of decodeUtf8(chunks)) {
    parser.feed(text)
    yield* ready.splice(0)
  }
  // A last event the server did not terminate with a blank line still counts.
  parser.feed('\n\n')
  yield* ready.splice(0)
}
