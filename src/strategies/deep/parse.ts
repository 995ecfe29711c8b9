import type { Report } from '../../core/contracts/events.js'
import { stripThink } from '../../core/util/text.js'
import { parseLooseJson, stringArrayField, stringField } from '../shared/json.js'
import { cleanQuery, readBoolean } from '../shared/read.js'

/** What `plan_next` decided. `unclear` means no decision could be read from the reply. */
export type PlanDecision = { kind: 'complete'; reasoning: string } | { kind: 'next'; question: string; reasoning: string } | { kind: 'unclear' }

/** A fact the answer of a sub-question relies on, with the numbers of its sources. */
export interface NumberedFact {
  text: string
  sources: number[]
}

/** The answer to one sub-question, as read from the model. `readable` is false for a prose fallback. */
export interface SubAnswerReply {
  answer: string
  confidence?: number
  facts: NumberedFact[]
  needMore: boolean
  queries: string[]
  readable: boolean
}

const MAX_QUESTION_CHARS = 300
const MAX_ANSWER_CHARS = 1200

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

/** A confidence in [0, 1] from `0.8`, `"0.8"`, `"80%"` or `80`; undefined when there is none. */
export function readConfidence(value: unknown): number | undefined {
  let n: number | undefined
  if (typeof value === 'number') n = value
  else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value)
    if (match) n = Number(match[1]) / (match[2] ? 100 : 1)
  }
  if (n === undefined || !Number.isFinite(n) || n < 0) return undefined
  if (n > 1) n = n <= 100 ? n / 100 : 1
  return Math.round(n * 100) / 100
}

function cleanQuestion(text: string): string {
  return cleanQuery(text, MAX_QUESTION_CHARS) ?? ''
}

/** A sub-question as `parsePlanNext` keeps it; undefined when it would be empty. */
export function cleanSubQuestion(text: string): string | undefined {
  return cleanQuestion(text) || undefined
}

/** A "Next question: …" line, as `parsePlanNext` reads one when the reply holds no JSON. */
const NEXT_QUESTION_LINE = /^[ \t*_#>-]*next(?:\s+sub)?[\s-]*question\s*[:=]\s*(.+)$/im

/** The sub-question one line of the planner's reply names ("Next question: …"), raw; for pipelining. */
export function nextQuestionLine(line: string): string | undefined {
  return NEXT_QUESTION_LINE.exec(line)?.[1]?.replace(/[*_]+/g, '')
}

/** The keys `parsePlanNext` reads the next sub-question from. */
export const NEXT_QUESTION_KEYS = ['next_question', 'nextQuestion', 'question', 'sub_question']
/** The keys `parseSubAnswer` reads follow-up queries from. */
export const FOLLOW_UP_KEYS = ['queries', 'new_queries', 'follow_up_queries']

/**
 * Reads `plan_next`: JSON `{is_complete, next_question, reasoning}` or labelled lines
 * (`Complete: yes`, `Next question: …`). A reply that is not complete but names no question
 * gives `next` with an empty question, which the caller rejects. Total.
 */
export function parsePlanNext(reply: unknown): PlanDecision {
  const record = asRecord(parseLooseJson(reply, 'object'))
  if (record) {
    const reasoning = stringField(record, 'reasoning', 'reason', 'why') ?? ''
    const complete = readBoolean(record.is_complete ?? record.isComplete ?? record.complete)
    const question = stringField(record, ...NEXT_QUESTION_KEYS)
    if (complete === true) return { kind: 'complete', reasoning }
    if (question !== undefined || complete === false) return { kind: 'next', question: cleanQuestion(question ?? ''), reasoning }
  }
  const text = stripThink(typeof reply === 'string' ? reply : '')
  const next = NEXT_QUESTION_LINE.exec(text)
  if (next?.[1]) return { kind: 'next', question: cleanQuestion(next[1].replace(/[*_]+/g, '')), reasoning: '' }
  if (/^[ \t*_#>-]*(?:is[\s_]*)?complete\s*[:=]\s*\**\s*(?:true|yes)\b/im.test(text)) return { kind: 'complete', reasoning: '' }
  return { kind: 'unclear' }
}

function readFacts(value: unknown): NumberedFact[] {
  if (!Array.isArray(value)) return []
  const facts: NumberedFact[] = []
  for (const item of value) {
    const record = asRecord(item)
    const text = typeof item === 'string' ? item.trim() : stringField(record, 'text', 'fact', 'claim')
    if (!text) continue
    const raw = record?.sources ?? record?.source
    const list: unknown[] = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]
    const sources = list.map((s) => (typeof s === 'number' ? s : Number(String(s).replace(/[[\]\s]/g, '')))).filter((n) => Number.isInteger(n) && n > 0)
    facts.push({ text, sources: [...new Set(sources)] })
  }
  return facts
}

/**
 * Reads `search_one`'s answer: `{answer, confidence, facts: [{text, sources}], need_more,
 * queries}`. Prose instead of JSON is kept as the answer (`readable: false`). Total.
 */
export function parseSubAnswer(reply: unknown): SubAnswerReply {
  const record = asRecord(parseLooseJson(reply, 'object'))
  const answer = stringField(record, 'answer', 'response', 'summary')
  if (record && answer !== undefined) {
    const confidence = readConfidence(record.confidence)
    return {
      answer: answer.slice(0, MAX_ANSWER_CHARS),
      ...(confidence !== undefined ? { confidence } : {}),
      facts: readFacts(record.facts),
      needMore: readBoolean(record.need_more ?? record.needMore) ?? false,
      queries: stringArrayField(record, ...FOLLOW_UP_KEYS),
      readable: true,
    }
  }
  const prose = stripThink(typeof reply === 'string' ? reply : '').trim()
  return { answer: prose.startsWith('{') ? '' : prose.slice(0, MAX_ANSWER_CHARS), facts: [], needMore: false, queries: [], readable: false }
}

/** The report fields the synthesizer writes (the executive summary is streamed separately). */
export type ReportBody = Omit<Report, 'executiveSummary'>

function list(record: Record<string, unknown>, ...keys: string[]): string[] {
  return stringArrayField(record, ...keys)
}

/** Reads the report JSON. Total; undefined when it has neither a title nor any findings. */
export function parseReport(reply: unknown): ReportBody | undefined {
  const record = asRecord(parseLooseJson(reply, 'object'))
  if (!record) return undefined
  const body: ReportBody = {
    title: stringField(record, 'title') ?? '',
    mainFindings: list(record, 'main_findings', 'mainFindings', 'findings'),
    conclusions: list(record, 'conclusions'),
    limitations: list(record, 'limitations'),
    recommendations: list(record, 'recommendations'),
    sourcesSummary: stringField(record, 'sources_summary', 'sourcesSummary', 'sources') ?? '',
  }
  return body.title || body.mainFindings.length ? body : undefined
}
