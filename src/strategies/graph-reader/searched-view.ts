import { normalizeText } from '../../core/util/text.js'
import type { SearchedView } from './prompts.js'

/** Words of the folded searches named in their summary line at most. */
const TOPICS = 8
/** Words too common to say what a search was about. */
const STOP_WORDS = new Set('a an and are as at be by for from how in is it of on or the to was were what when where which who why with vs'.split(' '))

/** The words a query counts for in the folded line: normalised, each once, common words left out. */
function wordsOf(query: string): Set<string> {
  const words = new Set(normalizeText(query).split(' '))
  for (const word of words) if (word.length <= 1 || STOP_WORDS.has(word)) words.delete(word)
  return words
}

/**
 * The searches of a run, in order, with what the answer check's list needs kept up to date as
 * searches come and go: how often each word was searched, and the characters the list takes. A
 * check then costs the same at the 2,000th node as at the 20th (it recounted every search's words).
 */
export class SearchedQueries {
  readonly #list: string[] = []
  readonly #counts = new Map<string, number>()
  /** Characters of the listed lines (`- query`), newlines aside. */
  #chars = 0
  /** How many the last fitting kept (`Infinity`: all): where the next fitting starts looking. */
  hint = Number.POSITIVE_INFINITY

  constructor(queries: readonly string[] = []) {
    for (const query of queries) this.add(query)
  }

  get list(): readonly string[] {
    return this.#list
  }

  get length(): number {
    return this.#list.length
  }

  /** At least the characters of every search listed (`- query` each, newlines aside). */
  get chars(): number {
    return this.#chars
  }

  add(query: string): void {
    this.#list.push(query)
    this.#chars += query.length + 2
    for (const word of wordsOf(query)) this.#counts.set(word, (this.#counts.get(word) ?? 0) + 1)
  }

  /** Takes back the last search of `query` (a cancelled node's), if there is one. */
  removeLast(query: string): void {
    const at = this.#list.lastIndexOf(query)
    if (at < 0) return
    this.#list.splice(at, 1)
    this.#chars -= query.length + 2
    for (const word of wordsOf(query)) {
      const count = (this.#counts.get(word) ?? 0) - 1
      if (count > 0) this.#counts.set(word, count)
      else this.#counts.delete(word)
    }
  }

  /** The most frequent words across the searches, most frequent first (ties alphabetical). */
  topics(): string[] {
    // One pass keeping the best few, not a sort of every word.
    const best: Array<[string, number]> = []
    const before = (a: [string, number], b: [string, number]) => a[1] > b[1] || (a[1] === b[1] && a[0] < b[0])
    for (const entry of this.#counts) {
      if (best.length === TOPICS && !before(entry, best[TOPICS - 1] as [string, number])) continue
      let at = best.length
      while (at > 0 && before(entry, best[at - 1] as [string, number])) at--
      best.splice(at, 0, entry)
      if (best.length > TOPICS) best.pop()
    }
    return best.map(([word]) => word)
  }
}

/**
 * The prompt (`promptOf`) with the largest view of `searched` that `fits`: every search while
 * they fit, else the newest that fit, the rest folded into one line (how many, and the words
 * searched most). When not even that fits, every search is folded: the rest of the prompt is
 * over the budget on its own.
 *
 * `fits` must depend on the prompt's length only, a longer prompt never fitting where a shorter
 * one does not. The search starts from where the last one ended (`searched.hint`, or from none
 * kept) and widens from there, so it builds a few prompts no longer than about twice the budget,
 * however many searches there are: the whole list only while the last one fitted whole, or when
 * it is shorter than a prompt that did not fit.
 */
export function fitSearched(searched: SearchedQueries, fits: (prompt: string) => boolean, promptOf: (view: SearchedView) => string): string {
  const n = searched.length
  const list = searched.list
  let wholeTried = false
  const whole = () => {
    wholeTried = true
    return promptOf({ folded: 0, topics: [], recent: [...list] })
  }
  if (n === 0) return whole()
  let topics: string[] | undefined
  // The words come from every search: the same line whatever is folded, so a prompt grows with `kept` (below n).
  const viewOf = (kept: number): SearchedView => {
    topics ??= searched.topics()
    return { folded: n - kept, topics, recent: list.slice(n - kept) }
  }
  const done = (kept: number, prompt: string) => {
    searched.hint = kept === n ? Number.POSITIVE_INFINITY : kept
    return prompt
  }
  if (searched.hint >= n) {
    const prompt = whole()
    if (fits(prompt)) return done(n, prompt)
  }
  // The whole list, shorter than the folded line of a prompt that did not fit, may still fit.
  const wholeIfShorter = (failed: string): string | undefined => {
    if (wholeTried || searched.chars > failed.length) return undefined
    const prompt = whole()
    return fits(prompt) ? prompt : undefined
  }
  /** Whether the first `kept` fit, and the prompt when they do. */
  const probe = (kept: number): { fit: boolean; prompt: string } => {
    const prompt = promptOf(viewOf(kept))
    return { fit: fits(prompt), prompt }
  }

  // Bracket the answer: `low` fits (0 is taken to: nothing can be folded further), `high` does not.
  let low = 0
  let lowPrompt: string | undefined
  let high = n
  let widenUp = true
  const hint = searched.hint
  if (hint > 0 && hint < n) {
    const first = probe(hint)
    if (first.fit) {
      low = hint
      lowPrompt = first.prompt
    } else {
      high = hint
      widenUp = false
      const shorter = wholeIfShorter(first.prompt)
      if (shorter !== undefined) return done(n, shorter)
    }
  }
  if (widenUp) {
    // low + 1, + 2, + 4, … until one does not fit or every search would be listed: each that fits is within the budget.
    for (let step = 1; ; step *= 2) {
      const kept = low + step
      if (kept >= n) {
        // Every search listed is the whole prompt, tried above unless the hint skipped it.
        if (!wholeTried) {
          const prompt = whole()
          if (fits(prompt)) return done(n, prompt)
        }
        break
      }
      const next = probe(kept)
      if (!next.fit) {
        high = kept
        const shorter = wholeIfShorter(next.prompt)
        if (shorter !== undefined) return done(n, shorter)
        break
      }
      low = kept
      lowPrompt = next.prompt
    }
  } else {
    // hint − 1, − 2, − 4, … until one fits, or none is kept.
    for (let step = 1; ; step *= 2) {
      const kept = Math.max(0, high - step)
      if (kept === 0) break
      const next = probe(kept)
      if (next.fit) {
        low = kept
        lowPrompt = next.prompt
        break
      }
      high = kept
    }
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2)
    const next = probe(mid)
    if (next.fit) {
      low = mid
      lowPrompt = next.prompt
    } else high = mid
  }
  return done(low, lowPrompt ?? promptOf(viewOf(low)))
}
