import type { Checkpoint } from '../contracts/checkpoint.js'
import { addCost, zeroCost } from '../contracts/run-cost.js'
import type { Citation, Claim, ErrorInfo, Fact, ResearchEvent, RunEndReason, StrategyEvent } from '../contracts/events.js'
import type { InterruptRequest } from '../contracts/interruption.js'
import type { ResearchResult } from '../contracts/result.js'

/**
 * The warning code that marks where a later attempt at a run joined its log (a worker died and
 * another took the run over). The attempt streams its answer again, so the fold restarts it.
 */
export const RESUMED_CODE = 'resumed'

/**
 * The result a run has gathered, folded from its events: one source of truth for the runtime
 * (fed as the strategy yields) and for a logged run read back (fed its stamped events).
 */
export class ResultFold {
  answer = ''
  /** Answer tokens as they streamed: the answer of a run that ends before its `answer` event. */
  private streamed = ''
  private answered = false
  citations: Citation[] = []
  facts = new Map<string, Fact>()
  knowledge: string
  cost = zeroCost()
  extra: Pick<ResearchResult, 'report' | 'confidence' | 'draft'> = {}
  /** Claims by index (`verify`). */
  claims = new Map<number, Claim>()
  /** How the run ended, once a `run-end` was folded in (a logged run's). */
  ended: { reason: RunEndReason; error?: ErrorInfo; request?: InterruptRequest } | undefined

  constructor(knowledge: string, restored?: Checkpoint) {
    this.knowledge = knowledge
    if (!restored) return
    // A resumed run starts with what was gathered before; a finished one with its whole result.
    this.knowledge = restored.knowledge
    // Every field set, also those a checkpoint saved by an earlier version lacks.
    this.cost = addCost(zeroCost(), restored.cost)
    for (const fact of restored.facts) this.facts.set(fact.id, fact)
    const done = restored.result
    if (done) {
      this.answered = true
      this.answer = done.answer
      this.citations = done.citations
      if (done.report !== undefined) this.extra.report = done.report
      if (done.confidence !== undefined) this.extra.confidence = done.confidence
      if (done.draft !== undefined) this.extra.draft = done.draft
      for (const claim of done.claims ?? []) this.claims.set(claim.index, claim)
    }
  }

  add(event: StrategyEvent | ResearchEvent): void {
    switch (event.type) {
      case 'warning':
        if (event.code === RESUMED_CODE) this.streamed = ''
        break
      case 'answer-token':
        // A revision that never finishes leaves the first answer standing.
        if (!event.revised) this.streamed += event.text
        break
      case 'claim':
        this.claims.set(event.index, event)
        break
      case 'answer':
        if (event.revised) {
          this.extra.draft = this.answer
          this.answer = event.text
          this.citations = event.citations
          break
        }
        this.answered = true
        this.answer = event.text
        this.citations = event.citations
        if (event.report !== undefined) this.extra.report = event.report
        if (event.confidence !== undefined) this.extra.confidence = event.confidence
        break
      case 'fact':
        for (const id of event.supersedes ?? []) this.facts.delete(id)
        this.facts.set(event.fact.id, event.fact)
        break
      case 'knowledge-update':
        this.knowledge = event.knowledge
        break
      case 'cost':
        this.cost = addCost(this.cost, event.delta)
        break
      case 'run-end':
        // The run's own account wins: its total cost, and the answer it had when it ended (a
        // run resumed from a finished checkpoint streams nothing, its answer is only here).
        this.cost = event.cost
        if (!this.answered && event.answer !== undefined) this.streamed = event.answer
        this.ended = { reason: event.reason, ...(event.error ? { error: event.error } : {}), ...(event.request ? { request: event.request } : {}) }
        break
      default:
        break
    }
  }

  /** The result of a run that ended for `reason`; a paused one carries what it waits for (`request`). */
  result(reason: RunEndReason, error?: ErrorInfo, request?: InterruptRequest): ResearchResult {
    const claims = [...this.claims.values()].sort((a, b) => a.index - b.index).map(claimOf)
    const cited = claims.filter((claim) => claim.verdict !== 'uncited')
    return {
      answer: this.answered ? this.answer : this.streamed,
      citations: this.citations,
      facts: [...this.facts.values()],
      knowledge: this.knowledge,
      cost: this.cost,
      reason,
      ...(error ? { error } : {}),
      ...(request ? { request } : {}),
      ...this.extra,
      ...(claims.length ? { claims } : {}),
      ...(cited.length ? { supportRate: cited.filter((claim) => claim.verdict === 'supported').length / cited.length } : {}),
    }
  }
}

/** A claim without its event's stamp and type. */
function claimOf({ index, text, citations, verdict, evidence, score }: Claim): Claim {
  return { index, text, citations, verdict, ...(evidence !== undefined ? { evidence } : {}), score }
}

/**
 * The result a logged run ended with, folded from its events: for a job whose worker died
 * after the run's `run-end` was logged but before the job was marked done. A log without a
 * `run-end` reads as a run that ended in error.
 */
export function resultOfEvents(events: Iterable<ResearchEvent>): ResearchResult {
  const fold = new ResultFold('')
  for (const event of events) fold.add(event)
  return fold.result(fold.ended?.reason ?? 'error', fold.ended?.error, fold.ended?.request)
}
