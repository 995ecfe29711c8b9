/**
 * Reads JSON while a model is still writing it: `push` each piece of text as it streams, and get
 * back every value that closed in it (a string whose closing quote arrived, an array or object
 * whose bracket closed), with where it sits. A planner's queries can then be acted on one by one,
 * long before its reply ends.
 *
 * It reads the loose forms `parseLooseJson` accepts (single and curly quotes, bare keys, Python
 * literals, trailing commas), ignores text outside brackets (prose, code fences; quotes there
 * start no string, as in `parseLooseJson`) and reads every top-level value it meets. Its values
 * are early sightings: the strategy's parse of the whole reply stays the reference.
 *
 * Total and linear: every character is looked at once, whatever the pieces' boundaries, so the
 * values seen are the same however the text was split; nothing throws.
 */

/** Keys and array indexes from the top-level value down to a value. */
export type JsonPath = readonly (string | number)[]

export interface ClosedValue {
  path: JsonPath
  value: unknown
}

export interface JsonStreamReader {
  /** Reads the next piece of the text; returns the values that closed in it, innermost first. */
  push(text: string): ClosedValue[]
}

type Container =
  | { kind: 'object'; value: Record<string, unknown>; key: string | undefined; path: JsonPath }
  | { kind: 'array'; value: unknown[]; path: JsonPath }

/** A token that may continue in the next piece: a string, or a bare word or number. */
type Token = { kind: 'string'; quote: number; text: string; escaped: boolean } | { kind: 'word'; text: string }

/** Values nested deeper than this are still read, but not reported (a planner's items are shallow). */
const REPORT_DEPTH = 4
/** Deeper than this is not a model's JSON (as in `parseLooseJson`): brackets are counted, values not built. */
const MAX_NESTING = 64
/** A bare word or number longer than this is junk: it is dropped, so no token grows without bound. */
const MAX_WORD = 64

export function createJsonStreamReader(): JsonStreamReader {
  const stack: Container[] = []
  let token: Token | undefined
  /** Brackets open beyond MAX_NESTING: matched, so the structure around them holds, but not read. */
  let skipped = 0
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
      if (top.key === undefined) return // a value where a key belongs: junk
      // As JSON.parse does: an own property, whatever its name (`__proto__` included).
      Object.defineProperty(top.value, top.key, { value, enumerable: true, writable: true, configurable: true })
      top.key = undefined
    }
    if (path && path.length <= REPORT_DEPTH) out.push({ path, value })
  }

  /** A string or word ended: an object's key, or a value. */
  const finish = (done: Token): void => {
    if (skipped > 0) return
    const top = stack[stack.length - 1]
    if (done.kind === 'string') {
      const text = decode(done)
      if (top?.kind === 'object' && top.key === undefined) top.key = text
      else place(text)
      return
    }
    if (top?.kind === 'object' && top.key === undefined) {
      top.key = done.text // a bare key
      return
    }
    if (done.text in LITERALS) place(LITERALS[done.text])
    else if (NUMBER.test(done.text)) place(Number(done.text))
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
        finish(done)
      } else token.text += ch
      return
    }
    if (token?.kind === 'word') {
      if (isWordPart(c)) {
        if (token.text.length < MAX_WORD) token.text += ch
        return
      }
      const done = token
      token = undefined
      finish(done)
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) open(c === OPEN_BRACE ? 'object' : 'array')
    else if (stack.length === 0 && skipped === 0) return
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) close()
    else if (isQuote(c)) token = { kind: 'string', quote: c, text: '', escaped: false }
    else if (isWordPart(c)) token = { kind: 'word', text: ch }
    // `:`, `,`, whitespace and anything else: the structure already says where a value goes.
  }

  return {
    push(text) {
      out = []
      if (typeof text !== 'string') return out
      for (let i = 0; i < text.length; i++) step(text.charCodeAt(i), text[i]!)
      return out
    },
  }
}

const [BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, DOUBLE, SINGLE, LEFT_DOUBLE, RIGHT_DOUBLE, LEFT_SINGLE, RIGHT_SINGLE] = [
  ...'\\{}[]"\'“”‘’',
].map((c) => c.charCodeAt(0)) as [number, number, number, number, number, number, number, number, number, number, number]

const isQuote = (c: number) => c === DOUBLE || c === SINGLE || c === LEFT_DOUBLE || c === RIGHT_DOUBLE || c === LEFT_SINGLE || c === RIGHT_SINGLE
/** Curly quotes count as their straight forms, as `parseLooseJson` reads them. */
const isDouble = (c: number) => c === DOUBLE || c === LEFT_DOUBLE || c === RIGHT_DOUBLE
const closesQuote = (open: number, c: number) => (isDouble(open) ? isDouble(c) : !isDouble(c) && isQuote(c))
/** Letters, digits, `_`, `-`, `.`, `+`: bare keys, literals and numbers. */
const isWordPart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46 || c === 43

const LITERALS: Readonly<Record<string, unknown>> = { true: true, false: false, null: null, True: true, False: false, None: null }
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/** A double-quoted string's JSON escapes are read as JSON; a single-quoted one keeps its text but `\'`. */
function decode(token: Extract<Token, { kind: 'string' }>): string {
  if (!isDouble(token.quote)) return token.text.replace(/\\'/g, "'")
  try {
    return JSON.parse(`"${token.text}"`) as string
  } catch {
    return token.text.replace(/\\(["\\/])/g, '$1')
  }
}
