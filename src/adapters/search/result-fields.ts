/**
 * Total readers for JSON search responses: whatever shape arrives, they return
 * well-formed `SearchResult`s and skip entries without an http(s) URL.
 */
import type { SearchResult } from '../../core/contracts/providers.js'

export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

const text = (value: unknown): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '')

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** Remove highlight markup (`<strong>`, `<b>`) and decode the entities APIs leave in snippets. */
export function stripMarkup(value: string): string {
  return value.replace(/<\/?[a-z][^<>]*>/gi, '').replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()] ?? entity
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity
  })
}

export function isWebUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

/** One result from an API entry, given the names of its fields; `undefined` when it has no usable URL. */
export function toResult(entry: unknown, keys: { title: string; url: string; snippet: string; score?: string }, markup = false): SearchResult | undefined {
  const url = text(field(entry, keys.url))
  if (!isWebUrl(url)) return undefined
  const clean = (value: unknown) => (markup ? text(stripMarkup(text(value))) : text(value))
  const result: SearchResult = { title: clean(field(entry, keys.title)) || url, url, snippet: clean(field(entry, keys.snippet)) }
  const score = keys.score === undefined ? undefined : field(entry, keys.score)
  if (typeof score === 'number' && Number.isFinite(score)) result.score = score
  return result
}

export function toResults(entries: unknown, keys: Parameters<typeof toResult>[1], markup = false): SearchResult[] {
  return list(entries).flatMap((entry) => toResult(entry, keys, markup) ?? [])
}

/** `limit` as the API's result count: an integer clamped to what the API accepts. */
export function clampCount(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback
  return Math.min(max, Math.max(1, Math.floor(limit)))
}

/** An API key from the options or, where there is one, the environment. */
export function keyFrom(explicit: string | undefined, variable: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  return explicit ?? env?.[variable]
}
