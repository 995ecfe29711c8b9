import type { DocumentKind, DocumentWarningCode } from '../core/contracts/providers.js'

/** One document of a local corpus: given in memory, or read from a file of `dir`. */
export interface LocalDocument {
  /** Stable identity. @defaultValue the path under `dir`, or `doc-<n>` by position */
  id?: string
  /** @defaultValue the first `#` heading, or the first line */
  title?: string
  text: string
  /** Where results point. @defaultValue a `file:` URL (dir) or the relative URL `local/<id>` */
  url?: string
  /** The format it was read from, for a PDF or DOCX file. */
  kind?: DocumentKind
  /** Where each page starts in `text` (a PDF): its chunks cite `url#page=n`. */
  pageStarts?: readonly number[]
}

/** The files a folder is read for: markdown, text, HTML, PDF and DOCX. */
export const DEFAULT_EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm', '.pdf', '.docx']

/** A skipped file as a folder's reader reports it: where it is, and why it was left out. */
export interface SkippedFileReport {
  /** Its `file:` URL. */
  url: string
  /** Its path under the folder (the id it would have had). */
  id: string
  code: DocumentWarningCode
  message: string
}

/** Options of reading a folder. */
export interface LoadDirectoryOptions {
  /** Time one HTML file may take to parse. @defaultValue 5_000 */
  timeoutMs?: number
  /** A larger file is skipped, not read. @defaultValue 50_000_000 */
  maxFileBytes?: number
}

/** What a folder holds: the documents read, and the files left out with why. */
export interface LoadedDirectory {
  documents: LocalDocument[]
  skipped: SkippedFileReport[]
}

/** Reads a folder into documents: Node's file system (src/node/load-dir.ts), installed where it runs. */
export type LoadDirectory = (dir: string, extensions?: readonly string[], options?: LoadDirectoryOptions) => Promise<LoadedDirectory>
