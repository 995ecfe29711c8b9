import type { SessionFact } from '../core/contracts/long-term-memory.js'
import type { ResearchResult } from '../core/contracts/result.js'
import { normalizeUrl } from '../core/util/urls.js'
import { mergeCitations } from './citation-numbers.js'
import { emptySessionState, type SessionState } from './session-store.js'
import { rewriteCitations } from '../strategies/shared/citations.js'

/** One finished turn of a conversation: its question, the state it started from, and its result. */
export interface Turn {
  question: string
  /** The state the turn was started with. */
  base: SessionState
  /** The knowledge the turn was given: a result that kept it learned nothing new to remember. */
  givenKnowledge: string
  result: ResearchResult
}

/**
 * The conversation with a finished turn merged in. Merged, never overwritten, so a turn that
 * ran beside another loses nothing of it:
 * - citations: a source the conversation numbered already keeps its number; a new source keeps
 *   the number the turn gave it unless a concurrent turn took that number first, then it gets
 *   the next free one and the turn's stored answer has its `[n]` rewritten to match;
 * - the answer (unless the run ended in error or aborted) joins `priorAnswers`;
 * - knowledge: the turn's replaces the base it started from; when another turn changed it
 *   meanwhile, the turn's lines not in it are added after it;
 * - facts: every new one (by text and source) is added.
 */
export function mergeTurn(current: SessionState | undefined, turn: Turn): SessionState {
  const state = current ?? emptySessionState()
  const { numbers, citations } = mergeCitations(state.citations, turn.result.citations)
  const { result } = turn
  const answered = result.answer.trim() !== '' && result.reason !== 'error' && result.reason !== 'aborted'
  const renumber = (n: number) => numbers.get(n) ?? n
  const priorAnswers = answered
    ? [
        ...state.priorAnswers,
        {
          query: turn.question,
          answer: rewriteCitations(result.answer, renumber),
          ...(result.confidence !== undefined ? { confidence: result.confidence } : {}),
          sources: result.citations.map((c) => c.url),
        },
      ]
    : state.priorAnswers
  return {
    version: state.version,
    priorAnswers,
    citations,
    knowledge: mergeKnowledge(state.knowledge, turn),
    facts: mergeFacts(state.facts, factsOf(result)),
  }
}

function mergeKnowledge(stored: string, turn: Turn): string {
  const learned = turn.result.knowledge.trim()
  // A result whose knowledge is what it was given (a strategy that keeps none) learned nothing to keep.
  if (!learned || learned === turn.givenKnowledge.trim()) return stored
  if (stored === turn.base.knowledge) return learned
  // Another turn changed it since this one started: keep both, without repeating a line.
  const lines = new Set(stored.split('\n').map((line) => line.trim()))
  const added = learned.split('\n').filter((line) => !lines.has(line.trim()))
  return [stored, ...added].filter(Boolean).join('\n')
}

/** The result's facts as a conversation keeps them: the text and its first source, titled when a citation names it. */
function factsOf(result: ResearchResult): SessionFact[] {
  const titles = new Map(result.citations.filter((c) => c.title).map((c) => [normalizeUrl(c.url), c.title as string]))
  return result.facts.flatMap((fact) => {
    const url = fact.sources[0]
    if (!url || !fact.text.trim()) return []
    const title = titles.get(normalizeUrl(url))
    return [{ text: fact.text, url, ...(title ? { title } : {}) }]
  })
}

function mergeFacts(known: readonly SessionFact[], added: readonly SessionFact[]): SessionFact[] {
  const key = (fact: SessionFact) => `${normalizeUrl(fact.url)}\n${fact.text.trim()}`
  const seen = new Set(known.map(key))
  const facts = [...known]
  for (const fact of added) {
    if (seen.has(key(fact))) continue
    seen.add(key(fact))
    facts.push(fact)
  }
  return facts
}

/**
 * The knowledge a turn starts from: the conversation's knowledge, then each fact it does not
 * already state, one per line. A state rebuilt from a chat client's messages has facts but no
 * knowledge: this is how those facts reach the planner.
 */
export function knowledgeOf(state: SessionState): string {
  const uncovered = state.facts.filter((fact) => !state.knowledge.includes(fact.text.trim())).map((fact) => `- ${fact.text.trim()}`)
  return [state.knowledge.trim(), ...uncovered].filter(Boolean).join('\n')
}
