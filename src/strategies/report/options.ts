import { optionsSection, wholeNumberOption } from '../../core/run/shared-options.js'

/** The `report` section of the agent's options. */
export interface ReportOptions {
  /** Sections the outline may have at most. @defaultValue 6 */
  sections?: number
  /** Words each section is asked for (its output is bounded by this, not by one call's limit for the whole report). @defaultValue 500 */
  sectionWords?: number
  /** Searches per section at most (its questions, in order). @defaultValue 2 */
  searchesPerSection?: number
  /** Top results deep-read per section when a fetch provider is set (0: snippets only). @defaultValue 1 */
  readPages?: number
  /** Characters shown of a deep-read page at most ([what a read shows](strategies.md#what-a-read-shows)). @defaultValue 2000 */
  pageChars?: number
  /** Sections researched and written at once, and the size of the run's limit on searches and fetches. @defaultValue 4 */
  concurrency?: number
  /** Every request of the run (prompt plus the reply asked for) at most, in estimated tokens (≥ 2,000). @defaultValue 8000 */
  contextTokens?: number
}

/** The report's options, checked, with their defaults filled. */
export type ReportSettings = Required<ReportOptions>

const FIELDS = ['sections', 'sectionWords', 'searchesPerSection', 'readPages', 'pageChars', 'concurrency', 'contextTokens'] as const

/** Checks the `report` section (a `config` error names the field) and fills its defaults. */
export function reportSettings(raw: unknown): ReportSettings {
  const options = optionsSection(raw, 'report', FIELDS)
  return {
    sections: wholeNumberOption(options.sections, 'report.sections', 6, 1),
    sectionWords: wholeNumberOption(options.sectionWords, 'report.sectionWords', 500, 50),
    searchesPerSection: wholeNumberOption(options.searchesPerSection, 'report.searchesPerSection', 2, 1),
    readPages: wholeNumberOption(options.readPages, 'report.readPages', 1, 0),
    pageChars: wholeNumberOption(options.pageChars, 'report.pageChars', 2000, 200),
    concurrency: wholeNumberOption(options.concurrency, 'report.concurrency', 4, 1),
    contextTokens: wholeNumberOption(options.contextTokens, 'report.contextTokens', 8000, 2000),
  }
}
