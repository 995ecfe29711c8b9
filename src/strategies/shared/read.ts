/**
 * The small readers every strategy needs for what a model wrote: a yes/no, a query, a list of
 * distinct queries. One vocabulary for all four strategies, and each linear in its input (no
 * regex that backtracks over a long run of quotes or spaces).
 */
import { normalizeText, truncateAtSentence } from '../../core/util/text.js'

/** Items a list (bare or JSON) is read for at most: a model's list is a few dozen. */
export const MAX_LIST_ITEMS = 1000

/** Whitespace, quotes, backticks and Markdown emphasis a model puts around a value. */
const EDGE = new Set([...' \t\r\n\f\v\u00a0"\'`“”‘’«»*_'])

/** `text` without `edge` characters at its start and `endEdge` ones at its end (a regex with `+$` would be quadratic). */
export function trimEdges(text: string, edge: ReadonlySet<string> = EDGE, endEdge: ReadonlySet<string> = edge): string {
  let start = 0
  let end = text.length
  while (start < end && edge.has(text[start]!)) start++
  while (end > start && endEdge.has(text[end - 1]!)) end--
  return text.slice(start, end)
}

const YES = ['yes', 'true', 'y', '1']
const NO = ['no', 'false', 'n', '0']

/**
 * A model's yes/no: a boolean, 1/0, or a word (`yes`, `true`, `y`, `no`, `false`, `n`, any
 * case, quotes and a final `.`/`!` ignored), plus the strategy's own `words` (`answerable`).
 * Undefined when it is neither.
 */
export function readBoolean(value: unknown, words: { yes?: readonly string[]; no?: readonly string[] } = {}): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === 0) return value === 1
  if (typeof value !== 'string' || value.length > 40) return undefined
  const word = trimEdges(value)
    .replace(/[.!]+$/, '')
    .trim()
    .toLowerCase()
  if (YES.includes(word) || words.yes?.includes(word)) return true
  if (NO.includes(word) || words.no?.includes(word)) return false
  return undefined
}

const LABEL = /^\s*(?:search\s+query|query|search)\s*[:=]\s*/i
const TEMPLATE = /^[<[{(].*[>\]})]$/
const PLACEHOLDER = /^(?:\.\.\.|…|none|n\/a|query|search|tbd)$/i
const COPIED_INSTRUCTION = /\b(?:your|a|the) (?:short )?(?:web )?search query\b/i

/**
 * A usable query (or sub-question) from a model: emphasis, a `query:` label and surrounding
 * quotes removed; undefined when empty, without a letter or digit, on several lines, or a template placeholder the model
 * copied (`<query>`, `...`, "your search query"). Cut at a word boundary to `maxChars`.
 */
export function cleanQuery(raw: string, maxChars = 200): string | undefined {
  if (typeof raw !== 'string') return undefined
  // Long values are cut first (at most twice the budget is read), so every step below is bounded.
  const text = trimEdges(raw.length > maxChars * 2 ? raw.slice(0, maxChars * 2) : raw)
    .replace(/[*_`]+/g, '')
    .replace(LABEL, '')
  // Commas and edge characters are trimmed until neither is left at the end ("a, ," is "a", as a
  // bare list's parse reads it): one pass each would leave "a,".
  let query = text
  for (let next = trimEdges(query.replace(/,+$/, '')); next !== query; next = trimEdges(query.replace(/,+$/, ''))) query = next
  if (!query || /[\r\n]/.test(query)) return undefined
  // Nothing to search (no letter or digit): what the parse of a whole reply drops, a query read as it streams drops too.
  if (!normalizeText(query)) return undefined
  if (TEMPLATE.test(query) || PLACEHOLDER.test(query) || COPIED_INSTRUCTION.test(query)) return undefined
  return query.length > maxChars ? truncateAtSentence(query, maxChars) : query
}

/**
 * Clean queries without repeats (by normalised text), at most `max`, from the first
 * `MAX_LIST_ITEMS` items (past them a list is junk: a million repeats must not cost a million
 * cleanings).
 */
export function distinctQueries(raw: readonly unknown[], max: number, maxChars = 200): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const item of raw.length > MAX_LIST_ITEMS ? raw.slice(0, MAX_LIST_ITEMS) : raw) {
    if (out.length >= max) break
    const query = typeof item === 'string' ? cleanQuery(item, maxChars) : undefined
    const key = query && normalizeText(query)
    if (!query || !key || seen.has(key)) continue
    seen.add(key)
    out.push(query)
  }
  return out
}
