import { stripThink } from '../../core/util/text.js'
import { normalizeUrl } from '../../core/util/urls.js'
import { looseJsonReader, parseBareList, parseLooseJson, stringArrayField, stringField } from '../shared/json.js'
import { createQueryStream, type QueryStream } from '../shared/query-stream.js'
import { distinctQueries, readBoolean } from '../shared/read.js'

/**
 * Total readers of the graph-reader's model outputs: any string in, a value out, never a
 * throw. Each says whether it could read the reply, so the strategy warns and falls back.
 */

export interface RationalPlan {
  goal: string
  steps: string[]
  keyElements: string[]
  /** The initial nodes: distinct (by normalised text) search queries. */
  queries: string[]
}

/** A fact as the extractor wrote it; `sources` are result numbers or URLs, still untrusted. */
export interface ExtractedFact {
  text: string
  sources: (number | string)[]
}

export interface Extraction {
  facts: ExtractedFact[]
  /** False when nothing in the reply could be read as facts (nor as "no facts"). */
  readable: boolean
}

export interface NodeCheck {
  /** The notebook answers the question: stop exploring. */
  answerable: boolean
  /** New queries that fill the gaps (not yet filtered against visited ones). */
  queries: string[]
  missing?: string
  readable: boolean
}

/** Strings of an array field, also taking `{ query }` / `{ text }` objects models write. */
function itemsField(value: unknown, ...keys: string[]): string[] {
  const strings = stringArrayField(value, ...keys)
  if (strings.length || !value || typeof value !== 'object') return strings
  for (const key of keys) {
    const field = (value as Record<string, unknown>)[key]
    if (Array.isArray(field)) return field.map((item) => stringField(item, 'query', 'text', 'q', 'name')).filter((x): x is string => x !== undefined)
  }
  return []
}

/** Where a plan's queries sit, and how many `parsePlan` keeps. */
const PLAN_QUERY_KEYS = ['queries', 'initial_queries', 'initialQueries', 'search_queries', 'searchQueries', 'nodes']
export const PLAN_QUERIES = 5

/** The plan's queries as they close in its streaming reply (sightings: `parsePlan` of the whole reply decides). */
export function planQueryStream(): QueryStream {
  return createQueryStream({ lists: PLAN_QUERY_KEYS, bareList: true })
}

/**
 * The rational plan. JSON anywhere in the reply (fences, prose before it, think blocks,
 * trailing commas, single quotes); else a bare list is read as the queries. Undefined when
 * no query can be read: the caller searches the question itself.
 */
export function parsePlan(reply: unknown): RationalPlan | undefined {
  const json = parseLooseJson(reply, 'object')
  const queries = distinctQueries(json ? itemsField(json, ...PLAN_QUERY_KEYS) : parseBareList(reply), PLAN_QUERIES)
  if (!queries.length) return undefined
  return {
    goal: stringField(json, 'goal', 'research_goal', 'researchGoal', 'objective') ?? '',
    steps: itemsField(json, 'steps', 'strategy', 'plan').slice(0, 4),
    keyElements: distinctQueries(itemsField(json, 'key_elements', 'keyElements', 'elements', 'entities'), 8),
    queries,
  }
}

const FACT_TEXT_KEYS = ['text', 'fact', 'content', 'statement', 'claim']
const FACT_SOURCE_KEYS = ['source', 'sources', 'url', 'source_url', 'sourceUrl', 'ref', 'citation']
/** "There are no relevant facts", in the words models use. */
const NO_FACTS = /^\s*(none|no (relevant |new )?facts?\b.*|nothing( relevant)?\b.*|n\/a)\s*\.?\s*$/i

/** Result numbers or URLs, from a number, a string ("[2]", "2", a URL) or a list of them. */
function sourceRefs(value: unknown): (number | string)[] {
  const list = Array.isArray(value) ? value : [value]
  const refs: (number | string)[] = []
  for (const item of list) {
    if (typeof item === 'number' && Number.isInteger(item)) refs.push(item)
    else if (typeof item === 'string' && item.trim()) {
      const numbered = /^\s*\[?\s*(?:source\s*)?#?(\d{1,3})\s*\]?\s*$/i.exec(item)
      refs.push(numbered ? Number(numbered[1]) : item.trim())
    }
  }
  return refs
}

function factFromItem(item: unknown): ExtractedFact | undefined {
  if (typeof item === 'string') return factFromLine(item)
  const text = stringField(item, ...FACT_TEXT_KEYS)
  if (!text) return undefined
  const record = item as Record<string, unknown>
  const key = FACT_SOURCE_KEYS.find((k) => record[k] !== undefined)
  return { text, sources: key ? sourceRefs(record[key]) : [] }
}

/** "Fact text [2]", "Fact text (source: https://…)", "Fact text — https://…". */
function factFromLine(line: string): ExtractedFact | undefined {
  let text = line.trim()
  const sources: (number | string)[] = []
  const url = /\(?\s*(?:source\s*:?\s*)?(https?:\/\/[^\s)]+)\s*\)?\s*\.?$/i.exec(text)
  if (url) {
    sources.push(url[1]!.replace(/[.,;]+$/, ''))
    text = text.slice(0, url.index).replace(/[\s—–:-]+$/, '')
  }
  const markers = /((?:\s*\[\s*\d{1,3}(?:\s*,\s*\d{1,3})*\s*\])+)\s*\.?$/.exec(text)
  if (markers) {
    for (const n of markers[1]!.match(/\d+/g) ?? []) sources.push(Number(n))
    text = text.slice(0, markers.index)
  }
  text = text.trim()
  return text ? { text, sources } : undefined
}

