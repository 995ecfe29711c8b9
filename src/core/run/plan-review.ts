import { LaconicError } from '../contracts/laconic-error.js'

/** The queries of a plan's `edit`: trimmed, blanks and repeats dropped; none left is a `config` error. */
export function editedQueries(queries: unknown): string[] {
  if (!Array.isArray(queries)) {
    throw new LaconicError('an edited plan must be an array of queries', { code: 'config' })
  }
  const kept = [
    ...new Set(
      queries
        .filter((q): q is string => typeof q === 'string')
        .map((q) => q.trim())
        .filter(Boolean),
    ),
  ]
  if (!kept.length) throw new LaconicError('the approved plan has no queries', { code: 'config', hint: "reject it ({ action: 'reject' }) to stop instead" })
  return kept
}

/** The `plan` event that shows the queries a caller approved in place of the proposed ones. */
export function editedPlanEvent(queries: readonly string[]): { type: 'plan'; text: string; queries: string[] } {
  return { type: 'plan', text: `Approved plan: ${queries.join(' | ')}`, queries: [...queries] }
}
