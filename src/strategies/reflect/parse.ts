import { looseJsonReader, parseBareList, parseLooseJson, stringArrayField } from '../shared/json.js'
import { cleanQuery, distinctQueries, readBoolean } from '../shared/read.js'

/** A piece of information the answer needs, and the evidence that fills it (if any was found). */
export interface Slot {
  name: string
  evidence?: string
}

export interface Reflection {
  slots: Slot[]
  needMore: boolean
  newQueries: string[]
}

const MAX_QUERY_CHARS = 200
/** Values a model writes for "not found". */
const EMPTY_VALUE = /^(null|none|n\/?a|unknown|not found|missing|tbd|\?+|-+|…|\.\.\.)$/i

/** Clean queries without repeats (the shared reader), at most `limit`. */
export function cleanQueries(queries: readonly unknown[], limit: number): string[] {
  return distinctQueries(queries, limit, MAX_QUERY_CHARS)
}

/** One query as `cleanQueries` keeps it; undefined when it drops it. */
export function cleanOneQuery(query: string): string | undefined {
  return cleanQuery(query, MAX_QUERY_CHARS)
}

/** The object keys `parseQueries` reads a list of queries from. */
export const QUERY_LIST_KEYS = ['queries', 'search_queries', 'searchQueries']
/** The object keys `parseReflection` reads its new queries from. */
export const NEW_QUERY_KEYS = ['new_queries', 'newQueries', 'queries']

/**
 * The search queries in a reply: a JSON array (of strings or `{query}` objects), an object
 * with a `queries` field, or a bare list. Total; [] when there are none.
 */
export function parseQueries(reply: unknown, limit = 5): string[] {
  const json = looseJsonReader(reply)
  const array = json('array')
  if (Array.isArray(array)) {
    const items = array.map((item: unknown) =>
      typeof item === 'string'
        ? item
        : item && typeof item === 'object' && typeof (item as { query?: unknown }).query === 'string'
          ? (item as { query: string }).query
          : '',
    )
    const queries = cleanQueries(items, limit)
    if (queries.length) return queries
  }
  const object = json('object')
  const fromObject = cleanQueries(stringArrayField(object, ...QUERY_LIST_KEYS), limit)
  if (fromObject.length) return fromObject
  return cleanQueries(parseBareList(reply), limit)
}

function evidenceOf(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value)
  if (typeof value !== 'string') return undefined
  const text = value.trim()
  return text && !EMPTY_VALUE.test(text) ? text : undefined
}

function slot(name: unknown, evidence: unknown): Slot | undefined {
  if (typeof name !== 'string' || !name.trim()) return undefined
  const filled = evidenceOf(evidence)
  return { name: name.trim(), ...(filled !== undefined ? { evidence: filled } : {}) }
}

/**
 * Slots in any of the shapes models write: `{"winner": "Argentina [1]", "score": null}`,
 * `["winner", "score"]` with `"filled": ["winner"]` (or a `filled` object), or
 * `[{"name": "winner", "evidence": "…"}]`.
 */
function readSlots(record: Record<string, unknown>): Slot[] {
  const raw = record.slots
  const filled = record.filled
  const filledNames = new Set(Array.isArray(filled) ? filled.filter((x): x is string => typeof x === 'string').map((x) => x.trim()) : [])
  const filledValues = filled && typeof filled === 'object' && !Array.isArray(filled) ? (filled as Record<string, unknown>) : {}
  const slots: (Slot | undefined)[] = []
  if (Array.isArray(raw)) {
    for (const item of raw) {
      if (typeof item === 'string') {
        const fromFilled = filledValues[item] ?? (filledNames.has(item.trim()) ? 'found' : undefined)
        slots.push(slot(item, fromFilled))
      } else if (item && typeof item === 'object') {
        const o = item as Record<string, unknown>
        const value = o.evidence ?? o.value ?? o.answer
        slots.push(slot(o.name ?? o.slot, value ?? (o.filled === true ? 'found' : undefined)))
      }
    }
  } else if (raw && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw)) slots.push(slot(name, value))
  }
  const byName = new Map<string, Slot>()
  for (const s of slots) if (s && !byName.has(s.name)) byName.set(s.name, s)
  return [...byName.values()]
}

/**
 * The reflection in a reply. `need_more` defaults to "some slot is empty" when the model left it
 * out. Total; undefined when the reply holds none of `slots`, `need_more`, `new_queries`.
 */
export function parseReflection(reply: unknown): Reflection | undefined {
  const value = parseLooseJson(reply, 'object')
  if (!value || typeof value !== 'object') return undefined
  const record = value as Record<string, unknown>
  const slots = readSlots(record)
  const stated = readBoolean(record.need_more ?? record.needMore ?? record.needs_more)
  const newQueries = cleanQueries(stringArrayField(record, ...NEW_QUERY_KEYS), 5)
  if (!slots.length && stated === undefined && !newQueries.length) return undefined
  return { slots, needMore: stated ?? slots.some((s) => s.evidence === undefined), newQueries }
}
