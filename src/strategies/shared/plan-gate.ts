/**
 * The plan gate every planning strategy puts its plan through: review (the caller approves,
 * edits or pauses it, `ctx.reviewPlan`) → keep only what goes on (early searches of queries the
 * caller dropped are cancelled) → on a pause, a checkpoint with the plan pending → on resume,
 * the queries the caller decided on.
 */
import { editedPlanEvent, editedQueries } from '../../core/run/plan-review.js'
import type { PlanRequest } from '../../core/contracts/interruption.js'
import type { PlanProposal, Step, StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'

/** What passed the gate: the queries to search, or the outcome the run ends with now. */
export type GateResult = { queries: string[] } | { end: StrategyOutcome }

export interface PlanGateSteps {
  /** Cancels early work (searches begun while the plan streamed) whose query is not among these. */
  keepOnly?: (queries: readonly string[]) => Step<void>
  /** Saves the strategy's state with these queries pending (`ctx.checkpoint`): the run pauses next. */
  pause: (pending: string[]) => Step<void>
}

/** Puts `plan` to the caller: returns the queries to search, or the paused outcome (the plan its request) once the state is saved. */
export async function* planGate(ctx: StrategyContext, plan: PlanProposal, steps: PlanGateSteps): Step<GateResult> {
  const approved = yield* ctx.reviewPlan(plan)
  if (steps.keepOnly) yield* steps.keepOnly(approved ?? [])
  if (approved) return { queries: approved }
  yield* steps.pause([...plan.queries])
  const request: PlanRequest = {
    kind: 'plan',
    text: plan.text,
    queries: [...plan.queries],
    ...(plan.keyElements ? { keyElements: [...plan.keyElements] } : {}),
  }
  return { end: { reason: 'paused', request } }
}

/**
 * A run resumed from a pause at its plan (`pending`, saved by `pause`), by the caller's
 * decision: `approve` (or none) searches the pending queries, `edit` the edited ones (shown in a
 * `plan` event), and `reject` ends the run `answered` with nothing searched and no answer, the
 * reason in a `plan-rejected` warning. Undefined when the run did not pause at its plan.
 */
export async function* resumedPlan(ctx: StrategyContext, pending: readonly string[] | undefined): Step<GateResult | undefined> {
  if (!pending || !ctx.resumed?.paused) return undefined
  const decision = ctx.resumed.decision
  if (decision?.action === 'reject') {
    yield ctx.warning(`the plan was rejected${decision.reason ? `: ${decision.reason}` : ''}; nothing was searched`, 'plan-rejected')
    return { end: { reason: 'answered' } }
  }
  if (decision?.action !== 'edit' || !('queries' in decision)) return { queries: [...pending] }
  const queries = editedQueries(decision.queries)
  yield editedPlanEvent(queries)
  return { queries }
}
