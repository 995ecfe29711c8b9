/**
 * Runs the tool calls of one `react` step: each call is announced, checked (its tool, its
 * arguments, repeats), put to the caller when it needs a decision (`review.tools`, or a tool
 * marked `needsApproval`: `ctx.decide`), and the allowed ones run at once under the run's
 * limiter; their results go into the tool notes as the step's outcomes. A call that waits for a
 * decision stops the step before anything runs, so the whole step is replayed on resume, the
 * decisions taken so far kept.
 */
import type { StrategyEvent } from '../../core/contracts/events.js'
import type { InterruptDecision, ToolCallRequest } from '../../core/contracts/interruption.js'
import { describeError, isAbortError, LaconicError } from '../../core/contracts/laconic-error.js'
import type { ToolCall } from '../../core/contracts/providers.js'
import { parseToolArgs } from '../../core/contracts/tool-args.js'
import { createMerge } from '../../core/util/merge.js'
import { type BuiltinInit, ERROR_CHARS, failed, readPageCall, searchCall } from './builtin-calls.js'
import { bound, type ToolOutcome } from './tool-notes.js'
import type { ReactCall, ReactOptions } from './options.js'
import { callKey, READ_PAGE, redactArgs, type RunnableTool, SEARCH } from './tools.js'

export { ERROR_CHARS } from './builtin-calls.js'

export interface ToolRunnerInit extends BuiltinInit {
  /** Every tool the run has, by name (a step may show the model fewer). */
  tools: ReadonlyMap<string, RunnableTool>
  /** Calls already made (`callKey`), kept in the checkpoint: a repeat is refused. */
  made: Set<string>
  hooks: Pick<ReactOptions, 'afterTool'>
  /** The model repeated a call it already made. */
  onRepeat(): void
}

/** The calls of one step, the decisions on them so far, and the tools the model saw at it. */
export interface StepCalls {
  step: number
  text: string
  calls: readonly ToolCall[]
  /** The tool names the model was offered at this step. */
  visible: ReadonlySet<string>
  /** Decisions taken on this step's calls before it paused (and the resume's), by call id. */
  decisions?: Readonly<Record<string, InterruptDecision>>
}

/**
 * How a step's calls went: all run (or refused), or stopped at a call that waits for a decision:
 * the request that says so (its arguments as they would run, sensitive fields redacted), and the
 * decisions taken so far, for the checkpoint.
 */
export type StepRun = { ran: true } | { ran: false; waiting: ToolCall; request: ToolCallRequest; decisions: Record<string, InterruptDecision> }

type Run = { tool: RunnableTool; args: Record<string, unknown> }
type Verdict = { run: Run } | { error: string } | { pause: Record<string, unknown> }
type Planned = { call: ToolCall; run?: Run; error?: string }

export function toolRunner(init: ToolRunnerInit): { run(step: StepCalls): AsyncGenerator<StrategyEvent, StepRun> } {
  return {
    async *run(step) {
      const decisions: Record<string, InterruptDecision> = { ...step.decisions }
      const planned: Planned[] = []
      for (const call of step.calls) {
        const tool = init.tools.get(call.name)
        const parsed = parseToolArgs(call.args)
        // A resumed step announces its calls again (its run-start opens a new stream).
        yield { type: 'tool-call', callId: call.id, name: call.name, args: redactArgs(parsed.ok ? parsed.value : { raw: bound(call.args, 200) }, tool) }
        const checked = yield* checkCall(init, call, tool, parsed, step.visible)
        if ('error' in checked) {
          planned.push({ call, error: checked.error })
          continue
        }
        const verdict = await approveCall(init, call, checked, decisions)
        if ('pause' in verdict) {
          if (!init.ctx.input.checkpoints) {
            yield init.ctx.warning(
              `tool \`${call.name}\` needs approval, but the run has no checkpoint store to pause in; the call is refused`,
              'approval-unavailable',
            )
            planned.push({ call, error: 'this call needs approval, which cannot be given in this run; do without it' })
            continue
          }
          const request: ToolCallRequest = { kind: 'tool-call', callId: call.id, name: call.name, args: redactArgs(verdict.pause, checked.tool) }
          return { ran: false, waiting: call, request, decisions }
        }
        planned.push({ call, ...verdict })
      }
      const outcomes = yield* runPlanned(init, step.step, planned)
      init.notes.steps.push({ text: step.text, outcomes })
      return { ran: true }
    },
  }
}

/** Whether a call can run at all: its tool (visible at this step), its arguments (valid), and not a repeat. */
async function* checkCall(
  init: ToolRunnerInit,
  call: ToolCall,
  tool: RunnableTool | undefined,
  parsed: ReturnType<typeof parseToolArgs>,
  visible: ReadonlySet<string>,
): AsyncGenerator<StrategyEvent, Run | { error: string }> {
  if (!tool || !visible.has(call.name)) {
    return { error: `there is no tool \`${bound(call.name, 60)}\` at this step; the tools are: ${[...visible].join(', ') || 'none'}` }
  }
  if (!parsed.ok) return { error: `${parsed.error}; send a JSON object matching the tool's parameters` }
  const args = parsed.value
  const invalid = tool.validate(args)
  if (invalid.length) return { error: `invalid arguments: ${invalid.join('; ')}` }
  const key = callKey(call.name, args)
  if (init.made.has(key)) {
    init.onRepeat()
    yield init.ctx.warning(`the model repeated a call it already made (${bound(key, 120)})`, 'repeated-call')
    return { error: 'you already made this exact call; its result is above or in the notes. Use it, or try something different.' }
  }
  return { tool, args }
}

