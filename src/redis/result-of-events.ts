import { zeroCost, type Fact, type ResearchEvent, type ResearchResult } from '../core/index.js'
import { RESUMED_CODE } from './log-join.js'

/**
 * The result a logged run ended with, folded from its events: for a job whose worker died
 * after the run's `run-end` was logged but before the job was marked done.
 */
export function resultOfEvents(events: readonly ResearchEvent[]): ResearchResult {
  let tokens = ''
  const facts = new Map<string, Fact>()
  const result: ResearchResult = { answer: '', citations: [], facts: [], knowledge: '', cost: zeroCost(), reason: 'error' }
  let answered = false
  for (const event of events) {
    switch (event.type) {
      case 'warning':
        if (event.code === RESUMED_CODE) tokens = ''
        break
      case 'answer-token':
        tokens += event.text
        break
      case 'answer':
        answered = true
        result.answer = event.text
        result.citations = event.citations
        if (event.report !== undefined) result.report = event.report
        if (event.confidence !== undefined) result.confidence = event.confidence
        break
      case 'fact':
        for (const id of event.supersedes ?? []) facts.delete(id)
        facts.set(event.fact.id, event.fact)
        break
      case 'knowledge-update':
        result.knowledge = event.knowledge
        break
      case 'run-end':
        result.reason = event.reason
        result.cost = event.cost
        if (event.error) result.error = event.error
        if (!answered) result.answer = event.answer ?? tokens
        break
      default:
        break
    }
  }
  result.facts = [...facts.values()]
  return result
}
