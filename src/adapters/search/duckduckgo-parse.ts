/**
 * DuckDuckGo's result pages, parsed off the main thread: the page is untrusted markup, and a
 * few hundred kilobytes of nested result blocks keep a DOM walk busy for seconds. The
 * extraction worker pool reads it under a time budget; a runtime without worker threads
 * reads it in place.
 */
import { isAbortError } from '../../core/contracts/laconic-error.js'
import { loadParser } from '../fetch/dom.js'
import { offThread } from '../fetch/off-thread.js'
import { readDuckDuckGoPage, type DuckDuckGoPage } from './duckduckgo-page.js'

export { resultUrl, type DuckDuckGoPage } from './duckduckgo-page.js'

declare module '../fetch/off-thread.js' {
  /** A DuckDuckGo results page is one of the extraction pool's jobs. */
  interface ExtractResults {
    duckduckgo: DuckDuckGoPage
  }
}

/** Time a results page may take to read (a real one takes milliseconds). */
export const DUCKDUCKGO_PARSE_TIMEOUT_MS = 5_000

export interface ParseOptions {
  signal?: AbortSignal | undefined
  /** @defaultValue DUCKDUCKGO_PARSE_TIMEOUT_MS */
  timeoutMs?: number | undefined
}

/** Never throws but on an abort: unparseable input reads as a blocked page, one out of time as unreadable. */
export async function parseDuckDuckGoPage(html: string, options: ParseOptions = {}): Promise<DuckDuckGoPage> {
  let parsed: DuckDuckGoPage | undefined
  try {
    parsed = await offThread({ kind: 'duckduckgo', html, timeoutMs: options.timeoutMs ?? DUCKDUCKGO_PARSE_TIMEOUT_MS, signal: options.signal })
  } catch (error) {
    if (isAbortError(error)) throw error
    return { kind: 'unreadable', reason: error instanceof Error ? error.message : String(error) }
  }
  return parsed ?? readDuckDuckGoPage(html, await loadParser())
}
