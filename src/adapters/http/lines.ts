/**
 * Byte streams to text units: lines (NDJSON) and server-sent events. Decoding keeps state
 * across chunks, so a multi-byte character or a line cut anywhere comes out whole.
 */
import type { EventSourceMessage } from 'eventsource-parser'
import { createLineBuffer, createSSEFeed, MAX_LINE_CHARS } from '../../core/line-buffer.js'

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

/**
 * Lines of a byte stream, without their `\n` or `\r\n`; a last line without newline is kept.
 * A line longer than `maxChars` fails with `code: 'bad-response'`.
 */
export async function* readLines(chunks: AsyncIterable<Uint8Array>, maxChars = MAX_LINE_CHARS): AsyncGenerator<string, void, undefined> {
  const buffer = createLineBuffer(maxChars)
  for await (const text of decodeUtf8(chunks)) {
    const complete = buffer.push(text)
    if (complete === '') continue
    const lines = complete.split('\n')
    lines.pop() // what follows the last newline: nothing
    for (const line of lines) yield withoutCR(line)
  }
  const last = withoutCR(buffer.rest())
  if (last !== '') yield last
}

const withoutCR = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line)

/**
 * Server-sent events of a byte stream (comments and `retry:` fields are dropped). A line or
 * an event longer than `maxChars` fails with `code: 'bad-response'`.
 */
export async function* readSSE(chunks: AsyncIterable<Uint8Array>, maxChars = MAX_LINE_CHARS): AsyncGenerator<EventSourceMessage, void, undefined> {
  const ready: EventSourceMessage[] = []
  const feed = createSSEFeed({ onEvent: (event) => ready.push(event) }, maxChars)
  for await (const text of decodeUtf8(chunks)) {
    feed.feed(text)
    yield* ready.splice(0)
  }
  // A last event the server did not terminate with a blank line still counts.
  feed.end(true)
  yield* ready.splice(0)
}
