import { stripThink } from '../../core/index.js'

/**
 * Reads JSON out of whatever a small model wrote: code fences, prose around it ("Step 1 …"),
 * think blocks, trailing commas, single quotes, unquoted keys, Python literals, or output cut
 * off before its closing brackets. Total: returns `undefined` when nothing parses, never throws.
 */
export function parseLooseJson(text: unknown, expect: 'object' | 'array' | 'any' = 'any'): unknown {
  if (typeof text !== 'string') return undefined
  const source = stripThink(text)
  let best: { value: unknown; length: number } | undefined
  let starts = 0
  for (let i = 0; i < source.length && starts < 200; i++) {
    const c = source[i]
    if (c !== '{' && c !== '[') continue
    starts++
    const candidate = balancedFrom(source, i)
    const value = parseRepaired(candidate)
    if (value === undefined || !matches(value, expect)) continue
    if (!best || candidate.length > best.length) best = { value, length: candidate.length }
    // A complete candidate contains every later start inside it; skip past it.
    i += candidate.length - 1
  }
  return best?.value
}

function matches(value: unknown, expect: 'object' | 'array' | 'any'): boolean {
  if (value === null || typeof value !== 'object') return false
  if (expect === 'array') return Array.isArray(value)
  if (expect === 'object') return !Array.isArray(value)
  return true
}

/** The text from `start` to its matching close, or to the end with the missing closers added. */
function balancedFrom(text: string, start: number): string {
  const closers: string[] = []
  let quote: string | undefined
  for (let i = start; i < text.length; i++) {
    const c = text[i]!
    if (quote) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
      continue
    }
    if (c === '"' || c === "'") quote = c
    else if (c === '{') closers.push('}')
    else if (c === '[') closers.push(']')
    else if (c === '}' || c === ']') {
      closers.pop()
      if (closers.length === 0) return text.slice(start, i + 1)
    }
  }
  // Cut off mid-output (token limit): drop a dangling partial element and close what is open.
  const body = text
    .slice(start)
    .replace(/,\s*("[^"]*)?$/, '')
    .replace(/:\s*$/, ': null')
  return (quote ? `${body}${quote}` : body) + closers.reverse().join('')
}

function parseRepaired(candidate: string): unknown {
  for (const attempt of [candidate, repair(candidate)]) {
    try {
      return JSON.parse(attempt)
    } catch {
      // try the next form
    }
  }
  return undefined
}

const LITERALS: Readonly<Record<string, string>> = { True: 'true', False: 'false', None: 'null' }

/** One pass outside strings: quotes normalised, trailing commas dropped, bare keys quoted. */
function repair(text: string): string {
  const normalized = text.replace(/[“”]/g, '"').replace(/[‘’]/g, "'")
  let out = ''
  for (let i = 0; i < normalized.length; i++) {
    const c = normalized[i]!
    if (c === '"' || c === "'") {
      let j = i + 1
      let content = ''
      for (; j < normalized.length && normalized[j] !== c; j++) {
        if (normalized[j] === '\\' && j + 1 < normalized.length) {
          content += normalized[j]! + normalized[j + 1]!
          j++
        } else content += normalized[j]!
      }
      out += c === '"' ? `"${content}"` : JSON.stringify(content.replace(/\\'/g, "'"))
      i = j
      continue
    }
    if (c === ',') {
      const rest = normalized.slice(i + 1).match(/^\s*[}\]]/)
      if (rest) continue
    }
    const word = /^[A-Za-z_][\w-]*/.exec(normalized.slice(i))
    if (word) {
      const after = normalized.slice(i + word[0].length)
      if (/^\s*:/.test(after) && /[{,]\s*$/.test(out)) out += JSON.stringify(word[0])
      else out += LITERALS[word[0]] ?? word[0]
      i += word[0].length - 1
      continue
    }
    out += c
  }
  return out
}

/**
 * Items of a bare list ("- a", "1. b", "* c", "• d") when a model wrote one instead of JSON.
 * Total; returns [] when there is no list.
 */
export function parseBareList(text: unknown): string[] {
  if (typeof text !== 'string') return []
  return stripThink(text)
    .split(/\r?\n/)
    .map((line) => /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/.exec(line)?.[1]?.trim())
    .map((item) => item?.replace(/^["'`]+|["'`,]+$/g, '').trim())
    .filter((item): item is string => Boolean(item))
}

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
