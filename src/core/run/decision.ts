import { LaconicError } from '../contracts/laconic-error.js'
import { INTERRUPT_KINDS, isOutline, type InterruptDecision, type InterruptRequest } from '../contracts/interruption.js'
import type { DecideAnswer, ResearchOptions } from '../contracts/strategy-types.js'

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

/**
 * `ctx.decide`: puts `request` to the caller's `decide` when its `review` switch asks for it (a
 * plan or outline once per run, never in a resumed run: `planReviewed`; a tool call always, the
 * strategy having decided it needs one), and checks the answer against the request. No
 * `decide` pauses.
 */
export async function decideRequest(
  request: InterruptRequest,
  run: { runId: string; input: Readonly<ResearchOptions>; planReviewed: boolean },
  signal: AbortSignal,
): Promise<DecideAnswer> {
  if (request.kind !== 'tool-call') {
    const asked = !run.planReviewed && run.input.review?.plan === true
    run.planReviewed = true
    if (!asked) return { action: 'approve' }
  }
  const decide = run.input.decide
  if (!decide) return { action: 'pause' }
  // The caller gets a copy: a callback that changes it cannot change what a pause would carry.
  const answer: unknown = await decide(structuredClone(request), { signal })
  signal.throwIfAborted()
  if (isObject(answer) && answer.action === 'pause') return { action: 'pause' }
  return checkDecision(answer, request, run.runId)
}

/** Run options that were replaced by `review` and `decide`: each is a `config` error naming what replaced it. */
const REPLACED_RUN_OPTIONS: Readonly<Record<string, string>> = {
  approvePlan:
    "`decide` with `review: { plan: true }`: decide(request) answers { action: 'approve' }, { action: 'reject', reason }, { action: 'edit', queries } or { action: 'pause' }",
  pauseAfterPlan: '`review: { plan: true }` (without `decide`, the run pauses at its plan)',
}

/**
 * Checks the run's approval options: removed ones are refused, a request that could only pause
 * needs a checkpoint store, and `decide` must be a function.
 */
export function checkApprovalOptions(input: Readonly<ResearchOptions>): void {
  const given = input as Readonly<Record<string, unknown>>
  for (const [old, now] of Object.entries(REPLACED_RUN_OPTIONS)) {
    if (given[old] !== undefined) throw new LaconicError(`\`${old}\` was replaced: use ${now}`, { code: 'config' })
  }
  const { review, decide } = input
  if (decide !== undefined && typeof decide !== 'function') throw new LaconicError('`decide` must be a function', { code: 'config' })
  if (review === undefined) return
  if (!isObject(review)) throw new LaconicError('`review` must be an object: { plan?: boolean, tools?: boolean | (call) => boolean }', { code: 'config' })
  if (review.plan !== undefined && typeof review.plan !== 'boolean') throw new LaconicError('`review.plan` must be true or false', { code: 'config' })
  if (review.tools !== undefined && typeof review.tools !== 'boolean' && typeof review.tools !== 'function') {
    throw new LaconicError('`review.tools` must be true, false or a function of the call', { code: 'config' })
  }
  if ((review.plan || review.tools) && !decide && !input.checkpoints) {
    throw new LaconicError('`review` without `decide` pauses the run, which needs a checkpoint store', {
      code: 'config',
      hint: 'pass `checkpoints` (e.g. memoryCheckpoints()) so the paused run can be resumed, or `decide` to answer in process',
    })
  }
}
