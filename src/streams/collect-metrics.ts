import type { ClaimVerdict, ResearchEvent, RunEndReason } from '../core/contracts/events.js'
import { zeroCost, type Cost } from '../core/contracts/run-cost.js'
import { emptyHistogram, observe, type Histogram } from './histogram.js'

/** What `collectMetrics()` counts over a run's events: cost, counts of events, queries, facts and pages, timings, and latency histograms. */
export interface RunMetrics {
  /** Counters from the run's cost accounting: calls, searches, fetches, tokens and dollars. */
  cost: Cost
  events: number
  queries: number
  facts: number
  pages: number
  warnings: number
  answerTokens: number
  /** From `run-start` to the first `answer-token`. */
  timeToFirstTokenMs: number | undefined
  /** From `run-start` to `run-end`. */
  durationMs: number | undefined
  /** `latencyMs` of every model call. */
  llmLatencyMs: Histogram
  /** From each `query` to its `result`. */
  searchLatencyMs: Histogram
  reason: RunEndReason | undefined
  /** With `verify`: the answer's checked sentences, by verdict. */
  claims: Record<ClaimVerdict, number>
  /** With `verify`: supported claims over those citing a source (the result's `supportRate`); undefined when none cites one. */
  supportRate: number | undefined
}

/**
 * Counters and latency histograms of a run, once its stream ends. Feed it a `broadcast`
 * subscription to measure a run that others also consume. Event times are the producer's
 * clock, so latencies are measured where the run ran, not where the events were read.
 */
export async function collectMetrics(events: AsyncIterable<ResearchEvent>): Promise<RunMetrics> {
  const metrics: RunMetrics = {
    cost: zeroCost(),
    events: 0,
    queries: 0,
    facts: 0,
    pages: 0,
    warnings: 0,
    answerTokens: 0,
    timeToFirstTokenMs: undefined,
    durationMs: undefined,
    llmLatencyMs: emptyHistogram(),
    searchLatencyMs: emptyHistogram(),
    reason: undefined,
    claims: { supported: 0, partial: 0, unsupported: 0, uncited: 0, unverifiable: 0 },
    supportRate: undefined,
  }
  let startedAt: number | undefined
  const queryTimes = new Map<string, number>()
  for await (const event of events) {
    metrics.events += 1
    switch (event.type) {
      case 'run-start':
        startedAt = event.time
        break
      case 'query':
        metrics.queries += 1
        queryTimes.set(event.queryId, event.time)
        break
      case 'result': {
        const askedAt = queryTimes.get(event.queryId)
        if (askedAt !== undefined) observe(metrics.searchLatencyMs, event.time - askedAt)
        queryTimes.delete(event.queryId)
        break
      }
      case 'page':
        metrics.pages += 1
        break
      case 'fact':
        metrics.facts += 1
        break
      case 'llm-call':
        observe(metrics.llmLatencyMs, event.latencyMs)
        break
      case 'cost':
        metrics.cost = event.total
        break
      case 'answer-token':
        if (metrics.answerTokens === 0 && startedAt !== undefined) metrics.timeToFirstTokenMs = event.time - startedAt
        metrics.answerTokens += 1
        break
      case 'warning':
        metrics.warnings += 1
        break
      case 'claim': {
        metrics.claims[event.verdict] += 1
        const { supported, partial, unsupported, unverifiable } = metrics.claims
        metrics.supportRate = supported / (supported + partial + unsupported + unverifiable)
        break
      }
      case 'run-end':
        metrics.cost = event.cost
        metrics.reason = event.reason
        if (startedAt !== undefined) metrics.durationMs = event.time - startedAt
        break
      default:
        break
    }
  }
  return metrics
}
