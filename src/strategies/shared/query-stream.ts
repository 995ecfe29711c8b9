import { createJsonStreamReader, type ClosedValue } from './json-stream.js'
import { stringField } from './json.js'

/**
 * The queries of a planner's reply as they close in its stream: the items of a top-level
 * object's query list (`{"queries": ["a", "b"]}`, items also as `{ "query": "a" }`), a top-level
 * string field (`{"next_question": "a"}`), before any JSON appears the items of a bare list
 * ("- a" / "1. a"), and the queries of labelled lines ("Query: a") read by the caller's `line`.
 * A line closes at its newline (the last line, unended, is left to the parse). Raw text: the
 * caller cleans and dedupes them as its parser does, and its parse of the whole reply decides
 * which of them stand.
 */
export interface QueryStream {
  /** The next piece of the reply; returns the queries that closed in it, in order. */
  push(text: string): string[]
}

export interface QueryStreamOptions {
  /** Top-level keys holding a list of queries, e.g. `['queries', 'search_queries']`. */
  lists?: readonly string[]
  /** Top-level keys holding one query as a string, e.g. `['next_question']`. */
  fields?: readonly string[]
  /** A top-level array is itself the list of queries. @defaultValue false */
  topLevelList?: boolean
  /** Read a bare list ("- a", "1. a") while no JSON has appeared. @defaultValue false */
  bareList?: boolean
  /**
   * The query a line of text protocol carries (`Query: a` gives `a`), or undefined; given each
   * line once its newline arrives (without the line break), JSON or not around it.
   */
  line?: (line: string) => string | undefined
}

/** The keys an item object's query sits under, as the parsers read them. */
const ITEM_KEYS = ['query', 'text', 'q', 'name']
/** One bare list line, as `parseBareList` reads it. */
const LIST_ITEM = /^[ \t]*(?:[-*•]|\d+[.)])[ \t]+([^\r\n]+)/
/** A bare list line longer than this is not a query: stop collecting it (bounded memory). */
const MAX_LINE = 2000

export function createQueryStream(options: QueryStreamOptions): QueryStream {
  const json = createJsonStreamReader()
  const lists = new Set(options.lists ?? [])
  const fields = new Set(options.fields ?? [])
  let jsonSeen = false
  let line = ''

  const fromValue = ({ path, value, stray }: ClosedValue): string | undefined => {
    if (stray) return undefined
    const item = typeof value === 'string' ? value : stringField(value, ...ITEM_KEYS)
    if (item === undefined) return undefined
    if (path.length === 1 && typeof path[0] === 'string' && fields.has(path[0])) return typeof value === 'string' ? value : undefined
    // A list's item sits one index below its key (or below the top when the top is the list).
    if (options.topLevelList && path.length === 1 && typeof path[0] === 'number') return item
    if (path.length === 2 && typeof path[0] === 'string' && lists.has(path[0]) && typeof path[1] === 'number') return item
    return undefined
  }

  const fromLine = (text: string): string | undefined => {
    const labelled = options.line?.(text.endsWith('\r') ? text.slice(0, -1) : text)
    if (labelled !== undefined) return labelled
    if (!options.bareList || jsonSeen) return undefined
    return LIST_ITEM.exec(text)?.[1]
  }
  /** Lines are read for the `line` reader always, for a bare list until JSON appears. */
  const readsLines = () => options.line !== undefined || (options.bareList === true && !jsonSeen)

  return {
    push(text) {
      const queries: string[] = []
      if (typeof text !== 'string') return queries
      if (readsLines()) {
        for (const ch of text) {
          if (ch === '{' || ch === '[') jsonSeen = true
          if (ch === '\n') {
            const item = fromLine(line)
            if (item?.trim()) queries.push(item)
            line = ''
          } else if (line.length < MAX_LINE) line += ch
          if (!readsLines()) break
        }
      }
      for (const closed of json.push(text)) {
        const query = fromValue(closed)
        if (query?.trim()) queries.push(query)
      }
      return queries
    },
  }
}
