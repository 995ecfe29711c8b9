/**
 * The process's one extraction pool, shared by everything that parses untrusted markup or
 * files: page fetches, DuckDuckGo's results pages, arXiv's and NCBI's XML, a local corpus's
 * HTML files, PDF and DOCX documents. The pool is Node code (worker threads:
 * src/node/extract-pool.ts), installed with `installExtractPool`; a runtime without it parses in
 * place, as it always could. On Node, a job without the pool fails with a `config` error (its
 * caller then falls back as for any failed job), so a missing setup never parses hostile input
 * on the main thread unnoticed.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { DocumentLimits, DocumentText } from '../../documents/document-reading.js'
import type { ExtractedPage } from './extract.js'
import { NODE_SETUP_HINT, runsOnNode } from '../../core/util/node-setup.js'

/**
 * What the pool parses, by kind: a web page's readable text, an HTML document's whole text, a
 * PDF's or DOCX file's text. Other parsers add their kinds to it where they are defined
 * (`declare module`, as search's DuckDuckGo and XML readers do), and the worker handles each.
 */
export interface ExtractResults {
  readable: ExtractedPage
  document: ExtractedPage
  pdf: DocumentText
  docx: DocumentText
}

export type ExtractKind = keyof ExtractResults

export interface ExtractRequest<K extends ExtractKind = 'readable'> {
  /** @defaultValue 'readable' */
  kind?: K
  /** The markup (`readable`, `document`, `duckduckgo`). @defaultValue '' */
  html?: string
  /** The file (`pdf`, `docx`): copied to the thread. */
  bytes?: Uint8Array | undefined
  /** `pdf`, `docx` only. */
  limits?: DocumentLimits | undefined
  /** Readability's element limit (`readable` only). @defaultValue MAX_READABILITY_ELEMENTS */
  maxElements?: number
  /** Time the job may run once a thread has taken it. */
  timeoutMs: number
  signal?: AbortSignal | undefined
}

export interface ExtractPool {
  run<K extends ExtractKind = 'readable'>(request: ExtractRequest<K>): Promise<ExtractResults[K]>
  close(): Promise<void>
}

let startPool: (() => ExtractPool) | undefined
let pool: ExtractPool | undefined

/** Installs the pool, started on the first job (src/node/runtime.ts does, on Node). */
export function installExtractPool(start: () => ExtractPool): void {
  startPool = start
}

/**
 * Runs a parsing job on a worker thread under its time budget: rejects as the pool does (out
 * of time, the thread died, aborted). Resolves undefined in a runtime without worker threads:
 * the caller parses in place there, as it always could.
 */
export async function offThread<K extends ExtractKind>(request: ExtractRequest<K> & { kind: K }): Promise<ExtractResults[K] | undefined> {
  pool ??= startPool?.()
  if (pool) return pool.run(request)
  if (runsOnNode())
    throw new LaconicError('the extraction pool is not installed, so untrusted markup is not parsed here', { code: 'config', hint: NODE_SETUP_HINT })
  return undefined
}
