/**
 * A read document cut into chunks a small-context model can take: heading by heading (the
 * markdown `#` lines, which HTML's h1–h6 become when it is read), a paged document (PDF) page
 * by page with each chunk citing its page as `url#page=n`. Each chunk keeps its document's
 * title and heading path; what is embedded is that path and the text together.
 */
import { documentPages, pageUrl } from './document-pages.js'
import { chunkText } from './chunk.js'

/** A document as ingestion read it, before it is cut. */
export interface ReadDocument {
  url: string
  title: string
  text: string
  /** Where each page starts in `text` (a PDF). */
  pageStarts?: readonly number[] | undefined
}

/** A chunk before it has a vector. */
export interface ChunkDraft {
  url: string
  headings: string[]
  position: number
  text: string
}

const withoutFragment = (url: string) => url.split('#', 1)[0] as string

export function documentChunks(document: ReadDocument, chunkChars: number): ChunkDraft[] {
  const base = withoutFragment(document.url)
  const parts = document.pageStarts
    ? documentPages({ text: document.text, pageStarts: document.pageStarts }).map(({ page, text }) => ({ text, url: pageUrl(base, page) }))
    : [{ text: document.text, url: undefined }]
  const drafts: ChunkDraft[] = []
  for (const part of parts) {
    for (const chunk of chunkText(part.text, chunkChars)) {
      drafts.push({
        url: part.url ?? (chunk.anchor ? `${base}#${chunk.anchor}` : base),
        headings: chunk.headings,
        position: drafts.length,
        text: chunk.text,
      })
    }
  }
  return drafts
}

/** What is embedded for a chunk: where it sits (title › headings), then its text. */
export function embeddedText(title: string, chunk: Pick<ChunkDraft, 'headings' | 'text'>): string {
  const path = [title, ...chunk.headings.filter((heading) => heading !== title)].filter(Boolean).join(' › ')
  return path ? `${path}\n\n${chunk.text}` : chunk.text
}
