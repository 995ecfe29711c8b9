/**
 * What the progress displays show, folded from the events: the current step, how many queries
 * ran, facts in the notebook, pages read, and the running cost.
 */
import type { ResearchEvent } from '../../core/contracts/events.js'
import { zeroCost, type Cost } from '../../core/contracts/run-cost.js'
import { oneLine } from './terminal-text.js'
import { count } from '../plural.js'

export interface RunStats {
  /** What the run is doing now, in a few words. */
  step: string
  queries: number
  facts: number
  pages: number
  cost: Cost
  startedAt: number
}

function quote(text: string, max = 60): string {
  return oneLine(text, max)
}

export function createStats(startedAt: number): { readonly stats: RunStats; add(event: ResearchEvent): void } {
  const stats: RunStats = { step: 'starting', queries: 0, facts: 0, pages: 0, cost: zeroCost(), startedAt }
  const facts = new Set<string>()
  const queries = new Map<string, string>()
  return {
    stats,
    add(event) {
      switch (event.type) {
        case 'plan':
          stats.step = `planning: ${quote(event.text)}`
          break
        case 'query':
          queries.set(event.queryId, event.query)
          stats.queries = queries.size
          stats.step = `searching "${quote(event.query, 50)}"`
          break
        case 'result':
          stats.step = `reading ${count(event.results.length, 'result')} for "${quote(queries.get(event.queryId) ?? event.queryId, 40)}"`
          break
        case 'page':
          stats.pages++
          stats.step = `read ${quote(event.url, 60)}`
          break
        case 'fact':
          for (const id of event.supersedes ?? []) facts.delete(id)
          facts.add(event.fact.id)
          stats.facts = facts.size
          break
        case 'knowledge-update':
          stats.step = `updated the notes (iteration ${event.iteration})`
          break
        case 'answer-token':
          stats.step = event.revised ? 'revising the answer' : 'writing the answer'
          break
        case 'claim':
          stats.step = `checked claim ${event.index + 1}: ${event.verdict}`
          break
        case 'reasoning-token':
          stats.step = `the ${event.role} is thinking`
          break
        case 'cost':
          stats.cost = event.total
          break
        case 'run-end':
          stats.cost = event.cost
          stats.step = event.reason
          break
        default:
          break
      }
    },
  }
}

/** The run's dollars, or "cost unknown" when a model call's price was unknown (never a false $0). */
export function formatCost(cost: Cost): string {
  return (cost.unpricedCalls ?? 0) > 0 ? 'cost unknown' : formatDollars(cost.total)
}

export function formatDollars(dollars: number): string {
  return dollars === 0 ? '$0' : dollars < 0.01 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`
}

export function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`
}

/** `3 queries · 5 facts · 2 pages · 12.4s · $0.0031` */
export function statsLine(stats: RunStats, now: number): string {
  const parts = [count(stats.queries, 'query', 'queries')]
  // Scratchpad and reflect keep no facts: "0 facts" would read as a failure.
  if (stats.facts > 0) parts.push(count(stats.facts, 'fact'))
  if (stats.pages > 0) parts.push(count(stats.pages, 'page'))
  parts.push(formatSeconds(now - stats.startedAt), formatCost(stats.cost))
  return parts.join(' · ')
}

/** `5 model calls · 1234 tokens` (`· 56 tokens embedded` when the run embedded any): what the run spent, for the closing summary. */
export function usageLine(cost: Cost): string {
  const embedded = cost.embeddingTokens ?? 0
  return `${count(cost.llmCalls, 'model call')} · ${count(cost.inputTokens + cost.outputTokens, 'token')}${embedded > 0 ? ` · ${count(embedded, 'token')} embedded` : ''}`
}
