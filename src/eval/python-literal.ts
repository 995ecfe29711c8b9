/**
 * Reads a Python literal as `repr()` writes it (SimpleQA's `metadata`, FRAMES' `wiki_links`):
 * dicts, lists, tuples, quoted strings, numbers, True/False/None. Total: anything else is
 * `undefined`, never an exception.
 */

type Value = string | number | boolean | null | Value[] | { [key: string]: Value }

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' }

export function parsePythonLiteral(text: string): unknown {
  let at = 0
  const fail = Symbol('fail')
  const space = () => {
    while (at < text.length && /\s/.test(text[at] as string)) at++
  }
  const value = (depth: number): Value | typeof fail => {
    if (depth > 64) return fail
    space()
    const char = text[at]
    if (char === "'" || char === '"') return string(char)
    if (char === '[' || char === '(') return list(char === '[' ? ']' : ')', depth)
    if (char === '{') return dict(depth)
    const word = /^(True|False|None|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/.exec(text.slice(at, at + 40))?.[0]
    if (!word) return fail
    at += word.length
    return word === 'True' ? true : word === 'False' ? false : word === 'None' ? null : Number(word)
  }
  const string = (quote: string): string | typeof fail => {
    at++
    let out = ''
    while (at < text.length) {
      const char = text[at++] as string
      if (char === quote) return out
      if (char !== '\\') {
        out += char
        continue
      }
      const next = text[at++]
      if (next === undefined) return fail
      const hex = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0
      if (hex) {
        const digits = text.slice(at, at + hex)
        if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== hex) return fail
        const code = Number.parseInt(digits, 16)
        if (code > 0x10ffff) return fail
        out += String.fromCodePoint(code)
        at += hex
      } else out += ESCAPES[next] ?? `\\${next}`
    }
    return fail
  }
  const list = (close: string, depth: number): Value[] | typeof fail => {
    at++
    const items: Value[] = []
    for (;;) {
      space()
      if (text[at] === close) {
        at++
        return items
      }
      const item = value(depth + 1)
      if (item === fail) return fail
      items.push(item)
      space()
      if (text[at] === ',') at++
      else if (text[at] !== close) return fail
    }
  }
  const dict = (depth: number): { [key: string]: Value } | typeof fail => {
    at++
    const out: { [key: string]: Value } = {}
    for (;;) {
      space()
      if (text[at] === '}') {
        at++
        return out
      }
      const key = value(depth + 1)
      if (key === fail || (typeof key !== 'string' && typeof key !== 'number')) return fail
      space()
      if (text[at++] !== ':') return fail
      const item = value(depth + 1)
      if (item === fail) return fail
      Object.defineProperty(out, String(key), { value: item, enumerable: true, writable: true, configurable: true })
      space()
      if (text[at] === ',') at++
      else if (text[at] !== '}') return fail
    }
  }
  const result = value(0)
  space()
  return result === fail || at !== text.length ? undefined : result
}
