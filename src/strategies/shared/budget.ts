import type { StrategyEvent } from '../../core/contracts/events.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'

/**
 * The one check every strategy makes before it spends more on exploring: once the budget is
 * nearly spent, a `budget` warning, and true (answer now with what was found).
 */
export function* budgetStop(ctx: StrategyContext): Generator<StrategyEvent, boolean> {
  if (!ctx.budgetExhausted()) return false
  yield ctx.warning(`the budget ($${ctx.options.budget?.usd}) is nearly spent; answering with what was found`, 'budget')
  return true
}
