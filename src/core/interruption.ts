/**
 * One mechanism for every interruption: a strategy ends its run `paused` with a request (plain
 * JSON: what waits for a decision), the run carries it in `run-end`, the result and the
 * checkpoint, and `agent.resume(runId, { checkpoints, decision })` answers it. A new reason to
 * interrupt (a budget about to be passed, a page behind a login) is one more request kind here.
 */
/** A plan that waits before any of its queries is searched. */
export interface PlanRequest {
  kind: 'plan'
  text: string
  queries: string[]
  keyElements?: string[]
}

/** A tool call that waits before it runs; the fields its tool marks sensitive read `[redacted]`. */
export interface ToolCallRequest {
  kind: 'tool-call'
  callId: string
  name: string
  args: Record<string, unknown>
}

/** What a paused run waits for, by `kind`. */
export type InterruptRequest = PlanRequest | ToolCallRequest

/**
 * The answer to an `InterruptRequest`: go on as asked (`approve`), refuse with a reason
 * (`reject`), or go on with changes (`edit`: other queries for a plan, other arguments for a
 * tool call, checked like the originals).
 */
export type InterruptDecision =
  | { action: 'approve' }
  | { action: 'reject'; reason?: string }
  | { action: 'edit'; queries: string[] }
  | { action: 'edit'; args: Record<string, unknown> }

/** The request kinds, each with what an `edit` of it carries. */
export const INTERRUPT_KINDS = { plan: 'queries', 'tool-call': 'args' } as const satisfies Record<InterruptRequest['kind'], string>

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** True for a request of a known kind (a checkpoint's, read back). */
export function isInterruptRequest(value: unknown): value is InterruptRequest {
  if (!isObject(value)) return false
  if (value.kind === 'plan') return typeof value.text === 'string' && Array.isArray(value.queries) && value.queries.every((q) => typeof q === 'string')
  if (value.kind === 'tool-call') return typeof value.callId === 'string' && typeof value.name === 'string' && isObject(value.args)
  return false
}
