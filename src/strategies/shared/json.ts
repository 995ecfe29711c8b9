import { stripThink } from '../../core/util/text.js'
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  closesQuote,
  isNumberPart,
  isNumberStart,
  isQuote,
  isSpace,
  isWordPart,
  isWordStart,
  LITERALS,
  MAX_NESTING,
  OPEN_BRACE,
  OPEN_BRACKET,
  stringJson,
} from './loose-json-grammar.js'
import { MAX_LIST_ITEMS, trimEdges } from './read.js'

/**
 * Reads JSON out of whatever a small model wrote: code fences, prose around it ("Step 1 …"),
 * think blocks, trailing commas, single and curly quotes, unquoted keys, Python literals, raw
 * line breaks in strings, or output cut off before its closing brackets (the grammar is in
 * `loose-json-grammar.ts`, shared with `createJsonStreamReader`). Total: returns `undefined`
 * when nothing parses, never throws.
 *
 * Linear in the input: one pass finds every bracketed candidate, and the candidates tried
 * (longest match wins, in order) are read up to a budget of a few times the input's length,
 * so no input (`[` × 1 MB, `{"a":` × n, an unterminated string) can make it rescan.
 */
export function parseLooseJson(text: unknown, expect: 'object' | 'array' | 'any' = 'any'): unknown {
  return looseJsonReader(text)(expect)
}

/** What `parseLooseJson` looks for: an object, an array, or either. */
export type LooseJsonShape = 'object' | 'array' | 'any'

/**
 * `parseLooseJson` of one text for several shapes (an object, else an array): the text is
 * scanned once, however many times it is read.
 */
export function looseJsonReader(text: unknown): (expect?: LooseJsonShape) => unknown {
  if (typeof text !== 'string') return () => undefined
  const source = stripThink(text)
  const candidates = candidatesOf(source)
  return (expect = 'any') => bestCandidate(source, candidates, expect)
}

function bestCandidate(source: string, { count, starts, ends, heights, unclosed }: Candidates, expect: LooseJsonShape): unknown {
  // A candidate opened by the other bracket parses to the other shape: not worth a parse.
  const skipped = expect === 'object' ? OPEN_BRACKET : expect === 'array' ? OPEN_BRACE : -1
  let budget = CANDIDATE_BUDGET_FACTOR * source.length + 4096
  let best: { value: unknown; length: number } | undefined
  let coveredUntil = -1
  for (let k = 0; k < count; k++) {
    const start = starts[k]!
    const end = ends[k]! - 1
    // Inside one that parsed, too deep to be a model's JSON, or no longer than the best so far.
    if (start < coveredUntil || heights[k]! > MAX_NESTING || (best && end >= 0 && end - start <= best.length)) continue
    if (source.charCodeAt(start) === skipped) continue
    const body = end >= 0 ? source.slice(start, end) : unclosed!.complete(start, k)
    budget -= body.length
    if (budget < 0) break
    const value = parseRepaired(body)
    if (value === undefined || !matches(value, expect)) continue
    if (!best || body.length > best.length) best = { value, length: body.length }
    // A candidate that parsed contains every later start inside it; skip past it.
    coveredUntil = end >= 0 ? end : source.length
  }
  return best?.value
}

/** Characters handed to the parsers at most, as a multiple of the input's length. */
const CANDIDATE_BUDGET_FACTOR = 4
const DOUBLE_QUOTE = 34

interface Candidates {
  count: number
  starts: Int32Array
  ends: Int32Array
  /** How deep brackets nest inside each candidate (0: no brackets inside). */
  heights: Int32Array
  unclosed: { complete(start: number, candidate: number): string } | undefined
}

/**
 * Every `{` or `[` outside a string (`starts`), with the index just past its matching close
 * (`ends`, -1 when it never closes), in one pass. Quotes (straight or curly, as the grammar
 * reads them) count only inside brackets: an apostrophe in the prose around the JSON starts no
 * string. Brackets still open at the end (output cut off at a token limit) are completed by
 * `unclosed.complete`.
 */
