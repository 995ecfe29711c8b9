import { LaconicError } from '../contracts/laconic-error.js'
import { INTERRUPT_KINDS, isOutline, type InterruptDecision, type InterruptRequest } from '../contracts/interruption.js'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

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
      const other = (['queries', 'args', 'outline'] as const).find((f) => f !== field && decision[f] !== undefined)
      if (other !== undefined && decision[field] === undefined) {
        throw fail(`it waits for a ${request.kind}, which is edited with \`${field}\`, not \`${other}\``, `pass { action: 'edit', ${field} }`)
      }
      if (field === 'outline') {
        if (!isOutline(decision.outline)) {
          throw fail('`outline` is not an outline', 'pass { title, sections: [{ title, goal, questions: [...] }] }')
        }
        return { action: 'edit', outline: decision.outline }
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
