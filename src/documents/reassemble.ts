/**
 * A stored document's text put back together from its chunks, for `kb.fetch(url)`: chunks in
 * order, a heading line where the heading path changes, and for a paged document (chunks citing
 * `#page=n`) where each page starts, so strategies read it page by page as a fetched PDF.
 */
import { pageOfUrl } from './document-pages.js'

/** What reassembly reads of a stored chunk (the knowledge base's `Chunk` is one), in document order. */
export interface ChunkInOrder {
  url: string
  headings: readonly string[]
  text: string
}

export function reassemble(chunks: readonly ChunkInOrder[]): { text: string; pageStarts?: number[] } {
  let text = ''
  let headings: readonly string[] = []
  const pageStarts: number[] = []
  const append = (part: string) => {
    text += text ? `\n\n${part}` : part
  }
  for (const chunk of chunks) {
    const page = pageOfUrl(chunk.url)
    if (page !== undefined) {
      // Pages without text have no chunk: they start where the next page does.
      while (pageStarts.length < page) pageStarts.push(text ? text.length + 2 : 0)
    }
    const from = headings.findIndex((heading, i) => chunk.headings[i] !== heading)
    const changed = from === -1 ? (chunk.headings.length > headings.length ? headings.length : -1) : from
    if (changed !== -1) for (let i = changed; i < chunk.headings.length; i++) append(`${'#'.repeat(Math.min(i + 1, 6))} ${chunk.headings[i]}`)
    headings = chunk.headings
    append(chunk.text)
  }
  return pageStarts.length > 0 ? { text, pageStarts } : { text }
}
