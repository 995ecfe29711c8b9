import { stripThink } from '../../core/index.js'
import { parseLooseJson } from '../shared/json.js'
import { cleanQuery, trimEdges } from '../shared/read.js'

/** What the planner decided. `unclear` means nothing usable could be read from the reply. */
export type PlannerDecision = { action: 'search'; query: string } | { action: 'answer' } | { action: 'unclear' }

const LABEL = String.raw`^[\s>*_#\-\d.)]*`
const ACTION_LINE = new RegExp(`${LABEL}(?:next\\s+)?action[\\s*_]*[:=\\-]\\s*(.*)$`, 'i')
const QUERY_LINE = new RegExp(`${LABEL}(?:search\\s+query|query|search)[\\s*_]*[:=]\\s*(.*)$`, 'i')

const MAX_QUERY_CHARS = 300

/** Reads the action word, rejecting echoes of the instructions ("Answer or Search"). */
function readAction(value: string): 'search' | 'answer' | undefined {
  const v = trimEdges(value.replace(/[*_`]+/g, '')).toLowerCase()
  const search = /\bsearch\b/.test(v)
  const answer = /\banswer\b/.test(v)
  if (search === answer) return undefined
  return search ? 'search' : 'answer'
}

function fromJson(text: string): PlannerDecision | undefined {
  const record = parseLooseJson(text, 'object') as Record<string, unknown> | undefined
  if (!record) return undefined
  const action = typeof record.action === 'string' ? readAction(record.action) : undefined
  const query = typeof record.query === 'string' ? cleanQuery(record.query, MAX_QUERY_CHARS) : undefined
  if (action === 'answer') return { action: 'answer' }
  if (action === 'search' && query !== undefined) return { action: 'search', query }
  return undefined
}

/**
 * Reads the planner's reply. Total: any string gives a decision, `unclear` when the reply
 * names no usable action. Only labelled lines count, so prose like "I will research this"
 * is not a search request.
 */
export function parsePlannerDecision(reply: string): PlannerDecision {
  const text = stripThink(typeof reply === 'string' ? reply : '')
  let action: 'search' | 'answer' | undefined
  let query: string | undefined
  for (const line of text.split(/\r?\n/)) {
    const actionMatch = ACTION_LINE.exec(line)
    if (actionMatch) {
      const value = actionMatch[1] ?? ''
      // "Action: Search: foo" or "Action: Search - foo" carry the query on the same line.
      const inline = /^\W*search\W*[:\-–]\s*(.+)$/i.exec(trimEdges(value.replace(/[*_`]+/g, '')))
      const read = readAction(inline ? 'search' : value)
      if (read && action === undefined) action = read
      if (inline?.[1] && query === undefined) query = cleanQuery(inline[1], MAX_QUERY_CHARS)
      continue
    }
    const queryMatch = QUERY_LINE.exec(line)
    if (queryMatch && query === undefined) {
      const candidate = cleanQuery(queryMatch[1] ?? '', MAX_QUERY_CHARS)
      if (candidate !== undefined && !/^answer$/i.test(candidate)) query = candidate
    }
  }
  if (action === 'answer') return { action: 'answer' }
  // A labelled query is a search request, with or without an `Action: Search` line.
  if (query !== undefined) return { action: 'search', query }
  return fromJson(text) ?? { action: 'unclear' }
}
