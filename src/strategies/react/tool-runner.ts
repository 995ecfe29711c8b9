/**
 * Runs the tool calls of one `react` step: each call is announced, checked (its tool, its
 * arguments, repeats, the caller's `beforeTool`, approval), and the allowed ones run at once
 * under the run's limiter; their results go into the notes as the step's outcomes. A call that
 * waits for approval stops the step before anything runs, so the whole step is replayed on resume.
 */
import type { StrategyEvent } from '../../core/contracts/events.js'
import type { ToolCallRequest } from '../../core/contracts/interruption.js'
import { describeError, isAbortError, LaconicError } from '../../core/contracts/laconic-error.js'
import type { ToolCall } from '../../core/contracts/providers.js'
import type { Schedule, StrategyContext } from '../../core/contracts/strategy-types.js'
import { parseToolArgs } from '../../core/contracts/tool-args.js'
import { createMerge } from '../../core/util/merge.js'
import { documentPassages, passageTitle } from '../../documents/passages.js'
import { pageFinding, searchFindings } from './conversation.js'
import { bound, type ToolNotes, type ToolOutcome } from './tool-notes.js'
import type { ReactCall, ReactOptions } from './options.js'
import { callKey, READ_PAGE, redactArgs, type RunnableTool, SEARCH } from './tools.js'

/** How a call that waited for approval was decided, as a checkpoint keeps it (by call id). */
export interface CallApproval {
  approved: boolean
  /** Run the call with these arguments instead (validated like the model's). */
  arguments?: Record<string, unknown>
  /** Told to the model when the call is refused. */
  message?: string
}

export interface ToolRunnerInit {
  ctx: StrategyContext
  notes: ToolNotes
  /** Every tool the run has, by name (a step may show the model fewer). */
  tools: ReadonlyMap<string, RunnableTool>
  /** The run's limiter: tool calls of a step run at once within it. */
  schedule: Schedule
  /** Calls already made (`callKey`), kept in the checkpoint: a repeat is refused. */
  made: Set<string>
  /** Characters of a result the model sees. */
  resultChars: number
  /** Every call waits for approval (`react.needsApproval`). */
  needsApproval: boolean
  hooks: Pick<ReactOptions, 'beforeTool' | 'afterTool'>
  /** The model repeated a call it already made. */
  onRepeat(): void
}

/** The calls of one step, their approvals so far, and the tools the model saw at it. */
export interface StepCalls {
  step: number
  text: string
  calls: readonly ToolCall[]
  /** The tool names the model was offered at this step. */
  visible: ReadonlySet<string>
  /** Approvals taken on earlier resumes of this step, by call id. */
  approvals?: Readonly<Record<string, CallApproval>>
}

/**
 * How a step's calls went: all run (or refused), or stopped at a call that waits for approval:
 * the request that says so (its arguments as they would run, sensitive fields redacted).
 */
export type StepRun = { ran: true } | { ran: false; waiting: ToolCall; request: ToolCallRequest; approvals: Record<string, CallApproval> }

/** Characters of a tool's error the model sees. */
export const ERROR_CHARS = 400

type Verdict = { run: { tool: RunnableTool; args: Record<string, unknown> } } | { error: string } | { suspend: Record<string, unknown> }

