import { stripThink } from '../../core/util/text.js'
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

/** The query an action line carries inline ("Action: Search: foo", "Action: Search - foo"), raw. */
function inlineQuery(actionValue: string): string | undefined {
  return /^\W*search\W*[:\-–]\s*(.+)$/i.exec(trimEdges(actionValue.replace(/[*_`]+/g, '')))?.[1]
}

/**
 * The query one line of the planner's reply names, raw (before `cleanQuery`): a `Query:` line's
 * value, or the query an `Action: Search: …` line carries inline. Undefined for any other line.
 * The parse reads each line with it, and pipelining reads each line as it streams in.
 */
export function lineQuery(line: string): string | undefined {
  const actionMatch = ACTION_LINE.exec(line)
  if (actionMatch) return inlineQuery(actionMatch[1] ?? '')
  return QUERY_LINE.exec(line)?.[1] ?? undefined
}

/** A query as the parse keeps it: clean, and not the word "answer" (a `Query: Answer` line). */
export function plannerQuery(raw: string): string | undefined {
  const query = cleanQuery(raw, MAX_QUERY_CHARS)
  return query !== undefined && !/^answer$/i.test(query) ? query : undefined
}

/** A word every action or query line holds (the labels of ACTION_LINE and QUERY_LINE). */
const LABEL_WORD = /action|query|search/gi

/**
 * The lines of `text` (split at LF, a CR before it dropped) that hold a label word, in order,
 * each once: the only ones ACTION_LINE or QUERY_LINE can match. Found by one scan for the words,
 * not by three regular expressions on every line (a million blank lines took 40 ms).
 */
function* labelledLines(text: string): Generator<string> {
  const words = new RegExp(LABEL_WORD)
  for (let hit = words.exec(text); hit; hit = words.exec(text)) {
    const start = text.lastIndexOf('\n', hit.index) + 1
    const lf = text.indexOf('\n', hit.index)
    const end = lf === -1 ? text.length : text.charCodeAt(lf - 1) === CR ? lf - 1 : lf
    yield text.slice(start, end)
    if (lf === -1) return
    words.lastIndex = lf + 1
  }
}

const CR = 13

/**
 * Reads the planner's reply. Total: any string gives a decision, `unclear` when the reply
 * names no usable action. Only labelled lines count, so prose like "I will research this"
 * is not a search request.
 */
export function parsePlannerDecision(reply: string): PlannerDecision {
  const text = stripThink(typeof reply === 'string' ? reply : '')
  let action: 'search' | 'answer' | undefined
  let query: string | undefined
  for (const line of labelledLines(text)) {
    const actionMatch = ACTION_LINE.exec(line)
    if (actionMatch) {
      const value = actionMatch[1] ?? ''
      const read = readAction(inlineQuery(value) !== undefined ? 'search' : value)
      if (read && action === undefined) action = read
    }
    const raw = lineQuery(line)
    if (raw !== undefined && query === undefined) query = plannerQuery(raw)
    // Only the first action and the first query count: nothing further can change the decision.
    if (action === 'answer' || (action !== undefined && query !== undefined)) break
  }
  if (action === 'answer') return { action: 'answer' }
  // A labelled query is a search request, with or without an `Action: Search` line.
  if (query !== undefined) return { action: 'search', query }
  return fromJson(text) ?? { action: 'unclear' }
}
