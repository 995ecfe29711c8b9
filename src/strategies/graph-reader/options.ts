import { optionsSection, wholeNumberOption } from '../../core/run/shared-options.js'

/** The `graphReader` section of the agent's options. */
export interface GraphReaderOptions {
  /** Nodes (queries) explored at most. @defaultValue 8 */
  maxSteps?: number
  /** Nodes explored at once (so exploration model calls in flight), and searches and page fetches in flight at once. @defaultValue 4 */
  concurrency?: number
  /** Pages deep-read per node at most. @defaultValue 2 */
  maxPagesPerNode?: number
  /** Page text kept for extraction, in characters. @defaultValue 4000 */
  pageChars?: number
  /** Condense the notebook before the finalizer when it holds more facts than this. @defaultValue 40 */
  condenseAbove?: number
  /** Facts per condensing batch. @defaultValue 25 */
  condenseBatch?: number
  /**
   * The answer check's request stays within this many tokens (estimated): past it, the oldest
   * searches of its "already run" list fold into one summary line. Fits an 8k model with room for
   * the reply. @defaultValue 6000
   */
  contextTokens?: number
}

/** Graph-reader's options, checked, with their defaults filled. */
export type GraphReaderSettings = Required<GraphReaderOptions>

const FIELDS = ['maxSteps', 'concurrency', 'maxPagesPerNode', 'pageChars', 'condenseAbove', 'condenseBatch', 'contextTokens'] as const

/** Checks the `graphReader` section (a `config` error names the field) and fills its defaults. */
export function graphReaderSettings(raw: unknown): GraphReaderSettings {
  const options = optionsSection(raw, 'graphReader', FIELDS, { maxIterations: 'graphReader.maxSteps' })
  return {
    maxSteps: wholeNumberOption(options.maxSteps, 'graphReader.maxSteps', 8, 0),
    concurrency: wholeNumberOption(options.concurrency, 'graphReader.concurrency', 4, 1),
    maxPagesPerNode: wholeNumberOption(options.maxPagesPerNode, 'graphReader.maxPagesPerNode', 2, 0),
    pageChars: wholeNumberOption(options.pageChars, 'graphReader.pageChars', 4000, 1),
    condenseAbove: wholeNumberOption(options.condenseAbove, 'graphReader.condenseAbove', 40, 1),
    condenseBatch: wholeNumberOption(options.condenseBatch, 'graphReader.condenseBatch', 25, 2),
    contextTokens: wholeNumberOption(options.contextTokens, 'graphReader.contextTokens', 6000, 1000),
  }
}
