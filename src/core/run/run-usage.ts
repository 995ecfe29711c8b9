import type { StrategyEvent } from '../contracts/events.js'
import { type ProviderUsage, type UsageReporter, usageCost } from '../contracts/provider-usage.js'
import type { RunShared } from './run-scope.js'

type Accounts = Pick<RunShared, 'options' | 'ledger' | 'openCalls'>

/**
 * The one way a run counts what was spent, its own model calls and what providers report alike:
 * a model call's `llm-call` event, then the `cost` event; the ledger the budget reads is kept.
 */
export function usageEvents(run: Pick<Accounts, 'options' | 'ledger'>, usage: ProviderUsage): StrategyEvent[] {
  const { delta, dollars } = usageCost(usage, run.options.pricing)
  run.ledger.dollars += dollars ?? 0
  if (usage.kind === 'embedding') return [{ type: 'cost', delta }]
  run.ledger.priciestCall = Math.max(run.ledger.priciestCall, dollars ?? 0)
  return [
    {
      type: 'llm-call',
      role: usage.role,
      ...(usage.model !== undefined ? { model: usage.model } : {}),
      latencyMs: usage.latencyMs ?? 0,
      inputTokens: delta.inputTokens,
      outputTokens: delta.outputTokens,
    },
    { type: 'cost', delta },
  ]
}

/**
 * What providers report during one call of the run (a search, a recall): its `onUsage` for the
 * provider, and `take()` for the events to yield once the call returns. Reported and not yet
 * taken, the usage is one of the run's open calls, so a call cut off by the run's end still
 * counts before `run-end`.
 */
export function usageCollector(run: Accounts): { onUsage: UsageReporter; take(): StrategyEvent[] } {
  const events: StrategyEvent[] = []
  const open = { account: () => events.splice(0) }
  return {
    onUsage(usage) {
      events.push(...usageEvents(run, usage))
      run.openCalls.add(open)
    },
    take() {
      run.openCalls.remove(open)
      return events.splice(0)
    },
  }
}
