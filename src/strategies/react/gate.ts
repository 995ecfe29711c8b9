/**
 * The default grounding gate of a `react` answer: every `[n]` must name a source the run saw,
 * and an answer with sources to cite must cite one.
 */
import type { ReactEvidence } from './options.js'
import { citationNumbers } from '../shared/citations.js'

export function groundingGate(answer: string, evidence: ReactEvidence): true | { reject: string } {
  const known = new Set(evidence.sources.map((s) => s.n))
  const cited = [...new Set(citationNumbers(answer))]
  const unknown = cited.filter((n) => !known.has(n))
  if (unknown.length) {
    const list = evidence.sources.length ? `the sources are [1] to [${evidence.sources.length}]` : 'no source has been found yet'
    return {
      reject: `the answer cites ${unknown.map((n) => `[${n}]`).join(', ')}, which name no source of this research (${list}). Cite only sources you have seen.`,
    }
  }
  if (cited.length === 0 && evidence.sources.length > 0) {
    return { reject: 'the answer cites no source. Support each claim with the [n] of the source it comes from.' }
  }
  return true
}
