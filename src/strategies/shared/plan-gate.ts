/**
 * The plan gate every planning strategy puts its plan through: review (the caller approves,
 * edits or pauses it, `ctx.reviewPlan`) → keep only what goes on (early searches of queries the
 * caller dropped are cancelled) → on a pause, a checkpoint with the plan pending → on resume,
 * the queries the caller decided on.
 */
import { editedPlanEvent, editedQueries } from '../../core/plan-review.js'
import type { PlanProposal, Step, StrategyContext, StrategyOutcome } from '../../core/index.js'

/** What passed the gate: the queries to search, or the outcome the run ends with now. */
export type GateResult = { queries: string[] } | { end: StrategyOutcome }

export interface PlanGateSteps {
  /** Cancels early work (searches begun while the plan streamed) whose query is not among these. */
  keepOnly?: (queries: readonly string[]) => Step<void>
  /** Saves the strategy's state with these queries pending (`ctx.checkpoint`): the run pauses next. */
  pause: (pending: string[]) => Step<void>
}

/** Puts `plan` to the caller: returns the queries to search, or the paused outcome once the state is saved. */
export async function* planGate(ctx: StrategyContext, plan: PlanProposal, steps: PlanGateSteps): Step<GateResult> {
  const approved = yield* ctx.reviewPlan(plan)
  if (steps.keepOnly) yield* steps.keepOnly(approved ?? [])
  if (approved) return { queries: approved }
  yield* steps.pause([...plan.queries])
  return { end: { reason: 'paused' } }
}

/**
 * A run resumed from a pause at its plan (`pending`, saved by `pause`): the queries the caller
 * passed to `resume` (shown in a `plan` event), else the pending ones. Undefined when the run
 * did not pause at its plan.
 */
export async function* resumedPlan(ctx: StrategyContext, pending: readonly string[] | undefined): Step<GateResult | undefined> {
  if (!pending || !ctx.resumed?.paused) return undefined
  const given = ctx.resumed.options.plan?.queries
  if (given === undefined) return { queries: [...pending] }
  const queries = editedQueries(given)
  yield editedPlanEvent(queries)
  return { queries }
}
