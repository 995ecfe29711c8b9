/**
 * The readable part of an HTML page, computed off the main thread (see `extract-pool.ts`)
 * under a time budget. A page that is not done in time, or that kills its thread, falls back
 * to its tag-stripped text, which costs one linear pass; an abort rejects at once.
 */
import { isAbortError } from '../../core/index.js'
import { extractReadable, loadExtractModules, MAX_READABILITY_ELEMENTS, taglessText, type ExtractedPage } from './extract.js'

export interface ReadableTextOptions {
  signal?: AbortSignal | undefined
  /** @defaultValue 5_000 */
  timeoutMs?: number | undefined
  /** @defaultValue MAX_READABILITY_ELEMENTS */
  maxElements?: number | undefined
}

export const DEFAULT_EXTRACT_TIMEOUT_MS = 5_000

type Pool = ReturnType<typeof import('./extract-pool.js')['createExtractPool']>

// Loaded on first use: the pool needs node:worker_threads, and importing the adapters must not.
let pool: Promise<Pool | undefined> | undefined
const poolFor = (): Promise<Pool | undefined> =>
  (pool ??= import('./extract-pool.js').then(
    (module) => module.createExtractPool(),
    () => undefined,
  ))

export async function readableText(html: string, options: ReadableTextOptions = {}): Promise<ExtractedPage> {
  const maxElements = options.maxElements ?? MAX_READABILITY_ELEMENTS
  const workers = await poolFor()
  // A runtime without worker threads reads the page in place, as it always could.
  if (!workers) return extractReadable(html, await loadExtractModules(), maxElements)
  try {
    return await workers.run({ html, maxElements, timeoutMs: options.timeoutMs ?? DEFAULT_EXTRACT_TIMEOUT_MS, signal: options.signal })
  } catch (error) {
    if (isAbortError(error)) throw error
    // The pool's failure says why: not done within the budget, or the thread died.
    const why = error instanceof Error ? error.message : String(error)
    return { text: await taglessText(html), fallback: `extracting its readable text failed (${why}); it was read as tag-stripped text` }
  }
}
