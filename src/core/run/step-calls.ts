import { toJson } from '../contracts/checkpoint.js'
import { decideRequest } from './decision.js'
import type { RunShared } from './run-scope.js'
import type { StrategyContext } from '../contracts/strategy-types.js'

/** What gates or ends a strategy's step: `checkpoint`, the budget check, the caller's decisions, and `warning`. */
export function stepCalls(run: RunShared, signal: AbortSignal): Pick<StrategyContext, 'checkpoint' | 'budgetExhausted' | 'decide' | 'warning'> {
  const { options, input, ledger } = run
  return {
    warning(message, code) {
      return { type: 'warning', message, code }
    },
    budgetExhausted() {
      const usd = options.budget?.usd
      if (usd === undefined) return false
      // Keep back twice the priciest call so far (at least a tenth of the budget) for the answer.
      const reserve = Math.max(2 * ledger.priciestCall, usd / 10)
      return ledger.dollars + reserve >= usd
    },
    async *checkpoint(state) {
      let saved!: () => void
      const done = new Promise<void>((resolve) => (saved = resolve))
      // Without a store nothing reads the copy: a run's whole state copied at every step made a
      // long run's CPU grow with the square of its steps.
      const copy = input.checkpoints ? toJson(typeof state === 'function' ? state() : state) : null
      yield { type: 'checkpoint', state: copy, ids: run.ids.counters(), saved }
      await done
    },
    decide(request) {
      return decideRequest(request, run, signal)
    },
  }
}
