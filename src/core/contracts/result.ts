import type { Cost } from './run-cost.js'
import type { ErrorInfo } from './laconic-error.js'
import type { Citation, Claim, Fact, Report, RunEndReason } from './events.js'
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
  /** With `verify`: each sentence of the answer as checked against its sources, by `index` (of the first answer, `draft`, when it was revised). */
  claims?: Claim[]
  /** With `verify`: the share of the claims citing a source that their sources support (`supported` claims over all but `uncited`); absent when no claim cites one. */
  supportRate?: number
  /** With `verify: 'revise'`: the first answer, when it was rewritten without its unsupported claims (`answer` is the rewrite). */
  draft?: string
}

/** An answer a previous run or the caller already has, so `deep` can skip research it covers. */
export interface PriorAnswer {
  query: string
  answer: string
  confidence?: number
  sources?: string[]
}
