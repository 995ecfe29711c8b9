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

/** One section of a report's outline: its title, what it is for, and the questions it must answer. */
export interface OutlineSection {
  title: string
  goal: string
  questions: string[]
}

/** The plan of a long report (the `report` strategy): its title and sections, in order. */
export interface ReportOutline {
  title: string
  sections: OutlineSection[]
}

/** A report's outline that waits before any section is researched. */
export interface OutlineRequest {
  kind: 'outline'
  outline: ReportOutline
}

/** What a paused run waits for, by `kind`. */
export type InterruptRequest = PlanRequest | ToolCallRequest | OutlineRequest

/**
 * The answer to an `InterruptRequest`: go on as asked (`approve`), refuse with a reason
 * (`reject`), or go on with changes (`edit`: other queries for a plan, other arguments for a
 * tool call, another outline for a report's outline, checked like the originals).
 */
export type InterruptDecision =
  | { action: 'approve' }
  | { action: 'reject'; reason?: string }
  | { action: 'edit'; queries: string[] }
  | { action: 'edit'; args: Record<string, unknown> }
  | { action: 'edit'; outline: ReportOutline }

/** The request kinds, each with what an `edit` of it carries. */
export const INTERRUPT_KINDS = { plan: 'queries', 'tool-call': 'args', outline: 'outline' } as const satisfies Record<InterruptRequest['kind'], string>

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** True for a request of a known kind (a checkpoint's, read back). */
export function isInterruptRequest(value: unknown): value is InterruptRequest {
  if (!isObject(value)) return false
  if (value.kind === 'plan') return typeof value.text === 'string' && Array.isArray(value.queries) && value.queries.every((q) => typeof q === 'string')
  if (value.kind === 'tool-call') return typeof value.callId === 'string' && typeof value.name === 'string' && isObject(value.args)
  if (value.kind === 'outline') return isOutline(value.outline)
  return false
}

/** True for an outline's shape: a title and sections each with a title, a goal and string questions. */
export function isOutline(value: unknown): value is ReportOutline {
  if (!isObject(value) || typeof value.title !== 'string' || !Array.isArray(value.sections)) return false
  return value.sections.every(
    (s) =>
      isObject(s) &&
      typeof s.title === 'string' &&
      typeof s.goal === 'string' &&
      Array.isArray(s.questions) &&
      s.questions.every((q: unknown) => typeof q === 'string'),
  )
}
