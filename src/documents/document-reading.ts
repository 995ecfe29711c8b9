/**
 * What reading a PDF or DOCX file gives back, and the bounds it reads under. The reading itself
 * is Node code on a worker thread of the extraction pool (src/node/document-text.ts); these are
 * the shapes the Web-standard side (fetch, the pool's jobs) speaks.
 */
import type { DocumentKind, DocumentWarningCode } from '../core/contracts/providers.js'

export interface DocumentNotice {
  code: DocumentWarningCode
  message: string
}

export interface DocumentLimits {
  /** Pages read at most; the rest are left out with a `document-limit` notice. */
  maxPages: number
  /** Characters of text kept at most. */
  maxChars: number
  /** No page is started after this many milliseconds (the pool's hard budget is later). */
  softTimeoutMs: number
}

export interface DocumentText {
  kind: DocumentKind
  title?: string
  text: string
  /** Pages in the document (PDF), read or not. */
  pages?: number
  /** When the file was made (a PDF's `CreationDate`, `YYYY-MM-DD`): the nearest a document says to when it was published. */
  published?: string
  /** Where each page read starts in `text` (PDF): page n is `text.slice(pageStarts[n - 1], pageStarts[n])`. */
  pageStarts?: number[]
  notices: DocumentNotice[]
  /** Set when nothing could be read, saying why. */
  failure?: DocumentNotice
}
