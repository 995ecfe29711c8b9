/**
 * The process's one extraction pool (see `extract-pool.ts`), shared by everything that parses
 * untrusted HTML: page fetches, DuckDuckGo's results pages, a local corpus's HTML files.
 */
import type { ExtractPool, ExtractRequest } from './extract-pool.js'
import type { ExtractKind, ExtractResults } from './extract-worker.js'

// Loaded on first use: the pool needs node:worker_threads, and importing the adapters must not.
let pool: Promise<ExtractPool | undefined> | undefined
const poolFor = (): Promise<ExtractPool | undefined> =>
  (pool ??= import('./extract-pool.js').then(
    (module) => module.createExtractPool(),
    () => undefined,
  ))

/**
 * Runs a parsing job on a worker thread under its time budget: rejects as the pool does (out
 * of time, the thread died, aborted). Resolves undefined in a runtime without worker threads:
 * the caller parses in place there, as it always could.
 */
export async function offThread<K extends ExtractKind>(request: ExtractRequest<K> & { kind: K }): Promise<ExtractResults[K] | undefined> {
  const workers = await poolFor()
  return workers ? workers.run(request) : undefined
}
