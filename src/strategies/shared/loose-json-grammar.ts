/**
 * The one grammar of loose JSON, shared by the whole-text reader (`parseLooseJson`) and the
 * incremental one (`createJsonStreamReader`), so both read the same text the same way:
 *
 * - strings: between straight or curly quotes. A straight quote closes only at the same quote
 *   (so JSON reads as JSON); a curly one at any quote of its kind, straight or curly. A double-quoted
 *   string's escapes are JSON's (raw control characters allowed); a single-quoted one keeps its
 *   text but `\'`.
 * - bare words: `[A-Za-z_]` then `[A-Za-z0-9_-]`: an object's key before `:`, or one of the
 *   literals `true false null True False None`.
 * - numbers: JSON numbers.
 * - outside brackets nothing is read: quotes in prose start no string.
 */

export const [BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA, COLON] = [...'\\{}[],:'].map((c) => c.charCodeAt(0)) as [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
]
const [DOUBLE, SINGLE, LEFT_DOUBLE, RIGHT_DOUBLE, LEFT_SINGLE, RIGHT_SINGLE] = [...'"\'“”‘’'].map((c) => c.charCodeAt(0)) as [
  number,
  number,
  number,
  number,
  number,
  number,
]

/** Brackets nested deeper than this are not a model's JSON: counted, but not read. */
export const MAX_NESTING = 64

export const isQuote = (c: number): boolean =>
  c === DOUBLE || c === SINGLE || c === LEFT_DOUBLE || c === RIGHT_DOUBLE || c === LEFT_SINGLE || c === RIGHT_SINGLE
export const isDoubleQuote = (c: number): boolean => c === DOUBLE || c === LEFT_DOUBLE || c === RIGHT_DOUBLE
/**
 * Whether `c` ends a string opened by `open`. A straight quote is closed by itself only, so JSON
 * reads as JSON (a curly quote inside it is text); a curly one by any quote of its kind.
 */
export const closesQuote = (open: number, c: number): boolean =>
  open === DOUBLE || open === SINGLE ? c === open : isDoubleQuote(open) ? isDoubleQuote(c) : isQuote(c) && !isDoubleQuote(c)

export const isWordStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
export const isWordPart = (c: number): boolean => isWordStart(c) || (c >= 48 && c <= 57) || c === 45
export const isNumberStart = (c: number): boolean => (c >= 48 && c <= 57) || c === 45
/** Characters a number token runs over (whether they make a JSON number is checked at its end). */
export const isNumberPart = (c: number): boolean => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 69 || c === 101
export const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/
/** JSON's whitespace: what may sit between tokens. */
export const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9

/** The bare words that are values, and the JSON they stand for. */
export const LITERALS: Readonly<Record<string, 'true' | 'false' | 'null'>> = {
  true: 'true',
  false: 'false',
  null: 'null',
  True: 'true',
  False: 'false',
  None: 'null',
}
export const literalValue = (json: 'true' | 'false' | 'null'): boolean | null => (json === 'null' ? null : json === 'true')

/** A JSON escape, or a backslash starting none (then kept as a character). */
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})?/g
const keepEscape = (sequence: string) => (sequence.length > 1 ? sequence : '\\\\')
// biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is this regex's job
const CONTROL = /[\u0000-\u001f]/g
const escapeControl = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/**
 * A string's JSON text from its opening quote and raw content (between the quotes, escapes as
 * written). A double-quoted string keeps JSON's escapes; a backslash that starts none is a
 * character, and raw control characters are escaped. A single-quoted one is its text but `\'`.
 */
export function stringJson(quote: number, raw: string): string {
  if (!isDoubleQuote(quote)) return JSON.stringify(raw.replace(/\\'/g, "'"))
  return `"${raw.replace(ESCAPE, keepEscape).replace(CONTROL, escapeControl)}"`
}

/** A string's value (see `stringJson`). */
export function stringValue(quote: number, raw: string): string {
  return JSON.parse(stringJson(quote, raw)) as string
}
