import type { ResearchEvent } from '../core/contracts/events.js'
import { fromWireError } from '../core/contracts/laconic-error.js'
import { readLines } from '../wire/index.js'
import { parseResearchEvent } from './parse-event.js'

/** Options of `fromNDJSON()`: what to do with a line that is not a research event. */
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
  try {
    for await (const line of readLines(source)) {
      if (line.trim() === '') continue
      const event = parseResearchEvent(line)
      if (event) yield event
      else options.onInvalid?.(line)
    }
  } catch (error) {
    throw fromWireError(error)
  }
}
