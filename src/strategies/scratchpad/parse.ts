import { stripThink } from '../../core/index.js'

/** What the planner decided. `unclear` means nothing usable could be read from the reply. */
export type PlannerDecision = { action: 'search'; query: string } | { action: 'answer' } | { action: 'unclear' }

const LABEL = String.raw`^[\s>*_#\-\d.)]*`
const ACTION_LINE = new RegExp(`${LABEL}(?:next\\s+)?action[\\s*_]*[:=\\-]\\s*(.*)$`, 'i')
const QUERY_LINE = new RegExp(`${LABEL}(?:search\\s+query|query|search)[\\s*_]*[:=]\\s*(.*)$`, 'i')

/** Removes Markdown emphasis, code ticks and surrounding quotes. */
function clean(text: string): string {
  return text
    .replace(/[*_`]+/g, '')
    .trim()
    .replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, '')
    .trim()
}

/** Template text a model copied instead of filling in. */
function isPlaceholder(query: string): boolean {
  const q = query.trim().toLowerCase()
  if (!q) return true
  if (/^[<[{(].*[>\]})]$/.test(q)) return true
  return /\b(your|a|the) (short )?(web )?search query\b|^(query|search|none|n\/a|\.\.\.|…)$/.test(q)
}

/** Reads the action word, rejecting echoes of the instructions ("Answer or Search"). */
function readAction(value: string): 'search' | 'answer' | undefined {
  const v = clean(value).toLowerCase()
  const search = /\bsearch\b/.test(v)
  const answer = /\banswer\b/.test(v)
  if (search === answer) return undefined
  return search ? 'search' : 'answer'
}

function fromJson(text: string): PlannerDecision | undefined {
  const match = /\{[\s\S]*\}/.exec(text)
  if (!match) return undefined
  try {
    const value: unknown = JSON.parse(match[0])
    if (!value || typeof value !== 'object') return undefined
    const record = value as Record<string, unknown>
    const action = typeof record.action === 'string' ? readAction(record.action) : undefined
    const query = typeof record.query === 'string' ? clean(record.query) : ''
    if (action === 'answer') return { action: 'answer' }
    if (action === 'search' && !isPlaceholder(query)) return { action: 'search', query }
  } catch {
    // not JSON after all; the line reader handles it
  }
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
      const inline = /^\W*search\W*[:\-–]\s*(.+)$/i.exec(clean(value))
      const read = readAction(inline ? 'search' : value)
      if (read && action === undefined) action = read
      if (inline?.[1] && query === undefined && !isPlaceholder(clean(inline[1]))) query = clean(inline[1])
      continue
    }
    const queryMatch = QUERY_LINE.exec(line)
    if (queryMatch && query === undefined) {
      const candidate = clean(queryMatch[1] ?? '')
      if (!isPlaceholder(candidate) && !/^(answer|search)$/i.test(candidate)) query = candidate
    }
  }
  if (action === 'answer') return { action: 'answer' }
  // A labelled query is a search request, with or without an `Action: Search` line.
  if (query !== undefined) return { action: 'search', query: query.slice(0, 300) }
  return fromJson(text) ?? { action: 'unclear' }
}
