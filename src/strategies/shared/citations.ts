import { normalizeUrl, type Citation, type TextFilter } from '../../core/index.js'

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
 * Calls `found(open, close, numbers)` for each citation marker in `text`: `[n]` or `[n, m, …]`,
 * numbers of 1 to 4 digits, spaces allowed around the commas only; `open` is the index of `[`,
 * `close` the index just past `]`, `numbers` valid only during the call. One pass with no callback per character: a reply that is
 * nothing but markers (a hostile model's) costs a few milliseconds per megabyte.
 */
function scanMarkers(text: string, found: (open: number, close: number, numbers: number[]) => void): void {
  // One list for every marker (`found` reads it before the next): no allocation per marker.
  const numbers: number[] = []
  for (let open = text.indexOf('['); open !== -1; ) {
    numbers.length = 0
    let i = open + 1
    let close = -1
    for (;;) {
      const start = i
      let n = 0
      while (i < text.length && i - start < 5 && isDigit(text.charCodeAt(i))) n = n * 10 + text.charCodeAt(i++) - 48
      if (i === start || i - start > 4) break // no number, or one of 5 digits or more
      numbers.push(n)
      if (text.charCodeAt(i) === CLOSE) {
        close = i + 1
        break
      }
      while (isSpace(text[i])) i++
      if (text.charCodeAt(i) !== COMMA) break
      i++
      while (isSpace(text[i])) i++
    }
    if (close === -1) {
      open = text.indexOf('[', open + 1)
      continue
    }
    found(open, close, numbers)
    open = text.indexOf('[', close)
  }
}

const [CLOSE, COMMA] = [']'.charCodeAt(0), ','.charCodeAt(0)]
const isDigit = (c: number) => c >= 48 && c <= 57
/** `\s`, the ASCII ones without a regular expression. */
const isSpace = (c: string | undefined) => {
  if (c === undefined) return false
  const code = c.charCodeAt(0)
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(c))
}

/** Every number cited in `text`, in order of appearance. */
export function citationNumbers(text: string): number[] {
  const all: number[] = []
  scanMarkers(text, (_open, _close, numbers) => {
    for (const n of numbers) all.push(n)
  })
  return all
}

/**
 * Rewrites citation markers: `map(n)` gives the new number, or undefined to drop it (an
 * invented index). `[1, 3]` becomes `[a][b]`; a marker whose numbers are all dropped disappears
 * together with the space before it.
 */
export function rewriteCitations(text: string, map: (n: number) => number | undefined): string {
  return replaceCitations(text, (numbers) => {
    if (numbers.length === 1) {
      const n = map(numbers[0]!)
      return n === undefined ? '' : `[${n}]`
    }
    let marks = ''
    for (const n of new Set(numbers.map(map))) if (n !== undefined) marks += `[${n}]`
    return marks
  })
}

/**
 * Replaces each citation marker with `replace(numbers)` (`numbers` valid only during the call);
 * a marker replaced by nothing disappears together with the space before it.
 */
export function replaceCitations(text: string, replace: (numbers: readonly number[]) => string): string {
  const out: string[] = []
  let copied = 0
  scanMarkers(text, (open, close, numbers) => {
    // The one whitespace character before a marker goes with it when the marker goes.
    const from = open > copied && isSpace(text[open - 1]) ? open - 1 : open
    const marks = replace(numbers)
    out.push(text.slice(copied, marks ? open : from), marks)
    copied = close
  })
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
