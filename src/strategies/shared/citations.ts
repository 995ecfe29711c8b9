import type { Citation } from '../../core/contracts/events.js'
import type { TextFilter } from '../../core/util/text.js'
import { normalizeUrl } from '../../core/util/urls.js'

/**
 * Numbers sources for citation: the first source cited gets 1, the next new one 2, and a
 * source keeps its number for as long as the registry lives (a whole conversation, in a session).
 */
export class CitationRegistry {
  private readonly byUrl = new Map<string, Citation>()
  private highest = 0

  constructor(initial: readonly Citation[] = []) {
    for (const citation of [...initial].sort((a, b) => a.index - b.index)) {
      this.byUrl.set(normalizeUrl(citation.url), { ...citation })
      this.highest = Math.max(this.highest, citation.index)
    }
  }

  /** The number of `url`, assigned now if it has none. */
  indexOf(url: string, title?: string): number {
    const key = normalizeUrl(url)
    const known = this.byUrl.get(key)
    if (known) return known.index
    // Past the highest number, not the count: a seed with gaps ([2, 4]) must not reuse 4.
    const citation: Citation = { index: ++this.highest, url, ...(title ? { title } : {}) }
    this.byUrl.set(key, citation)
    return citation.index
  }

  /** Every numbered source, by number. */
  list(): Citation[] {
    return [...this.byUrl.values()].sort((a, b) => a.index - b.index)
  }

  /** The citations whose numbers appear in `text`, by number. */
  citedIn(text: string): Citation[] {
    const cited = new Set(citationNumbers(text))
    return this.list().filter((c) => cited.has(c.index))
  }
}

/** A marker that may still be completed by the next chunk: "[", "[1", "[1, 2". */
const PARTIAL_MARKER = /\[[\d,\s]{0,20}$/

/**
 * The citation marker that starts at `open` (a `[`): `[n]` or `[n, m, …]`, numbers of 1 to 4
 * digits, spaces allowed around the commas only. Returns the index just past its `]`, with its
 * numbers in `numbers` (overwritten: one list for every marker, no allocation per marker), or -1
 * when no marker starts there. Callers loop over `[`s with no callback per marker: a reply that is
 * nothing but markers (a hostile model's) costs a few tens of milliseconds per megabyte.
 */
function markerAt(text: string, open: number, numbers: number[]): number {
  // Most brackets in text start no marker: decided before touching the list.
  if (!isDigit(text.charCodeAt(open + 1))) return -1
  numbers.length = 0
  let i = open + 1
  for (;;) {
    const start = i
    let n = 0
    for (; i < text.length && i - start < 5; i++) {
      const c = text.charCodeAt(i)
      if (!isDigit(c)) break
      n = n * 10 + c - 48
    }
    if (i === start || i - start > 4) return -1 // no number, or one of 5 digits or more
    numbers.push(n)
    if (text.charCodeAt(i) === CLOSE) return i + 1
    while (isSpaceAt(text, i)) i++
    if (text.charCodeAt(i) !== COMMA) return -1
    i++
    while (isSpaceAt(text, i)) i++
  }
}

/**
 * The number of the one-number marker `[n]` that starts at `open`, or -1: the marker nearly every
 * citation is, read without a list (a third of the time of `markerAt`).
 */
function singleAt(text: string, open: number): number {
  let n = 0
  let i = open + 1
  for (; i < text.length && i - open <= 4; i++) {
    const c = text.charCodeAt(i)
    if (!isDigit(c)) break
    n = n * 10 + c - 48
  }
  return i > open + 1 && text.charCodeAt(i) === CLOSE ? n : -1
}

const [CLOSE, COMMA] = [']'.charCodeAt(0), ','.charCodeAt(0)]
const isDigit = (c: number) => c >= 48 && c <= 57
/** `\s` at `text[i]` (false past the end), the ASCII ones without a regular expression. */
const isSpaceAt = (text: string, i: number) => {
  const code = text.charCodeAt(i)
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(text[i]!))
}

/** Every number cited in `text`, in order of appearance. */
export function citationNumbers(text: string): number[] {
  const all: number[] = []
  const numbers: number[] = []
  for (let open = text.indexOf('['); open !== -1; ) {
    const single = singleAt(text, open)
    if (single !== -1) {
      all.push(single)
      open = text.indexOf('[', open + 2)
      continue
    }
    const close = markerAt(text, open, numbers)
    if (close === -1) {
      open = text.indexOf('[', open + 1)
      continue
    }
    for (const n of numbers) all.push(n)
    open = text.indexOf('[', close)
  }
  return all
}

/**
 * Rewrites citation markers: `map(n)` gives the new number, or undefined to drop it (an
 * invented index); it is called once per distinct number. `[1, 3]` becomes `[a][b]`; a marker
 * whose numbers are all dropped disappears together with the space before it.
 */
export function rewriteCitations(text: string, map: (n: number) => number | undefined): string {
  // A marker of one number, as written back, by number (below 10,000: at most 4 digits).
  const single: Array<string | undefined> = []
  const mapped = new Map<number, number | undefined>()
  const mapOnce = (n: number) => {
    if (!mapped.has(n)) mapped.set(n, map(n))
    return mapped.get(n)
  }
  return replaceCitations(text, (numbers) => {
    if (numbers.length === 1) {
      const k = numbers[0]!
      let marks = single[k]
      if (marks === undefined) {
        const n = mapOnce(k)
        marks = n === undefined ? '' : `[${n}]`
        single[k] = marks
      }
      return marks
    }
    let marks = ''
    for (const n of new Set(numbers.map(mapOnce))) if (n !== undefined) marks += `[${n}]`
    return marks
  })
}

/**
 * Replaces each citation marker with `replace(numbers)` (`numbers` valid only during the call);
 * a marker replaced by nothing disappears together with the space before it.
 */
export function replaceCitations(text: string, replace: (numbers: readonly number[]) => string): string {
  const out: string[] = []
  const numbers: number[] = []
  let copied = 0
  for (let open = text.indexOf('['); open !== -1; ) {
    const single = singleAt(text, open)
    let close: number
    if (single !== -1) {
      numbers.length = 1
      numbers[0] = single
      close = text.indexOf(']', open) + 1
    } else close = markerAt(text, open, numbers)
    if (close === -1) {
      open = text.indexOf('[', open + 1)
      continue
    }
    const marks = replace(numbers)
    // The one whitespace character before a marker goes with it when the marker goes.
    const to = marks === '' && open > copied && isSpaceAt(text, open - 1) ? open - 1 : open
    if (to > copied) out.push(text.slice(copied, to))
    if (marks !== '') out.push(marks)
    copied = close
    open = text.indexOf('[', close)
  }
  out.push(text.slice(copied))
  return out.join('')
}

/**
 * The streaming form of `rewriteCitations`: holds back a marker split across chunks until it
 * closes, so every output is the same as rewriting the whole text at once.
 */
export function citationFilter(map: (n: number) => number | undefined): TextFilter {
  let held = ''
  return {
    push(chunk) {
      const text = held + chunk
      let cut = PARTIAL_MARKER.exec(text)?.index ?? text.length
      // Hold one whitespace before the cut too: a marker that follows may be dropped with its space.
      if (cut > 0 && /\s/.test(text[cut - 1]!)) cut--
      held = text.slice(cut)
      return rewriteCitations(text.slice(0, cut), map)
    },
    flush() {
      const rest = held
      held = ''
      return rewriteCitations(rest, map)
    },
  }
}