/**
 * Whether a call may go ahead: a call of a tool marked `needsApproval`, or one `review.tools`
 * picks, is put to the caller (`ctx.decide`) unless this step already has a decision on it;
 * the decision is kept in `decisions`. `pause` when the caller pauses (or cannot answer).
 */
async function approveCall(init: ToolRunnerInit, call: ToolCall, { tool, args }: Run, decisions: Record<string, InterruptDecision>): Promise<Verdict> {
  const asked = decisions[call.id]
  if (!asked) {
    const needed =
      tool.user?.needsApproval === true || (await reviewsCall(init.ctx.input.review?.tools, { kind: 'tool-call', callId: call.id, name: call.name, args }))
    if (!needed) return { run: { tool, args } }
    const answer = await init.ctx.decide({ kind: 'tool-call', callId: call.id, name: call.name, args: redactArgs(args, tool) })
    init.ctx.signal.throwIfAborted()
    if (answer.action === 'pause') return { pause: args }
    decisions[call.id] = answer
  }
  const decision = decisions[call.id]!
  if (decision.action === 'reject') return { error: `the user refused this call${decision.reason ? `: ${bound(decision.reason, ERROR_CHARS)}` : ''}` }
  if (decision.action === 'edit' && 'args' in decision) {
    const wrong = tool.validate(decision.args)
    if (wrong.length) throw new LaconicError(`the approved arguments of \`${call.name}\` do not match its schema: ${wrong.join('; ')}`, { code: 'config' })
    return { run: { tool, args: decision.args } }
  }
  return { run: { tool, args } }
}

/** The `review.tools` switch for one call: all, none, or those its predicate picks. */
async function reviewsCall(tools: boolean | ((call: ToolCallRequest) => boolean | Promise<boolean>) | undefined, call: ToolCallRequest): Promise<boolean> {
  if (typeof tools !== 'function') return tools === true
  return (await tools(structuredClone(call))) === true
}

/** Runs the step's allowed calls at once (refused ones are error results), `afterTool` seeing each; the outcomes in call order. */
async function* runPlanned(init: ToolRunnerInit, step: number, planned: readonly Planned[]): AsyncGenerator<StrategyEvent, ToolOutcome[]> {
  const { hooks, resultChars } = init
  const outcomes: ToolOutcome[] = new Array(planned.length)
  const merge = createMerge<StrategyEvent>()
  for (const [i, plan] of planned.entries()) {
    merge.add(
      (async function* (): AsyncGenerator<StrategyEvent> {
        let outcome = plan.run ? yield* execute(init, plan.call, plan.run) : failed(plan.call, plan.error ?? 'refused')
        if (plan.run && hooks.afterTool) {
          const replaced = await hooks.afterTool(callOf(step, plan.call, plan.run.args), { ok: outcome.ok, content: outcome.content })
          if (replaced && typeof replaced.content === 'string') outcome = { ...outcome, content: bound(replaced.content, resultChars) }
        }
        outcomes[i] = outcome
        yield { type: 'tool-result', callId: plan.call.id, ok: outcome.ok, summary: summaryOf(outcome), chars: outcome.content.length }
      })(),
    )
  }
  yield* merge
  return outcomes
}

/** Runs one call; a failing tool is an error result, never the run's end (unless the run was aborted). */
async function* execute(init: ToolRunnerInit, call: ToolCall, { tool, args }: Run): AsyncGenerator<StrategyEvent, ToolOutcome> {
  const { ctx, resultChars } = init
  init.made.add(callKey(call.name, args))
  if (tool.spec.name === SEARCH && !tool.user) return yield* searchCall(init, call, String(args.query))
  if (tool.spec.name === READ_PAGE && !tool.user) return yield* readPageCall(init, call, String(args.url))
  try {
    // A tool of the user's reaches some other host, not the model's server: a slot of the network lane.
    const value = await ctx.limit(async () => tool.user!.execute(args, { signal: ctx.signal }), { kind: 'network' })
    ctx.signal.throwIfAborted()
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
    const content = bound(text, resultChars)
    return { call, ok: true, content, note: `- ${call.name} ${JSON.stringify(redactArgs(args, tool))}: ${bound(text.replace(/\s+/g, ' '), 200)}` }
  } catch (error) {
    if (ctx.signal.aborted || isAbortError(error)) throw error
    return failed(call, `the tool failed: ${describeError(error).message}`)
  }
}

function summaryOf(outcome: ToolOutcome): string {
  const line = outcome.content.replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}

function callOf(step: number, call: ToolCall, args: Record<string, unknown>): ReactCall {
  return { callId: call.id, name: call.name, args, step }
}
