/**
 * Reads JSON while a model is still writing it: `push` each piece of text as it streams, and get
 * back every value that closed in it (a string whose closing quote arrived, an array or object
 * whose bracket closed), with where it sits. A planner's queries can then be acted on one by one,
 * long before its reply ends.
 *
 * It reads the grammar `parseLooseJson` reads (`loose-json-grammar.ts`: single and curly quotes,
 * bare keys, Python literals, trailing commas; text outside brackets is prose), and reads every
 * top-level value it meets. Where `parseLooseJson` reads a value out of a whole text, this reader
 * reports the same value for the same brackets (a property test holds them to it); it is more
 * lenient besides (a missing comma, a stray word inside brackets), because its values are early
 * sightings: the strategy's parse of the whole reply stays the reference.
 *
 * Total and linear: every character is looked at once, whatever the pieces' boundaries, so the
 * values seen are the same however the text was split; nothing throws.
 */
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
  literalValue,
  MAX_NESTING,
  NUMBER,
  OPEN_BRACE,
  OPEN_BRACKET,
  stringValue,
} from './loose-json-grammar.js'

/** Keys and array indexes from the top-level value down to a value. */
export type JsonPath = readonly (string | number)[]

export interface ClosedValue {
  path: JsonPath
  value: unknown
  /**
   * A value that sits where a key belongs (`{["a"]}`): not part of the object, reported at the
   * object's path so that every bracketed value `parseLooseJson` may read is reported.
   */
  stray?: true
}

export interface JsonStreamReader {
  /** Reads the next piece of the text; returns the values that closed in it, innermost first. */
  push(text: string): ClosedValue[]
  /**
   * The text ended: closes what is still open as `parseLooseJson` completes a cut-off reply (a
   * dangling element after a comma dropped, a dangling key given `null`, a cut string closed),
   * and returns the values that closed.
   */
  end(): ClosedValue[]
}

export interface JsonStreamReaderOptions {
  /** Values nested deeper than this are still read, but not reported (a planner's items are shallow). @defaultValue 4 */
  reportDepth?: number | undefined
}

type Container =
  | { kind: 'object'; value: Record<string, unknown>; key: string | undefined; path: JsonPath }
  | { kind: 'array'; value: unknown[]; path: JsonPath }

/** A token that may continue in the next piece: a string, a bare word, or a number. */
type Token =
  | { kind: 'string'; quote: number; text: string; escaped: boolean; afterComma: boolean }
  | { kind: 'word'; text: string }
  | { kind: 'number'; text: string }

/** A bare word or number longer than this is junk: it is dropped, so no token grows without bound. */
const MAX_WORD = 64

export function createJsonStreamReader(options: JsonStreamReaderOptions = {}): JsonStreamReader {
  const reportDepth = options.reportDepth ?? 4
  const stack: Container[] = []
  let token: Token | undefined
  /** Brackets open beyond MAX_NESTING: matched, so the structure around them holds, but not read. */
  let skipped = 0
  /** The last character outside strings that is not whitespace (a comma before a cut string drops it). */
  let lastSignificant = -1
  let out: ClosedValue[] = []

  const pathOfNext = (): JsonPath | undefined => {
    const top = stack[stack.length - 1]
    if (!top) return []
    if (top.kind === 'array') return [...top.path, top.value.length]
    return top.key === undefined ? undefined : [...top.path, top.key]
  }

  /** A finished value goes into its container (or is a top-level value) and is reported. */
  const place = (value: unknown): void => {
    const top = stack[stack.length - 1]
    const path = pathOfNext()
    if (top?.kind === 'array') top.value.push(value)
    else if (top?.kind === 'object') {
      if (top.key === undefined) {
        if (value !== null && typeof value === 'object' && top.path.length <= reportDepth) out.push({ path: top.path, value, stray: true })
        return
      }
      // As JSON.parse does: an own property, whatever its name (`__proto__` included).
      Object.defineProperty(top.value, top.key, { value, enumerable: true, writable: true, configurable: true })
      top.key = undefined
    }
    if (path && path.length <= reportDepth) out.push({ path, value })
  }

  /** A string, word or number ended: an object's key, or a value. */
  const finish = (done: Token): void => {
    if (skipped > 0) return
    const top = stack[stack.length - 1]
    const awaitingKey = top?.kind === 'object' && top.key === undefined
    if (done.kind === 'string') {
      const text = stringValue(done.quote, done.text)
      if (awaitingKey) top.key = text
      else place(text)
    } else if (done.text.length > MAX_WORD) {
      // junk: dropped
    } else if (done.kind === 'word') {
      if (awaitingKey)
        top.key = done.text // a bare key
      else if (done.text in LITERALS) place(literalValue(LITERALS[done.text]!))
    } else if (!awaitingKey && NUMBER.test(done.text)) place(Number(done.text))
  }

  const open = (kind: 'object' | 'array'): void => {
    if (stack.length >= MAX_NESTING || skipped > 0) {
      skipped++
      return
    }
    const path = pathOfNext() ?? []
    stack.push(kind === 'object' ? { kind, value: {}, key: undefined, path } : { kind, value: [], path })
  }

  const close = (): void => {
    if (skipped > 0) {
      skipped--
      return
    }
    const done = stack.pop()!
    // Outside every bracket there is no key to drop: report the top-level value too.
    if (stack.length === 0) {
      out.push({ path: [], value: done.value })
      return
    }
    place(done.value)
  }

  const step = (c: number, ch: string): void => {
    if (token?.kind === 'string') {
      if (token.escaped) {
        token.escaped = false
        token.text += ch
      } else if (c === BACKSLASH) {
        token.escaped = true
        token.text += ch
      } else if (closesQuote(token.quote, c)) {
        const done = token
        token = undefined
        lastSignificant = c
        finish(done)
      } else token.text += ch
      return
    }
    if (token !== undefined) {
      if (token.kind === 'word' ? isWordPart(c) : isNumberPart(c)) {
        if (token.text.length <= MAX_WORD) token.text += ch
        return
      }
      const done = token
      token = undefined
      finish(done)
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) open(c === OPEN_BRACE ? 'object' : 'array')
    else if (stack.length === 0 && skipped === 0) return
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) close()
    else if (isQuote(c)) token = { kind: 'string', quote: c, text: '', escaped: false, afterComma: lastSignificant === COMMA }
    else if (isWordStart(c)) token = { kind: 'word', text: ch }
    else if (isNumberStart(c)) token = { kind: 'number', text: ch }
    // `:`, `,`, whitespace and anything else: the structure already says where a value goes.
    if (!isSpace(c)) lastSignificant = c
  }

  return {
    push(text) {
      out = []
      if (typeof text !== 'string') return out
      for (let i = 0; i < text.length; i++) step(text.charCodeAt(i), text[i]!)
      return out
    },
    end() {
      out = []
      if (stack.length === 0) return out
      if (token?.kind === 'string') {
        // A string cut after a comma is a dangling element; one cut after a backslash loses it.
        if (!token.afterComma) finish({ ...token, text: token.escaped ? token.text.slice(0, -1) : token.text })
      } else if (token !== undefined) finish(token)
      token = undefined
      const top = stack[stack.length - 1]
      if (top?.kind === 'object' && top.key !== undefined && lastSignificant === COLON && skipped === 0) place(null)
      while (stack.length > 0 || skipped > 0) close()
      return out
    },
  }
}
