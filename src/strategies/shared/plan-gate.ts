/**
 * The plan gate every planning strategy puts its plan through: review (the caller approves,
 * edits, rejects or pauses it, `ctx.decide`) → keep only what goes on (early searches of queries the
 * caller dropped are cancelled) → on a pause, a checkpoint with the plan pending → on resume,
 * the queries the caller decided on.
 */
import { editedPlanEvent, editedQueries } from '../../core/run/plan-review.js'
import type { InterruptDecision, PlanRequest } from '../../core/contracts/interruption.js'
import type { PlanProposal, Step, StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'

/** What passed the gate: the queries to search, or the outcome the run ends with now. */
export type GateResult = { queries: string[] } | { end: StrategyOutcome }

export interface PlanGateSteps {
  /** Cancels early work (searches begun while the plan streamed) whose query is not among these. */
  keepOnly?: (queries: readonly string[]) => Step<void>
  /** Saves the strategy's state with these queries pending (`ctx.checkpoint`): the run pauses next. */
  pause: (pending: string[]) => Step<void>
}

/** Shows `plan`, puts it to the caller (`ctx.decide`): returns the queries to search, or the outcome the run ends with (paused once the state is saved, or rejected). */
export async function* planGate(ctx: StrategyContext, plan: PlanProposal, steps: PlanGateSteps): Step<GateResult> {
  const request: PlanRequest = {
    kind: 'plan',
    text: plan.text,
    queries: [...plan.queries],
    ...(plan.keyElements ? { keyElements: [...plan.keyElements] } : {}),
  }
  yield { type: 'plan', text: request.text, queries: [...request.queries], ...(request.keyElements ? { keyElements: [...request.keyElements] } : {}) }
  const answer = await ctx.decide(request)
  const passed = answer.action === 'pause' ? undefined : yield* decidedPlan(ctx, plan.queries, answer)
  if (steps.keepOnly) yield* steps.keepOnly(passed && 'queries' in passed ? passed.queries : [])
  if (passed) return passed
  yield* steps.pause([...plan.queries])
  return { end: { reason: 'paused', request } }
}

/**
 * A run resumed from a pause at its plan (`pending`, saved by `pause`), by the caller's
 * decision (`decidedPlan`). Undefined when the run did not pause at its plan.
 */
export async function* resumedPlan(ctx: StrategyContext, pending: readonly string[] | undefined): Step<GateResult | undefined> {
  if (!pending || !ctx.resumed?.paused) return undefined
  return yield* decidedPlan(ctx, pending, ctx.resumed.decision)
}

/**
 * The plan by the caller's decision, in process or on resume: `approve` (or none) searches the
 * pending queries, `edit` the edited ones (shown in a `plan` event), and `reject` ends the run
 * `answered` with nothing searched and no answer, the reason in a `plan-rejected` warning.
 */
async function* decidedPlan(ctx: StrategyContext, pending: readonly string[], decision: InterruptDecision | undefined): Step<GateResult> {
  if (decision?.action === 'reject') {
    yield ctx.warning(`the plan was rejected${decision.reason ? `: ${decision.reason}` : ''}; nothing was searched`, 'plan-rejected')
    return { end: { reason: 'answered' } }
  }
  if (decision?.action !== 'edit' || !('queries' in decision)) return { queries: [...pending] }
  const queries = editedQueries(decision.queries)
  yield editedPlanEvent(queries)
  return { queries }
}
