/**
 * The readable part of an HTML page, computed off the main thread (see `extract-pool.ts`)
 * under a time budget. A page that is not done in time, or that kills its thread, falls back
 * to its tag-stripped text, which costs one linear pass; an abort rejects at once.
 */
import { isAbortError } from '../../core/contracts/laconic-error.js'
import { extractReadable, loadExtractModules, MAX_READABILITY_ELEMENTS, taglessText, type ExtractedPage } from './extract.js'
import { offThread } from './off-thread.js'

export interface ReadableTextOptions {
  signal?: AbortSignal | undefined
  /** @defaultValue 5_000 */
  timeoutMs?: number | undefined
  /** @defaultValue MAX_READABILITY_ELEMENTS */
  maxElements?: number | undefined
}

export const DEFAULT_EXTRACT_TIMEOUT_MS = 5_000

export async function readableText(html: string, options: ReadableTextOptions = {}): Promise<ExtractedPage> {
  const maxElements = options.maxElements ?? MAX_READABILITY_ELEMENTS
  try {
    const page = await offThread({ kind: 'readable', html, maxElements, timeoutMs: options.timeoutMs ?? DEFAULT_EXTRACT_TIMEOUT_MS, signal: options.signal })
    // A runtime without worker threads reads the page in place, as it always could.
    return page ?? extractReadable(html, await loadExtractModules(), maxElements)
  } catch (error) {
    if (isAbortError(error)) throw error
    // The pool's failure says why: not done within the budget, or the thread died.
    const why = error instanceof Error ? error.message : String(error)
    return { text: await taglessText(html), fallback: `extracting its readable text failed (${why}); it was read as tag-stripped text` }
  }
}