export function toolRunner(init: ToolRunnerInit): { run(step: StepCalls): AsyncGenerator<StrategyEvent, StepRun> } {
  const { ctx, notes, tools, schedule, made, resultChars, hooks } = init

  /** Whether a call may run: its tool, its arguments, repeats, the caller's `beforeTool`, approval. */
  async function* decide(
    step: number,
    call: ToolCall,
    tool: RunnableTool | undefined,
    parsed: ReturnType<typeof parseToolArgs>,
    visible: ReadonlySet<string>,
    approval: CallApproval | undefined,
  ): AsyncGenerator<StrategyEvent, Verdict> {
    if (!tool || !visible.has(call.name)) {
      return { error: `there is no tool \`${bound(call.name, 60)}\` at this step; the tools are: ${[...visible].join(', ') || 'none'}` }
    }
    if (!parsed.ok) return { error: `${parsed.error}; send a JSON object matching the tool's parameters` }
    let args = parsed.value
    const invalid = tool.validate(args)
    if (invalid.length) return { error: `invalid arguments: ${invalid.join('; ')}` }
    const key = callKey(call.name, args)
    if (made.has(key)) {
      init.onRepeat()
      yield ctx.warning(`the model repeated a call it already made (${bound(key, 120)})`, 'repeated-call')
      return { error: 'you already made this exact call; its result is above or in the notes. Use it, or try something different.' }
    }
    const verdict = hooks.beforeTool ? await hooks.beforeTool(callOf(step, call, args)) : undefined
    if (verdict?.action === 'deny') return { error: `refused: ${bound(String(verdict.message), ERROR_CHARS)}` }
    if (verdict?.action === 'rewrite') {
      args = verdict.args
      const wrong = tool.validate(args)
      if (wrong.length) throw new LaconicError(`beforeTool rewrote \`${call.name}\` with arguments its schema refuses: ${wrong.join('; ')}`, { code: 'config' })
    }
    if (verdict?.action === 'suspend' || ((init.needsApproval || tool.user?.needsApproval) && verdict?.action !== 'allow')) {
      if (!approval) return { suspend: args }
      if (!approval.approved) return { error: `the user refused this call${approval.message ? `: ${bound(approval.message, ERROR_CHARS)}` : ''}` }
      if (approval.arguments !== undefined) {
        const wrong = tool.validate(approval.arguments)
        if (wrong.length) throw new LaconicError(`the approved arguments of \`${call.name}\` do not match its schema: ${wrong.join('; ')}`, { code: 'config' })
        args = approval.arguments
      }
    }
    return { run: { tool, args } }
  }

  /** Runs one call; a failing tool is an error result, never the run's end (unless the run was aborted). */
  async function* execute(call: ToolCall, tool: RunnableTool, args: Record<string, unknown>): AsyncGenerator<StrategyEvent, ToolOutcome> {
    made.add(callKey(call.name, args))
    if (tool.spec.name === SEARCH && !tool.user) return yield* search(call, String(args.query))
    if (tool.spec.name === READ_PAGE && !tool.user) return yield* readPage(call, String(args.url))
    try {
      const value = await schedule(async () => tool.user!.execute(args, { signal: ctx.signal }))
      ctx.signal.throwIfAborted()
      const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
      const content = bound(text, resultChars)
      return { call, ok: true, content, note: `- ${call.name} ${JSON.stringify(redactArgs(args, tool))}: ${bound(text.replace(/\s+/g, ' '), 200)}` }
    } catch (error) {
      if (ctx.signal.aborted || isAbortError(error)) throw error
      return failed(call, `the tool failed: ${describeError(error).message}`)
    }
  }

  async function* search(call: ToolCall, query: string): AsyncGenerator<StrategyEvent, ToolOutcome> {
    const outcome = yield* ctx.runSearch(query, { schedule })
    if (outcome.error) return failed(call, `search failed: ${outcome.error.message}`)
    if (!outcome.results.length) return { call, ok: true, content: 'No results.', note: `- search "${query}": no results` }
    const lines = outcome.results.map((r) => {
      const source = notes.source(r.url, r.title, false)
      const snippet = bound(r.snippet, 400)
      notes.saw(source, snippet)
      return { source, snippet: r.snippet, text: `[${source.n}] ${r.title}\n${r.url}\n${snippet}` }
    })
    const content = bound(lines.map((l) => l.text).join('\n\n'), resultChars)
    return {
      call,
      ok: true,
      content,
      note: `- search "${query}": ${lines.map((l) => `[${l.source.n}] ${bound(l.source.title ?? l.source.url, 60)}`).join('; ')}`,
      finding: searchFindings(lines),
    }
  }

  async function* readPage(call: ToolCall, ref: string): AsyncGenerator<StrategyEvent, ToolOutcome> {
    // The model may name a source by its number instead of its URL.
    const number = /^\[?(\d{1,4})\]?$/.exec(ref.trim())
    const url = number ? notes.find(Number(number[1]))?.url : ref.trim()
    if (!url || !/^https?:\/\//i.test(url)) return failed(call, `\`${bound(ref, 100)}\` is not the URL of a source; pass a URL from the search results`)
    const page = yield* ctx.readPage(url, { schedule })
    if (!page) return failed(call, `could not read ${url}`)
    // What the page holds for the question: a document's pages each a source of their own.
    const passages = documentPassages({ ...page, url: page.url || url }, ctx.question, resultChars)
    if (passages.length === 0) passages.push({ url: page.url || url, text: '' })
    const shown = passages.map((passage) => {
      const title = page.title ? passageTitle(page.title, passage) : undefined
      const source = notes.source(passage.url, title, true)
      notes.saw(source, passage.text)
      return { source, title, text: passage.text }
    })
    const text = shown.map((s) => s.text).join(' ')
    return {
      call,
      ok: true,
      content: shown.map((s) => `[${s.source.n}] ${s.title ?? ''}\n${s.source.url}\n${s.text}`).join('\n\n'),
      note: `- read ${shown.map((s) => `[${s.source.n}]`).join(' ')}: ${bound(text.replace(/\s+/g, ' '), 240)}`,
      finding: shown.map((s) => pageFinding(s.source, s.text)).join('\n'),
    }
  }

  return {
    async *run({ step, text, calls, visible, approvals: given }) {
      const approvals: Record<string, CallApproval> = { ...given }
      // A resumed step announces its calls again (its run-start opens a new stream).
      type Planned = { call: ToolCall; run?: { tool: RunnableTool; args: Record<string, unknown> }; error?: string }
      const planned: Planned[] = []
      for (const call of calls) {
        const tool = tools.get(call.name)
        const parsed = parseToolArgs(call.args)
        yield { type: 'tool-call', callId: call.id, name: call.name, args: redactArgs(parsed.ok ? parsed.value : { raw: bound(call.args, 200) }, tool) }
        const decided = yield* decide(step, call, tool, parsed, visible, approvals[call.id])
        if ('suspend' in decided) {
          if (!ctx.input.checkpoints) {
            yield ctx.warning(
              `tool \`${call.name}\` needs approval, but the run has no checkpoint store to pause in; the call is refused`,
              'approval-unavailable',
            )
            planned.push({ call, error: 'this call needs approval, which cannot be given in this run; do without it' })
            continue
          }
          const request: ToolCallRequest = { kind: 'tool-call', callId: call.id, name: call.name, args: redactArgs(decided.suspend, tool) }
          return { ran: false, waiting: call, request, approvals }
        }
        planned.push({ call, ...decided })
      }

      const outcomes: ToolOutcome[] = new Array(planned.length)
      const merge = createMerge<StrategyEvent>()
      for (const [i, plan] of planned.entries()) {
        merge.add(
          (async function* (): AsyncGenerator<StrategyEvent> {
            let outcome = plan.run ? yield* execute(plan.call, plan.run.tool, plan.run.args) : failed(plan.call, plan.error ?? 'refused')
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
      notes.steps.push({ text, outcomes })
      return { ran: true }
    },
  }
}

function failed(call: ToolCall, error: string): ToolOutcome {
  const content = bound(`Error: ${error}`, ERROR_CHARS)
  return { call, ok: false, content, note: `- ${bound(call.name, 60)}: failed (${bound(error, 120)})` }
}

function summaryOf(outcome: ToolOutcome): string {
  const line = outcome.content.replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}

function callOf(step: number, call: ToolCall, args: Record<string, unknown>): ReactCall {
  return { callId: call.id, name: call.name, args, step }
}