function candidatesOf(source: string): Candidates {
  // Typed arrays grown by doubling (a million pushes onto an array cost ten times the scan);
  // `ends` holds the index past the close + 1, so 0 is "never closed" with no fill.
  let size = 64
  let count = 0
  let starts = new Int32Array(size)
  let ends = new Int32Array(size)
  let heights = new Int32Array(size)
  // The candidates of the brackets still open, outermost first.
  let open = new Int32Array(size)
  const grow = () => {
    size *= 2
    starts = larger(starts, size)
    ends = larger(ends, size)
    heights = larger(heights, size)
    open = larger(open, size)
  }
  let depth = 0
  let quote = -1
  let quoteStart = -1
  let i = 0
  for (; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (quote !== -1) {
      if (c === BACKSLASH) i++
      else if (closesQuote(quote, c)) quote = -1
      continue
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (count === size) grow()
      open[depth++] = count
      starts[count++] = i
    } else if (depth === 0) {
    } else if (isQuote(c)) {
      quote = c
      quoteStart = i
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      const closed = open[--depth]!
      ends[closed] = i + 2
      if (depth > 0) raise(heights, closed, open[depth - 1]!)
    }
  }
  // Brackets never closed contain the ones opened after them.
  for (let d = depth - 1; d > 0; d--) raise(heights, open[d]!, open[d - 1]!)
  if (depth === 0) return { count, starts, ends, heights, unclosed: undefined }
  // Cut off right after a backslash in a string: the escape never came, the backslash goes.
  const tail = completion(source, quote !== -1 ? quoteStart : -1, i > source.length)
  return {
    count,
    starts,
    ends,
    heights,
    unclosed: {
      complete(start, candidate) {
        // Its closers, innermost first: one per bracket still open from it on (at most MAX_NESTING + 1).
        let closers = ''
        for (let d = depth - 1; d >= 0 && open[d]! >= candidate; d--) closers += source.charCodeAt(starts[open[d]!]!) === OPEN_BRACE ? '}' : ']'
        return source.slice(start, tail.cut) + tail.append + closers
      },
    },
  }
}

function larger(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(size)
  grown.set(array)
  return grown
}

/** A bracket holding `child` is at least one higher than it. */
function raise(heights: Int32Array, child: number, parent: number): void {
  if (heights[child]! + 1 > heights[parent]!) heights[parent] = heights[child]! + 1
}

/**
 * How to end text cut off mid-output before its closers: drop a dangling element after a comma
 * (a partial string included), give a dangling key a `null`, close a string cut inside a value.
 */
function completion(source: string, openString: number, danglingEscape: boolean): { cut: number; append: string } {
  if (openString >= 0) {
    const before = lastNonSpace(source, openString - 1)
    if (before >= 0 && source.charCodeAt(before) === COMMA) return { cut: before, append: '' }
    return { cut: danglingEscape ? source.length - 1 : source.length, append: source[openString]! }
  }
  const last = lastNonSpace(source, source.length - 1)
  if (last >= 0 && source.charCodeAt(last) === COMMA) return { cut: last, append: '' }
  if (last >= 0 && source.charCodeAt(last) === COLON) return { cut: last + 1, append: ' null' }
  return { cut: source.length, append: '' }
}

function lastNonSpace(text: string, from: number): number {
  let i = from
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--
  return i
}

function matches(value: unknown, expect: LooseJsonShape): boolean {
  if (value === null || typeof value !== 'object') return false
  if (expect === 'array') return Array.isArray(value)
  if (expect === 'object') return !Array.isArray(value)
  return true
}

function parseRepaired(candidate: string): unknown {
  try {
    return JSON.parse(candidate)
  } catch {
    // repaired below (a RangeError from extreme nesting included)
  }
  const repaired = repair(candidate)
  // Nothing to repair: it would fail again.
  if (repaired === candidate) return undefined
  try {
    return JSON.parse(repaired)
  } catch {
    return undefined
  }
}

/** What was last kept outside strings: a bare word after `{` or `,` and before `:` is a key. */
const WORD = -2

/**
 * One linear pass that turns the loose grammar into JSON: strings in JSON quotes with JSON
 * escapes, trailing commas dropped, bare keys quoted, Python literals turned into JSON. Plain
 * runs (a straight-quoted string that needs nothing included) are copied as slices; every
 * look-ahead only crosses whitespace the pass then copies.
 */
