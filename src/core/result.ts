import type { Cost } from './cost.js'
import type { ErrorInfo } from './errors.js'
import type { Citation, Fact, Report, RunEndReason } from './events.js'
import type { InterruptRequest } from './interruption.js'

/** What a run gives back: the answer and what it rests on, what it cost, and why it ended. */
export interface ResearchResult {
  answer: string
  citations: Citation[]
  facts: Fact[]
  knowledge: string
  cost: Cost
  reason: RunEndReason
  error?: ErrorInfo
  report?: Report
  confidence?: number
  /** What a `paused` run waits for: answer it with `agent.resume(runId, { checkpoints, decision })`. */
  request?: InterruptRequest
}

/** An answer a previous run or the caller already has, so `deep` can skip research it covers. */
export interface PriorAnswer {
  query: string
  answer: string
  confidence?: number
  sources?: string[]
}
