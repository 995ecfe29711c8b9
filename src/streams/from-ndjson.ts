import type { ResearchEvent } from '../core/index.js'
import { createLineBuffer } from '../core/line-buffer.js'
import { parseResearchEvent } from './parse-event.js'

export interface FromNDJSONOptions {
  /** Called with a non-empty line that is not a research event (it is skipped). */
  onInvalid?: ((line: string) => void) | undefined
}

/**
 * Events from NDJSON text: a byte stream (a file, a pipe, `response.body`) or an iterable of
 * text chunks. Lines may be split anywhere across chunks; `\n` and `\r\n` both end a line;
 * blank lines are ignored; a last line without a newline still counts. A line longer than
 * 4,000,000 characters fails with a `LaconicError` of code `bad-response`.
 */
export async function* fromNDJSON(
  source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string> | Iterable<string>,
  options: FromNDJSONOptions = {},
): AsyncGenerator<ResearchEvent> {
  const decoder = new TextDecoder()
  const lines = createLineBuffer()
  const parse = (line: string): ResearchEvent | undefined => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (text.trim() === '') return undefined
    const event = parseResearchEvent(text)
    if (!event) options.onInvalid?.(text)
    return event
  }
  for await (const chunk of chunksOf(source)) {
    const complete = lines.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))
    if (complete === '') continue
    const split = complete.split('\n')
    split.pop() // what follows the last newline: nothing
    for (const line of split) {
      const event = parse(line)
      if (event) yield event
    }
  }
  const event = parse(lines.rest() + decoder.decode())
  if (event) yield event
}

// Node 20's ReadableStream is async-iterable but the DOM typings do not say so.
async function* chunksOf(source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string> | Iterable<string>): AsyncGenerator<Uint8Array | string> {
  if (!(source instanceof ReadableStream)) {
    yield* source
    return
  }
  const reader = source.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    // Stopping early must release the file or pipe behind the stream.
    await reader.cancel().catch(() => {})
  }
}
