/**
 * A run's source rules (`SearchOptions.sources`) as a provider puts them in its request: domains
 * normalized, dates as the first and last day allowed (`YYYY-MM-DD`).
 */
import type { SearchOptions } from '../../core/contracts/providers.js'
import { type SourceRules, sourceRules } from '../../core/run/allowed-sources.js'

/** The call's rules, or undefined when it has none (or ones the run would have refused). */
export function callSourceRules(call: SearchOptions): SourceRules | undefined {
  try {
    return sourceRules(call.sources)
  } catch {
    return undefined
  }
}

/** `YYYY-MM-DD` as `YYYY/MM/DD` (NCBI) or `YYYYMMDD` (arXiv). */
export function compactDay(day: string, separator: string): string {
  return day.split('-').join(separator)
}
