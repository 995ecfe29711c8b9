import { chunksOf, type ByteSource } from './byte-source.js'
import { createLineSplitter } from './line-splitter.js'

export interface ReadLinesOptions {
  /** Longest line accepted, in characters. @defaultValue 4_000_000 */
  maxChars?: number | undefined
  /** Stops reading (quietly: the lines end) and cancels a `ReadableStream` source. */
  signal?: AbortSignal | undefined
}

/**
 * The lines of a byte stream (NDJSON), without their `\n` or `\r\n`, decoded as UTF-8 however
 * the chunks cut them; a last line without a newline is kept. A line longer than `maxChars`
 * throws `FrameTooLongError`.
 */
export async function* readLines(source: ByteSource, options: ReadLinesOptions = {}): AsyncGenerator<string, void, undefined> {
  const splitter = createLineSplitter({ maxChars: options.maxChars, breaks: 'lf' })
  for await (const chunk of chunksOf(source, options.signal)) {
    const complete = splitter.push(chunk)
    if (complete === '') continue
    const lines = complete.split('\n')
    lines.pop() // what follows the last newline: nothing
    for (const line of lines) yield withoutCR(line)
  }
  const last = withoutCR(splitter.end())
  if (last !== '') yield last
}

const withoutCR = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line)