/**
 * The extractor's facts: `{"facts": [...]}`, a top-level array of facts, or a bare list. An
 * array of numbers (`[1]` cited in a bullet) is not a list of facts.
 */
export function parseExtraction(reply: unknown): Extraction {
  const text = typeof reply === 'string' ? stripThink(reply) : ''
  const json = looseJsonReader(text)
  const list = factsField(json('object')) ?? factItems(json('array'))
  if (list) return { facts: list.map(factFromItem).filter((f): f is ExtractedFact => f !== undefined), readable: true }
  const lines = parseBareList(text)
  if (lines.length) return { facts: lines.map(factFromLine).filter((f): f is ExtractedFact => f !== undefined), readable: true }
  return { facts: [], readable: NO_FACTS.test(text) }
}

function factItems(json: unknown): unknown[] | undefined {
  if (!Array.isArray(json)) return undefined
  return json.length === 0 || json.some((item) => typeof item === 'string' || (item !== null && typeof item === 'object')) ? json : undefined
}

function factsField(json: unknown): unknown[] | undefined {
  if (!json || typeof json !== 'object') return undefined
  const record = json as Record<string, unknown>
  for (const key of ['facts', 'atomic_facts', 'atomicFacts', 'notes']) if (Array.isArray(record[key])) return record[key] as unknown[]
  return undefined
}

/** Words the answer check writes for yes and no, beyond the shared ones. */
const ANSWER_WORDS = { yes: ['answerable', 'sufficient', 'enough'], no: ['not yet', 'insufficient', 'continue'] }
const readFlag = (value: unknown) => readBoolean(value, ANSWER_WORDS)

/** Where a node check's queries sit, and how many `parseNodeCheck` keeps. */
const CHECK_QUERY_KEYS = ['queries', 'next_queries', 'nextQueries', 'neighbors', 'neighbours', 'new_queries', 'search_queries']
export const CHECK_QUERIES = 4

/** A node check's queries as they close in its streaming reply (sightings: `parseNodeCheck` decides). */
export function checkQueryStream(): QueryStream {
  return createQueryStream({ lists: CHECK_QUERY_KEYS, bareList: true })
}

const FLAG_LINE = /^[ \t>*_#-]*(?:answerable|can answer|sufficient|enough)\b[^:=\n]*[:=]\s*\**\s*([A-Za-z ]+)/im

/**
 * The per-node answer check and neighbour selection. Unreadable → not answerable, no
 * queries (`readable: false`): exploring on is the safe default.
 */
export function parseNodeCheck(reply: unknown): NodeCheck {
  const text = typeof reply === 'string' ? stripThink(reply) : ''
  const json = parseLooseJson(text, 'object')
  if (json !== undefined) {
    const record = json as Record<string, unknown>
    const key = ['answerable', 'sufficient', 'can_answer', 'canAnswer', 'enough', 'done'].find((k) => record[k] !== undefined)
    const answerable = key ? readFlag(record[key]) : undefined
    const queries = distinctQueries(itemsField(json, ...CHECK_QUERY_KEYS), CHECK_QUERIES)
    const missing = stringField(json, 'missing', 'gaps', 'missing_information', 'reason')
    if (answerable !== undefined || queries.length) {
      return { answerable: answerable ?? false, queries, ...(missing ? { missing } : {}), readable: true }
    }
  }
  const flag = FLAG_LINE.exec(text)
  const answerable = flag ? readFlag(flag[1]!.trim().split(/\s+/)[0]) : undefined
  const queries = distinctQueries(parseBareList(text), CHECK_QUERIES)
  return { answerable: answerable ?? false, queries, readable: answerable !== undefined || queries.length > 0 }
}

/** How a fact's cited source was checked against the URLs its node saw. */
export type SourceCheck = { kind: 'seen'; url: string } | { kind: 'corrected'; url: string; from: string } | { kind: 'dropped'; from: string }

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '')
  } catch {
    return undefined
  }
}

/**
 * Ties a cited source to a URL the node actually saw. A result number maps to that result;
 * a URL must match a seen one (as normalised URLs), else it is corrected to the only seen URL
 * on the same host (or the only one on that host whose path extends or is extended by it),
 * else dropped: a model-invented URL is never trusted.
 */
export function checkSource(ref: number | string, numbered: readonly string[], seen: readonly string[]): SourceCheck {
  if (typeof ref === 'number') {
    const url = numbered[ref - 1]
    return url !== undefined && Number.isInteger(ref) ? { kind: 'seen', url } : { kind: 'dropped', from: `[${ref}]` }
  }
  const wanted = normalizeUrl(ref)
  const exact = seen.find((url) => normalizeUrl(url) === wanted)
  if (exact) return { kind: 'seen', url: exact }
  const host = hostOf(ref)
  if (!host) return { kind: 'dropped', from: ref }
  const sameHost = [...new Map(seen.filter((url) => hostOf(url) === host).map((url) => [normalizeUrl(url), url])).values()]
  if (sameHost.length === 1) return { kind: 'corrected', url: sameHost[0]!, from: ref }
  const related = sameHost.filter((url) => {
    const key = normalizeUrl(url)
    return key.startsWith(wanted) || wanted.startsWith(key)
  })
  if (related.length === 1) return { kind: 'corrected', url: related[0]!, from: ref }
  return { kind: 'dropped', from: ref }
}
