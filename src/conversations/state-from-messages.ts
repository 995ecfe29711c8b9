/**
 * A conversation rebuilt from the messages a `useChat` client sends back, for a chat handler with
 * no store: each answer (`text` parts) with the question before it, the citations (`source-url`
 * parts) and the facts (`data-fact` parts). This trusts the client: a page can send answers,
 * sources and facts no run found. So it keeps only what fits the shapes and the bounds below,
 * web URLs only, and a server that must not be steered by its clients keeps a store instead.
 */
import type { Citation } from '../core/contracts/events.js'
import type { PriorAnswer } from '../core/contracts/result.js'
import type { SessionFact, SessionState } from './session-store.js'
import { researchDataSchemas, researchMetadataSchema } from '../streams/research-schemas.js'
import type { ResearchDataParts } from '../streams/ui-message-chunks.js'

/** The most a rebuilt conversation carries: the latest answers and facts, the first citations. */
export const REBUILT_LIMITS = Object.freeze({
  priorAnswers: 20,
  answerChars: 4_000,
  questionChars: 2_000,
  citations: 200,
  citationIndex: 10_000,
  facts: 300,
  factChars: 1_000,
  urlChars: 2_048,
  titleChars: 300,
} as const)

/** The session state the messages before a question describe (see the module's note on trust). */
export function sessionStateFromMessages(messages: readonly unknown[]): SessionState {
  const priorAnswers: PriorAnswer[] = []
  const citations = new Map<number, Citation>()
  const facts: SessionFact[] = []
  let question = ''
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message.parts)) continue
    if (message.role === 'user') {
      question = textOf(message).slice(0, REBUILT_LIMITS.questionChars)
      continue
    }
    if (message.role !== 'assistant') continue
    const sources: string[] = []
    for (const part of message.parts) {
      const citation = citationOf(part)
      if (!citation) continue
      sources.push(citation.url)
      // The number a source got first is its number for the conversation.
      if (!citations.has(citation.index) && citations.size < REBUILT_LIMITS.citations) citations.set(citation.index, citation)
    }
    for (const part of message.parts) {
      const fact = factOf(part, citations)
      if (fact) facts.push(fact)
    }
    const answer = textOf(message).slice(0, REBUILT_LIMITS.answerChars)
    if (answer && question && answered(message.metadata)) {
      priorAnswers.push({ query: question, answer, ...(sources.length > 0 ? { sources } : {}) })
    }
    question = ''
  }
  return {
    version: 1,
    priorAnswers: priorAnswers.slice(-REBUILT_LIMITS.priorAnswers),
    citations: [...citations.values()].sort((a, b) => a.index - b.index),
    knowledge: '',
    facts: facts.slice(-REBUILT_LIMITS.facts),
  }
}

/** A run that failed or was stopped gave no answer to build on (a message with no metadata counts as answered). */
function answered(metadata: unknown): boolean {
  const checked = researchMetadataSchema['~standard'].validate(metadata)
  if (checked.issues) return false
  const reason = checked.value?.reason
  return reason !== 'error' && reason !== 'aborted' && reason !== 'paused'
}

function citationOf(part: unknown): Citation | undefined {
  if (!isRecord(part) || part.type !== 'source-url' || typeof part.sourceId !== 'string' || !/^[1-9]\d{0,4}$/.test(part.sourceId)) return undefined
  const index = Number(part.sourceId)
  const url = webUrl(part.url)
  if (index > REBUILT_LIMITS.citationIndex || !url) return undefined
  const title = typeof part.title === 'string' ? part.title.trim().slice(0, REBUILT_LIMITS.titleChars) : ''
  return { index, url, ...(title ? { title } : {}) }
}

/** A `data-fact` part still standing (not superseded), with a web source. */
function factOf(part: unknown, citations: ReadonlyMap<number, Citation>): SessionFact | undefined {
  if (!isRecord(part) || part.type !== 'data-fact') return undefined
  const checked = researchDataSchemas.fact['~standard'].validate(part.data)
  if (checked.issues) return undefined
  const data: ResearchDataParts['fact'] = checked.value
  const text = data.fact.text.trim().slice(0, REBUILT_LIMITS.factChars)
  const url = data.fact.sources.map(webUrl).find((candidate) => candidate !== undefined)
  if (data.supersededBy !== undefined || !text || !url) return undefined
  const title = [...citations.values()].find((citation) => citation.url === url)?.title
  return { text, url, ...(title ? { title } : {}) }
}

/** An `http(s)` URL within the length bound, or undefined: a client's `file:` or `javascript:` URL is not kept. */
function webUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > REBUILT_LIMITS.urlChars || !URL.canParse(value)) return undefined
  const protocol = new URL(value).protocol
  return protocol === 'http:' || protocol === 'https:' ? value : undefined
}

/** The text parts of a message, joined by line breaks and trimmed; '' when it has none. */
export function textOf(message: Record<string, unknown>): string {
  const parts = Array.isArray(message.parts) ? message.parts : []
  return parts
    .flatMap((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n')
    .trim()
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
