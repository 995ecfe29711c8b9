import { LaconicError } from '../contracts/laconic-error.js'
import type { PlanProposal, ResearchOptions, Step } from '../contracts/strategy-types.js'

/**
 * `ctx.reviewPlan`: yields the plan, then asks the caller once per run (the `reviewed` flag) and
 * never in a resumed run, whose plan was settled before it paused. See StrategyContext.reviewPlan.
 */
export async function* reviewPlan(
  plan: PlanProposal,
  args: { input: Readonly<ResearchOptions>; signal: AbortSignal; review: boolean },
): Step<string[] | undefined> {
  yield { type: 'plan', text: plan.text, queries: [...plan.queries], ...(plan.keyElements ? { keyElements: [...plan.keyElements] } : {}) }
  const { input, signal } = args
  if (!args.review) return plan.queries
  if (input.approvePlan) {
    const verdict = await input.approvePlan(
      { text: plan.text, queries: [...plan.queries], ...(plan.keyElements ? { keyElements: [...plan.keyElements] } : {}) },
      { signal },
    )
    signal.throwIfAborted()
    if (verdict === true) return plan.queries
    if (verdict === false) return undefined
    const edited = editedQueries(verdict)
    yield editedPlanEvent(edited)
    return edited
  }
  return input.pauseAfterPlan ? undefined : plan.queries
}

/** The queries a caller approved: trimmed, blanks and repeats dropped; none left is a `config` error. */
export function editedQueries(queries: unknown): string[] {
  if (!Array.isArray(queries)) {
    throw new LaconicError('approvePlan must return true, false or an array of queries', { code: 'config' })
  }
  const kept = [
    ...new Set(
      queries
        .filter((q): q is string => typeof q === 'string')
        .map((q) => q.trim())
        .filter(Boolean),
    ),
  ]
  if (!kept.length) throw new LaconicError('the approved plan has no queries', { code: 'config', hint: 'return false to stop instead' })
  return kept
}

/** The `plan` event that shows the queries a caller approved in place of the proposed ones. */
export function editedPlanEvent(queries: readonly string[]): { type: 'plan'; text: string; queries: string[] } {
  return { type: 'plan', text: `Approved plan: ${queries.join(' | ')}`, queries: [...queries] }
}
