/**
 * Splitting a document into chunks for an index (the local corpus, the knowledge base): the
 * windows `textWindows` cuts along its structure, each given as its paragraphs joined by blank
 * lines with its heading path. Total: any string gives a (possibly empty) list.
 */
import { textWindows } from './text-windows.js'

export interface Chunk {
  /** The nearest heading above the chunk, without its `#` marks. */
  heading?: string
  /** Every heading the chunk is under, outermost first (a `##` under a `#`...): empty before the first. */
  headings: string[]
  /** A stable in-document anchor for that heading (GitHub style, de-duplicated). */
  anchor?: string
  text: string
}

export function chunkText(text: string, maxChars = 1000): Chunk[] {
  const normalized = text.replace(/\r\n?/g, '\n')
  return textWindows(normalized, maxChars).map(({ heading, headings, anchor, pieces }) => ({
    ...(heading === undefined ? {} : { heading, ...(anchor ? { anchor } : {}) }),
    headings,
    text: pieces.map((piece) => normalized.slice(piece.start, piece.end)).join('\n\n'),
  }))
}
