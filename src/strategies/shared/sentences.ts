/**
 * Sentences of prose as it streams: an answer's (each one a claim to check) and a source's (the
 * evidence it is checked against). A sentence ends at a line break, or at `.`, `!`, `?` or `…`
 * (with any closing quotes or brackets and citation markers after it) followed by whitespace and
 * the next sentence's first character; a period after a known abbreviation or a lone capital
 * ("e.g.", "Dr.", "J. Smith") ends none. Linear: one pass over text not yet split.
 */

/** A sentence's span in the text it was split from: `text.slice(start, end)`, trimmed. */
export interface SentenceSpan {
  start: number
  end: number
}

/**
 * An end of sentence: terminators, closers, then citation markers (`[1]`, `[1, 2]`), when what
 * follows is whitespace and a character that starts no marker; or a line break.
 */
const BOUNDARY = /(?<![.!?…])[.!?…]+["'”’)\]]*(?:[ \t]*\[\d{1,4}(?:\s*,\s*\d{1,4})*\])*(?=\s*\n|\s+[^\s[])|\n/g

/**
 * The end of a text that may still become a sentence end once more text comes: a terminator run
 * followed only by closers, citation-marker characters and whitespace.
 */
const OPEN_END = /[.!?…]+["'”’)\]\s\d,[]*$/
/**
 * The longest open end looked for: end marks, closers and citation markers (some 60 of them).
 * Streamed and whole text split alike unless a sentence ends in a longer run of those.
 */
export const OPEN_TAIL = 256

/** Words a period follows without ending the sentence. */
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'cf',
  'al',
  'dr',
  'mr',
  'mrs',
  'ms',
  'prof',
  'st',
  'jr',
  'sr',
  'inc',
  'ltd',
  'co',
  'corp',
  'fig',
  'figs',
  'no',
  'nos',
  'vol',
  'pp',
  'p',
  'ch',
  'sec',
  'eq',
  'approx',
  'u.s',
  'u.k',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
])

/** True when the period at `at` follows an abbreviation or an initial. */
function afterAbbreviation(text: string, at: number): boolean {
  let from = at
  while (from > 0 && /[\p{L}.]/u.test(text[from - 1] as string)) from--
  const word = text.slice(from, at)
  if (/^\p{Lu}$/u.test(word)) return true
  return ABBREVIATIONS.has(word.toLowerCase())
}

/**
 * The ends of the sentences of `text` that are certainly complete (what follows them has begun),
 * and where the text not yet known to be complete starts. `final`: the text is whole, so its
 * last sentence ends where it ends. `from`: where to look for sentence ends (the text before it
 * holds none that could still complete).
 */
export function sentenceSpans(text: string, final: boolean, from = 0): { spans: SentenceSpan[]; rest: number } {
  const spans: SentenceSpan[] = []
  let start = 0
  const close = (end: number) => {
    const span = trimmed(text, start, end)
    if (span) spans.push(span)
  }
  BOUNDARY.lastIndex = from
  for (let match = BOUNDARY.exec(text); match; match = BOUNDARY.exec(text)) {
    if (match[0] === '\n') {
      close(match.index)
      start = match.index + 1
      continue
    }
    if (match[0].startsWith('.') && !match[0].startsWith('..') && afterAbbreviation(text, match.index)) continue
    const end = match.index + match[0].length
    close(end)
    start = end
  }
  if (final) {
    close(text.length)
    start = text.length
  }
  return { spans, rest: start }
}

/** The span `[start, end)` without the whitespace around it, or undefined when blank. */
function trimmed(text: string, start: number, end: number): SentenceSpan | undefined {
  while (start < end && /\s/.test(text[start] as string)) start++
  while (end > start && /\s/.test(text[end - 1] as string)) end--
  return end > start ? { start, end } : undefined
}

/** The sentences of a whole text. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text, true).spans.map(({ start, end }) => text.slice(start, end))
}

/** Splits text that arrives piece by piece: each sentence once, as soon as it is complete. */
export interface SentenceStream {
  /** Adds a piece; returns the sentences it completed. */
  push(piece: string): string[]
  /** The text is over: returns its last sentence, if any. */
  flush(): string[]
}

/**
 * Text without a sentence end past this many characters is cut into a sentence there: no claim
 * is that long, and the splitter never rescans more than this of a hostile reply that never ends one.
 */
const LONGEST_SENTENCE = 4000

export function sentenceStream(): SentenceStream {
  let pending = ''
  /** Where in `pending` a sentence end may still be found: each piece is scanned once, not all that is pending. */
  let scanFrom = 0
  const take = (final: boolean): string[] => {
    const { spans, rest } = sentenceSpans(pending, final || pending.length > LONGEST_SENTENCE, scanFrom)
    const sentences = spans.map(({ start, end }) => pending.slice(start, end))
    pending = pending.slice(rest)
    // Only the last characters can still begin a sentence end: a longer run of end marks and
    // markers (a hostile reply's) is no sentence end, and is never scanned again.
    const tail = Math.max(0, pending.length - OPEN_TAIL)
    const open = OPEN_END.exec(pending.slice(tail))
    scanFrom = open ? tail + open.index : pending.length
    return sentences
  }
  return {
    push(piece) {
      pending += piece
      return take(false)
    },
    flush: () => take(true),
  }
}
