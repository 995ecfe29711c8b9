import { normalizeText } from '../../core/index.js'
import type { SearchedView } from './prompts.js'

/** Words of the folded searches named in their summary line at most. */
const TOPICS = 8
/** Words too common to say what a search was about. */
const STOP_WORDS = new Set('a an and are as at be by for from how in is it of on or the to was were what when where which who why with vs'.split(' '))

/**
 * The prompt (`promptOf`) with the largest view of `searched` that `fits`: every search while
 * they fit, else the newest that fit, the rest folded into one line (how many, and the words
 * searched most). When not even that fits, every search is folded: the rest of the prompt is
 * over the budget on its own.
 */
export function fitSearched(searched: readonly string[], fits: (prompt: string) => boolean, promptOf: (view: SearchedView) => string): string {
  const whole = promptOf({ folded: 0, topics: [], recent: [...searched] })
  if (fits(whole)) return whole
  const topics = topicsOf(searched)
  // The words come from every search: the same line whatever is folded, so fitting is monotone in `kept`.
  const viewOf = (kept: number): SearchedView => ({ folded: searched.length - kept, topics, recent: searched.slice(searched.length - kept) })
  let low = 0
  let high = searched.length - 1
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (fits(promptOf(viewOf(mid)))) low = mid
    else high = mid - 1
  }
  return promptOf(viewOf(low))
}

/** The most frequent words across `queries` (normalised, common words left out), most frequent first. */
function topicsOf(queries: readonly string[]): string[] {
  const counts = new Map<string, number>()
  for (const query of queries) {
    for (const word of new Set(normalizeText(query).split(' '))) {
      if (word.length > 1 && !STOP_WORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1)
    }
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOPICS)
    .map(([word]) => word)
}
