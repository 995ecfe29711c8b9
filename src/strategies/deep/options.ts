import { LaconicError } from '../../core/contracts/laconic-error.js'
import { optionsSection, wholeNumberOption } from '../../core/run/shared-options.js'

/** The `deep` section of the agent's options. */
export interface DeepOptions {
  /** Sub-questions at most. @defaultValue 3 */
  maxSteps?: number
  /** `report` (default) writes a structured report; `conversational` a direct cited answer. */
  mode?: 'report' | 'conversational'
  /** Searches per sub-question at most. @defaultValue 3 */
  searchesPerQuestion?: number
  /** Searches and page fetches in flight at once. @defaultValue 4 */
  concurrency?: number
  /** Top results deep-read per sub-question when a fetch provider is set (0: snippets only). @defaultValue 1 */
  readPages?: number
  /** Page text kept per deep-read page, in characters. @defaultValue 3000 */
  pageChars?: number
}

/** Deep's options, checked, with their defaults filled. */
export type DeepSettings = Required<DeepOptions>

const FIELDS = ['maxSteps', 'mode', 'searchesPerQuestion', 'concurrency', 'readPages', 'pageChars'] as const

/** Checks the `deep` section (a `config` error names the field) and fills its defaults. */
export function deepSettings(raw: unknown): DeepSettings {
  const options = optionsSection(raw, 'deep', FIELDS, { maxIterations: 'deep.maxSteps' })
  const mode = options.mode ?? 'report'
  if (mode !== 'report' && mode !== 'conversational') {
    throw new LaconicError(`\`deep.mode\` must be 'report' or 'conversational', got ${String(mode)}`, { code: 'config' })
  }
  return {
    maxSteps: wholeNumberOption(options.maxSteps, 'deep.maxSteps', 3, 0),
    mode,
    searchesPerQuestion: wholeNumberOption(options.searchesPerQuestion, 'deep.searchesPerQuestion', 3, 1),
    concurrency: wholeNumberOption(options.concurrency, 'deep.concurrency', 4, 1),
    readPages: wholeNumberOption(options.readPages, 'deep.readPages', 1, 0),
    pageChars: wholeNumberOption(options.pageChars, 'deep.pageChars', 3000, 200),
  }
}
