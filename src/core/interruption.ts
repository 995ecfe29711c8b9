/**
 * One mechanism for every interruption: a strategy ends its run `paused` with a request (plain
 * JSON: what waits for a decision), the run carries it in `run-end`, the result and the
 * checkpoint, and `agent.resume(runId, { checkpoints, decision })` answers it. A new reason to
 * interrupt (a budget about to be passed, a page behind a login) is one more request kind here.
 */
import { LaconicError } from './errors.js'

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

/**
 * Checks `decision` against the request of run `runId` it answers: a decision for a run that
 * waits for nothing, of an unknown action, or an edit that does not fit the request's kind, is a
 * `config` error saying what fits.
 */
export function checkDecision(decision: unknown, request: InterruptRequest | undefined, runId: string): InterruptDecision {
  const fail = (problem: string, hint: string) => new LaconicError(`run ${runId} cannot take this decision: ${problem}`, { code: 'config', hint })
  if (!request) throw fail('it is not paused, so nothing waits for a decision', 'resume it without `decision`')
  if (!isObject(decision)) throw fail('`decision` is not an object', "pass { action: 'approve' }, { action: 'reject', reason } or { action: 'edit', ... }")
  const field = INTERRUPT_KINDS[request.kind]
  switch (decision.action) {
    case 'approve':
      return { action: 'approve' }
    case 'reject':
      if (decision.reason !== undefined && typeof decision.reason !== 'string')
        throw fail('`reason` is not a string', 'give the reason as text, or leave it out')
      return { action: 'reject', ...(typeof decision.reason === 'string' && decision.reason.trim() ? { reason: decision.reason.trim() } : {}) }
    case 'edit': {
      const other = field === 'queries' ? 'args' : 'queries'
      if (decision[other] !== undefined && decision[field] === undefined) {
        throw fail(`it waits for a ${request.kind}, which is edited with \`${field}\`, not \`${other}\``, `pass { action: 'edit', ${field} }`)
      }
      if (field === 'queries') {
        const queries = decision.queries
        if (!Array.isArray(queries) || !queries.every((q) => typeof q === 'string')) throw fail('`queries` is not a list of strings', 'pass the queries to run')
        return { action: 'edit', queries: [...queries] }
      }
      if (!isObject(decision.args)) throw fail('`args` is not an object', "pass the tool call's arguments as an object")
      return { action: 'edit', args: { ...decision.args } }
    }
    default:
      throw fail(`\`action\` ${JSON.stringify(decision.action)} is none of approve, reject, edit`, `a ${request.kind} takes approve, reject or edit (${field})`)
  }
}
