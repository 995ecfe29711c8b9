import { EVENT_TYPES, type EventType, type ResearchEvent } from '../core/contracts/events.js'

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array'

// The payload fields a consumer may read without checking, per type. Deeper shapes are the
// producer's contract; this check makes sure a `switch (event.type)` never meets a stranger.
const REQUIRED: Record<EventType, ReadonlyArray<readonly [string, Kind]>> = {
  'run-start': [
    ['question', 'string'],
    ['strategy', 'string'],
  ],
  recall: [['findings', 'array']],
  plan: [['text', 'string']],
  query: [
    ['queryId', 'string'],
    ['query', 'string'],
  ],
  result: [
    ['queryId', 'string'],
    ['results', 'array'],
  ],
  page: [
    ['url', 'string'],
    ['chars', 'number'],
  ],
  fact: [['fact', 'object']],
  'knowledge-update': [
    ['knowledge', 'string'],
    ['iteration', 'number'],
  ],
  'llm-call': [
    ['role', 'string'],
    ['latencyMs', 'number'],
    ['inputTokens', 'number'],
    ['outputTokens', 'number'],
  ],
  cost: [
    ['delta', 'object'],
    ['total', 'object'],
  ],
  'reasoning-token': [
    ['role', 'string'],
    ['text', 'string'],
  ],
  'tool-call': [
    ['callId', 'string'],
    ['name', 'string'],
    ['args', 'object'],
  ],
  'tool-result': [
    ['callId', 'string'],
    ['ok', 'boolean'],
    ['summary', 'string'],
    ['chars', 'number'],
  ],
  'answer-token': [['text', 'string']],
  outline: [['outline', 'object']],
  'section-start': [
    ['index', 'number'],
    ['title', 'string'],
  ],
  'section-end': [['index', 'number']],
  answer: [
    ['text', 'string'],
    ['citations', 'array'],
  ],
  claim: [
    ['index', 'number'],
    ['text', 'string'],
    ['citations', 'array'],
    ['verdict', 'string'],
    ['score', 'number'],
  ],
  warning: [
    ['message', 'string'],
    ['code', 'string'],
  ],
  'run-end': [
    ['reason', 'string'],
    ['cost', 'object'],
  ],
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES)

/**
 * A `ResearchEvent` from JSON text, or `undefined` when the text is not one (bad JSON, an
 * unknown type, a missing stamp or payload field). Total: never throws.
 */
export function parseResearchEvent(text: string): ResearchEvent | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return isResearchEvent(value) ? value : undefined
}

/** True when `value` has the shape of a research event (a known `type`, a `runId`, `seq` and `time`, and its type's fields). */
export function isResearchEvent(value: unknown): value is ResearchEvent {
  if (!isRecord(value)) return false
  const { type, runId, seq, time } = value
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) return false
  if (typeof runId !== 'string' || !Number.isSafeInteger(seq) || typeof time !== 'number') return false
  return REQUIRED[type as EventType].every(([field, kind]) => hasKind(value[field], kind))
}

function hasKind(value: unknown, kind: Kind): boolean {
  if (kind === 'array') return Array.isArray(value)
  if (kind === 'object') return isRecord(value)
  return typeof value === kind
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
