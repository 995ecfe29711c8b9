/**
 * A fetched or local PDF/DOCX file as a page a model can read, parsed on a worker thread of
 * the extraction pool (`document-text.ts` does the work there): the main thread only copies
 * the bytes over and waits. What went wrong becomes a typed outcome: a whole document that
 * cannot be read is a `ProviderError` whose code says why (`document-encrypted`, ...), a part
 * left out (a scanned page, pages past the limit) is one of the page's `warnings`.
 */
import { ProviderError, isAbortError } from '../../core/contracts/laconic-error.js'
import type { ErrorCode } from '../../core/contracts/laconic-error.js'
import type { DocumentKind, FetchedPage } from '../../core/contracts/providers.js'
import type { DocumentLimits } from '../../documents/document-reading.js'
import { offThread } from './off-thread.js'

export interface ReadDocumentOptions {
  /** Time the thread may take; no page is started after 80% of it, so what was read is kept. */
  timeoutMs: number
  maxPages: number
  maxChars: number
  signal?: AbortSignal | undefined
  /** The download was cut (the byte cap, a dropped connection): said in a `document-truncated` warning. */
  truncated?: string | undefined
  /** Who reads it, in errors. @defaultValue 'http-fetch' */
  provider?: string
}

const NAMES: Record<DocumentKind, string> = { pdf: 'PDF', docx: 'DOCX' }

/** Share of the budget after which no new page is started (the pool's hard stop comes later). */
const SOFT_SHARE = 0.8

const HINTS: Partial<Record<ErrorCode, string>> = {
  'document-encrypted': 'a password-protected document cannot be read; skip it',
  'missing-dependency': 'install the package named, then run again',
  'document-truncated': 'the download was cut short; raise `maxDocumentBytes` or skip it',
  'unsupported-content': 'read documents on Node, or skip this one',
}

function documentError(url: string, notice: { code: ErrorCode; message: string }, provider: string, cause?: unknown): ProviderError {
  return new ProviderError(`${provider}: ${url}: ${notice.message}`, {
    code: notice.code,
    provider,
    url,
    hint: HINTS[notice.code] ?? 'skip this document',
    ...(cause !== undefined ? { cause } : {}),
  })
}

/**
 * What went wrong, without who read which URL or the hint: for a report that names the document
 * itself (a corpus's or knowledge base's list of skipped files). Any other error's message as it is.
 */
export function documentReason(error: ProviderError): string {
  let reason = error.message
  const prefix = `${error.provider}: ${error.url}: `
  if (error.url !== undefined && reason.startsWith(prefix)) reason = reason.slice(prefix.length)
  const hint = ` (${error.hint})`
  if (error.hint !== undefined && reason.endsWith(hint)) reason = reason.slice(0, -hint.length)
  return reason
}

export async function readDocument(url: string, kind: DocumentKind, bytes: Uint8Array, options: ReadDocumentOptions): Promise<FetchedPage> {
  const provider = options.provider ?? 'http-fetch'
  const limits: DocumentLimits = { maxPages: options.maxPages, maxChars: options.maxChars, softTimeoutMs: options.timeoutMs * SOFT_SHARE }
  let read: Awaited<ReturnType<typeof offThread<DocumentKind>>>
  try {
    read = await offThread({ kind, bytes, limits, timeoutMs: options.timeoutMs, signal: options.signal })
  } catch (error) {
    if (isAbortError(error)) throw error
    // Out of time or out of memory (a bomb), or the thread crashed: the pool says which.
    const why = error instanceof Error ? error.message : String(error)
    throw documentError(url, { code: 'document-unreadable', message: `the ${NAMES[kind]} could not be read (${why})` }, provider, error)
  }
  if (!read) {
    // A runtime without worker threads: documents are never parsed on the main thread.
    throw documentError(url, { code: 'unsupported-content', message: `reading a ${NAMES[kind]} needs worker threads (Node)` }, provider)
  }
  if (read.failure) {
    const failure =
      options.truncated && read.failure.code === 'document-unreadable'
        ? { code: 'document-truncated' as const, message: `${options.truncated}, and what arrived could not be read` }
        : read.failure
    throw documentError(url, failure, provider)
  }
  const warnings = [...(options.truncated ? [{ code: 'document-truncated' as const, message: options.truncated }] : []), ...read.notices]
  return {
    url,
    ...(read.title ? { title: read.title } : {}),
    text: read.text,
    kind,
    ...(read.pages !== undefined ? { pages: read.pages } : {}),
    ...(read.pageStarts ? { pageStarts: read.pageStarts } : {}),
    ...(read.published ? { published: read.published } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  }
}
