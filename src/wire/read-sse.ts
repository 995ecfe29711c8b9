import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { chunksOf, type ByteSource } from './byte-source.js'
import { FrameTooLongError } from './frame-errors.js'
import { createLineSplitter, MAX_LINE_CHARS } from './line-splitter.js'

export type { EventSourceMessage }

export interface ReadSSEOptions {
  /** Longest line, and longest event (its `data:` lines together), in characters. @defaultValue 4_000_000 */
  maxChars?: number | undefined
  /** The server's `retry:` hint, when it sends one. */
  onRetry?: ((ms: number) => void) | undefined
  /** Stops reading (quietly: the events end) and cancels a `ReadableStream` source. */
  signal?: AbortSignal | undefined
  /**
   * A last event the body did not close with a blank line: `'dispatch'` it (a model API that
   * ends without one still meant it), or `'drop'` it (a broken connection cut it short).
   * @defaultValue 'dispatch'
   */
  unterminated?: 'dispatch' | 'drop' | undefined
}

/**
 * Server-sent events of a byte stream, parsed by eventsource-parser whatever the chunking
 * (comments and `retry:` fields are not events). Lines reach the parser whole, from a splitter
 * that holds an unfinished line as bytes, so neither grows without bound; the parser's own
 * `maxBufferSize` caps an event's data. Either cap passed throws `FrameTooLongError`.
 */
export async function* readSSE(source: ByteSource, options: ReadSSEOptions = {}): AsyncGenerator<EventSourceMessage, void, undefined> {
  const maxChars = options.maxChars ?? MAX_LINE_CHARS
  const lines = createLineSplitter({ maxChars, breaks: 'any' })
  const ready: EventSourceMessage[] = []
  let tooLong = false
  const parser = createParser({
    onEvent: (event) => ready.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') tooLong = true
    },
    maxBufferSize: maxChars,
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  })
  const feed = (text: string) => {
    parser.feed(text)
    if (tooLong) throw new FrameTooLongError('event', maxChars)
  }
  for await (const chunk of chunksOf(source, options.signal)) {
    const complete = lines.push(chunk)
    if (complete !== '') feed(complete)
    yield* ready.splice(0)
  }
  const rest = lines.end()
  if (options.unterminated !== 'drop') feed(`${rest}\n\n`)
  yield* ready.splice(0)
}