function repair(text: string): string {
  const n = text.length
  const out: string[] = []
  let plainFrom = 0
  let lastSignificant = -1
  const replace = (from: number, to: number, piece: string) => {
    if (from > plainFrom) out.push(text.slice(plainFrom, from))
    out.push(piece)
    plainFrom = to
  }
  const skipSpace = (from: number) => {
    let j = from
    while (j < n && isSpace(text.charCodeAt(j))) j++
    return j
  }
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (isQuote(c)) {
      // A straight-quoted string without escapes or control characters is JSON already.
      let plain = c === DOUBLE_QUOTE
      let j = i + 1
      for (; j < n; j++) {
        const d = text.charCodeAt(j)
        if (d === BACKSLASH) {
          plain = false
          j++
        } else if (closesQuote(c, d)) break
        else if (d < 32) plain = false
      }
      const end = Math.min(j, n)
      if (!plain || end === n || text.charCodeAt(end) !== DOUBLE_QUOTE) replace(i, end + 1, stringJson(c, text.slice(i + 1, end)))
      lastSignificant = c
      i = end
      continue
    }
    if (c === COMMA) {
      const next = text.charCodeAt(skipSpace(i + 1))
      if (next === CLOSE_BRACE || next === CLOSE_BRACKET) {
        replace(i, i + 1, '')
        continue
      }
      lastSignificant = c
      continue
    }
    if (isNumberStart(c)) {
      let end = i + 1
      while (end < n && isNumberPart(text.charCodeAt(end))) end++
      lastSignificant = WORD
      i = end - 1
      continue
    }
    if (isWordStart(c)) {
      let end = i + 1
      while (end < n && isWordPart(text.charCodeAt(end))) end++
      const isKey = (lastSignificant === OPEN_BRACE || lastSignificant === COMMA) && text.charCodeAt(skipSpace(end)) === COLON
      if (isKey) replace(i, end, `"${text.slice(i, end)}"`)
      else if (end - i >= 4 && end - i <= 5) {
        // Only a word of four or five letters can be a literal: no slice for the rest.
        const word = text.slice(i, end)
        const literal = LITERALS[word]
        if (literal !== undefined && literal !== word) replace(i, end, literal)
      }
      lastSignificant = WORD
      i = end - 1
      continue
    }
    if (!isSpace(c)) lastSignificant = c
  }
  if (out.length === 0) return text
  if (plainFrom < n) out.push(text.slice(plainFrom))
  return out.join('')
}

/**
 * Items of a bare list ("- a", "1. b", "* c", "• d") when a model wrote one instead of JSON.
 * Total; returns [] when there is no list. At most `MAX_LIST_ITEMS`: a model's list is a few
 * dozen items, and a reply of a million bullets must not cost a million items.
 */
export function parseBareList(text: unknown): string[] {
  if (typeof text !== 'string') return []
  const items: string[] = []
  for (const match of stripThink(text).matchAll(LIST_ITEM)) {
    const item = trimEdges(match[1]!, LIST_ITEM_START, LIST_ITEM_END)
    if (item) items.push(item)
    if (items.length >= MAX_LIST_ITEMS) break
  }
  return items
}

/** One list line: a bullet or a number, then the item (whitespace never crosses a line). */
const LIST_ITEM = /^[ \t]*(?:[-*•]|\d+[.)])[ \t]+([^\r\n]+)/gm
const LIST_ITEM_START = new Set([...' \t"\'`'])
const LIST_ITEM_END = new Set([...' \t"\'`,'])

/** A string field of a parsed object, or undefined. */
export function stringField(value: unknown, ...keys: string[]): string | undefined {
  if (!value || typeof value !== 'object') return undefined
  for (const key of keys) {
    const field = (value as Record<string, unknown>)[key]
    if (typeof field === 'string' && field.trim()) return field.trim()
  }
  return undefined
}

/** The strings of an array field (non-strings dropped), or []. */
export function stringArrayField(value: unknown, ...keys: string[]): string[] {
  if (!value || typeof value !== 'object') return []
  for (const key of keys) {
    const field = (value as Record<string, unknown>)[key]
    if (Array.isArray(field)) return field.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim())
  }
  return []
}
