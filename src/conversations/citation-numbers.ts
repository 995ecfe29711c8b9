/**
 * Citation numbers across a conversation's turns: `[1]` names the same source for the whole
 * conversation. A turn starts from the conversation's citations (the strategies keep their
 * numbers and number new sources after them); when it ends, its citations are merged back here,
 * where a turn that ran beside another may find its new numbers taken.
 */
import type { Citation } from '../core/contracts/events.js'
import { normalizeUrl } from '../core/util/urls.js'

/** The conversation's citations with a turn's merged in, and where each of the turn's numbers went. */
export interface MergedCitations {
  /** The turn's number → the conversation's number for the same source. */
  numbers: Map<number, number>
  /** Every citation of the conversation, by number. */
  citations: Citation[]
}

/**
 * Merges a turn's citations into the conversation's: a source the conversation numbered already
 * (by normalized URL) keeps its number; a new source keeps the number the turn gave it unless
 * that number is taken, then it gets the next free one.
 */
export function mergeCitations(known: readonly Citation[], added: readonly Citation[]): MergedCitations {
  const byUrl = new Map(known.map((c) => [normalizeUrl(c.url), c.index]))
  const taken = new Set(known.map((c) => c.index))
  let highest = Math.max(0, ...taken)
  const numbers = new Map<number, number>()
  const citations = [...known]
  for (const citation of [...added].sort((a, b) => a.index - b.index)) {
    const key = normalizeUrl(citation.url)
    const index = byUrl.get(key) ?? (taken.has(citation.index) ? highest + 1 : citation.index)
    numbers.set(citation.index, index)
    if (byUrl.has(key)) continue
    byUrl.set(key, index)
    taken.add(index)
    highest = Math.max(highest, index)
    citations.push({ ...citation, index })
  }
  return { numbers, citations: citations.sort((a, b) => a.index - b.index) }
}
