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

const MARKER = /\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g
/** A marker that may still be completed by the next chunk: "[", "[1", "[1, 2". */
const PARTIAL_MARKER = /\[[\d,\s]{0,20}$/

/** Every number cited in `text`, in order of appearance. */
export function citationNumbers(text: string): number[] {
  const numbers: number[] = []
  for (const match of text.matchAll(MARKER)) for (const n of match[1]!.split(',')) numbers.push(Number(n.trim()))
  return numbers
}

/**
 * Rewrites citation markers: `map(n)` gives the new number, or undefined to drop it (an
 * invented index). `[1, 3]` becomes `[a][b]`; a marker whose numbers are all dropped disappears
 * together with the space before it.
 */
export function rewriteCitations(text: string, map: (n: number) => number | undefined): string {
  return text.replace(/(\s?)\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g, (_whole, space: string, list: string) => {
    if (!list.includes(',')) {
      // One number, the common case: no sets or arrays per marker.
      const n = map(Number(list))
      return n === undefined ? '' : `${space}[${n}]`
    }
    const kept = [...new Set(list.split(',').map((n) => map(Number(n.trim()))))].filter((n): n is number => n !== undefined)
    return kept.length ? space + kept.map((n) => `[${n}]`).join('') : ''
  })
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
