import pLimit from 'p-limit'
import {
  createMerge,
  describeError,
  isAbortError,
  LaconicError,
  parseToolArgs,
  toolsUnsupported,
  truncateAtSentence,
  type AgentOptions,
  type ReactCall,
  type ReactOptions,
  type ResumeOptions,
  type Schedule,
  type Strategy,
  type StrategyContext,
  type StrategyEvent,
  type StrategyOutcome,
  type ToolApproval,
  type ToolCall,
  type ToolSpec,
} from '../../core/index.js'
import { budgetStop } from '../shared/budget.js'
import { CitationRegistry, rewriteCitations } from '../shared/citations.js'
import { wholeNumberOption } from '../shared/options.js'
import { groundingGate } from './gate.js'
import { bound, Memory, type MemoryState, type ToolOutcome } from './memory.js'
import { answerNowNote, emptyNudge, lastStepNote, protocolNudge, reactSystem, rejectedNote } from './prompts.js'
import { coerceTextArgs, hasProtocolLabel, parseTextStep, textProtocolInstructions, untilObservation } from './text-protocol.js'
import { builtinTools, callKey, READ_PAGE, redactArgs, type RunnableTool, SEARCH, userTools } from './tools.js'

export { coerceTextArgs, finalAnswerFilter, parseTextStep, type TextStep } from './text-protocol.js'

interface Settings {
  maxSteps: number
  concurrency: number
  toolCalls: 'native' | 'text'
  contextTokens: number
  resultChars: number
  maxRepeats: number
  maxRejections: number
  needsApproval: boolean
}

function settingsOf(options: ReactOptions = {}): Settings {
  const toolCalls = options.toolCalls ?? 'native'
  if (toolCalls !== 'native' && toolCalls !== 'text') {
    throw new LaconicError(`\`react.toolCalls\` must be 'native' or 'text', got ${String(toolCalls)}`, { code: 'config' })
  }
  const needsApproval = options.needsApproval ?? false
  if (typeof needsApproval !== 'boolean')
    throw new LaconicError(`\`react.needsApproval\` must be true or false, got ${String(needsApproval)}`, { code: 'config' })
  return {
    maxSteps: wholeNumberOption('react', options, 'maxSteps', 8, 1),
    concurrency: wholeNumberOption('react', options, 'concurrency', 4, 1),
    toolCalls,
    contextTokens: wholeNumberOption('react', options, 'contextTokens', 6000, 500),
    resultChars: wholeNumberOption('react', options, 'resultChars', 3000, 200),
    maxRepeats: wholeNumberOption('react', options, 'maxRepeats', 2, 0),
    maxRejections: wholeNumberOption('react', options, 'maxRejections', 2, 0),
    needsApproval,
  }
}

/** A step whose calls wait for approval: replayed on resume, its calls announced once. */
interface PendingStep {
  step: number
  text: string
  calls: ToolCall[]
  /** The call that waits. */
  waiting: string
  /** Decisions taken on earlier resumes of this step, by call id. */
  decisions: Record<string, ToolApproval>
}

/** What a checkpoint holds of a `react` run. */
interface SavedState extends MemoryState {
  step: number
  protocol: 'native' | 'text'
  rejections: number
  /** Calls already run (name and arguments), and how often a repeat was refused. */
  made: string[]
  repeats: number
  pending?: PendingStep
  /** The model called a tool where it had to answer, and was asked once more. */
  answerAsked?: boolean
}

const ROLE = 'agent'
/** Characters of knowledge carried to a follow-up run. */
const KNOWLEDGE_CHARS = 3000
/** Characters of a tool's error the model sees. */
const ERROR_CHARS = 400

/**
 * ReAct over native tool calls (or the Thought / Action / Final Answer text protocol for models
 * without them): a bounded think → act → observe loop with the built-in `search` and
 * `read_page` and the user's own tools, a flat context, a grounding gate on the answer, and
 * tool calls that can pause the run for approval.
 */
export function react(options: Readonly<AgentOptions> = {}): Strategy {
  const settings = settingsOf(options.react)
  const own = userTools(options.react?.tools)
  const hooks = options.react ?? {}
  return { name: 'react', run: (question, ctx) => runReact(question, ctx, { settings, own, hooks }) }
}

interface Setup {
  settings: Settings
  own: RunnableTool[]
  hooks: ReactOptions
}

async function* runReact(question: string, ctx: StrategyContext, { settings, own, hooks }: Setup): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const saved = ctx.resumed?.state as SavedState | undefined
  const memory = new Memory(saved)
  const state: SavedState = {
    sources: memory.sources,
    steps: memory.steps,
    step: saved?.step ?? 0,
    protocol: saved?.protocol ?? settings.toolCalls,
    rejections: saved?.rejections ?? 0,
    made: saved?.made ?? [],
    repeats: saved?.repeats ?? 0,
    ...(saved?.answerAsked ? { answerAsked: true } : {}),
  }
  const made = new Set(state.made)
  const tools = [...builtinTools({ search: ctx.search !== undefined, fetch: ctx.fetch !== undefined }), ...own]
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]))
  const schedule: Schedule = pLimit(settings.concurrency)
  const knowledge = truncateAtSentence(ctx.input.knowledge?.trim() ?? '', 1500)
  const save = () => ctx.checkpoint({ ...state, made: [...made] } satisfies SavedState)

  const visibleAt = (step: number): RunnableTool[] => {
    if (!hooks.activeTools) return tools
    const allowed = new Set(
      hooks.activeTools(
        step,
        tools.map((t) => t.spec.name),
      ),
    )
    return tools.filter((tool) => allowed.has(tool.spec.name))
  }

  /** Runs a step's calls (checks, approvals, then the allowed ones at once); false when the run pauses. */
  async function* act(step: number, text: string, calls: ToolCall[], pending?: PendingStep): AsyncGenerator<StrategyEvent, boolean> {
    const visible = new Set(visibleAt(step).map((t) => t.spec.name))
    const decisions: Record<string, ToolApproval> = { ...pending?.decisions }
    // A resumed step announces its calls again (its run-start opens a new stream), except those already settled.
    type Planned = { call: ToolCall; run?: { tool: RunnableTool; args: Record<string, unknown> }; error?: string }
    const planned: Planned[] = []
    for (const call of calls) {
      const tool = byName.get(call.name)
      const parsed = parseToolArgs(call.args)
      yield { type: 'tool-call', callId: call.id, name: call.name, args: redactArgs(parsed.ok ? parsed.value : { raw: bound(call.args, 200) }, tool) }
      const decided = yield* decide(step, call, tool, parsed, visible, decisions[call.id])
      if ('suspend' in decided) {
        if (!ctx.input.checkpoints) {
          yield ctx.warning(
            `tool \`${call.name}\` needs approval, but the run has no checkpoint store to pause in; the call is refused`,
            'approval-unavailable',
          )
          planned.push({ call, error: 'this call needs approval, which cannot be given in this run; do without it' })
          continue
        }
        state.pending = { step, text, calls, waiting: call.id, decisions }
        yield ctx.warning(`tool \`${call.name}\` (call ${call.id}) waits for approval: resume the run with \`approval\``, 'approval-needed')
        yield* save()
        return false
      }
      planned.push({ call, ...decided })
    }
    delete state.pending

    const outcomes: ToolOutcome[] = new Array(planned.length)
    const merge = createMerge<StrategyEvent>()
    for (const [i, plan] of planned.entries()) {
      merge.add(
        (async function* (): AsyncGenerator<StrategyEvent> {
          let outcome = plan.run ? yield* execute(plan.call, plan.run.tool, plan.run.args) : failed(plan.call, plan.error ?? 'refused')
          if (plan.run && hooks.afterTool) {
            const replaced = await hooks.afterTool(callOf(step, plan.call, plan.run.args), { ok: outcome.ok, content: outcome.content })
            if (replaced && typeof replaced.content === 'string') outcome = { ...outcome, content: bound(replaced.content, settings.resultChars) }
          }
          outcomes[i] = outcome
          yield { type: 'tool-result', callId: plan.call.id, ok: outcome.ok, summary: summaryOf(outcome), chars: outcome.content.length }
        })(),
      )
    }
    yield* merge
    memory.steps.push({ text, outcomes })
    return true
  }

  /** Whether a call may run: its tool, its arguments, repeats, the caller's `beforeTool`, approval. */
  async function* decide(
    step: number,
    call: ToolCall,
    tool: RunnableTool | undefined,
    parsed: ReturnType<typeof parseToolArgs>,
    visible: ReadonlySet<string>,
    approval: ToolApproval | undefined,
  ): AsyncGenerator<StrategyEvent, { run: { tool: RunnableTool; args: Record<string, unknown> } } | { error: string } | { suspend: true }> {
    if (!tool || !visible.has(call.name)) {
      return { error: `there is no tool \`${bound(call.name, 60)}\` at this step; the tools are: ${[...visible].join(', ') || 'none'}` }
    }
    if (!parsed.ok) return { error: `${parsed.error}; send a JSON object matching the tool's parameters` }
    let args = parsed.value
    const invalid = tool.validate(args)
    if (invalid.length) return { error: `invalid arguments: ${invalid.join('; ')}` }
    const key = callKey(call.name, args)
    if (made.has(key)) {
      state.repeats++
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
    if (verdict?.action === 'suspend' || ((settings.needsApproval || tool.user?.needsApproval) && verdict?.action !== 'allow')) {
      if (!approval) return { suspend: true }
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
      const content = bound(text, settings.resultChars)
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
      const source = memory.source(r.url, r.title, false)
      return { source, text: `[${source.n}] ${r.title}\n${r.url}\n${bound(r.snippet, 400)}` }
    })
    const content = bound(lines.map((l) => l.text).join('\n\n'), settings.resultChars)
    return {
      call,
      ok: true,
      content,
      note: `- search "${query}": ${lines.map((l) => `[${l.source.n}] ${bound(l.source.title ?? l.source.url, 60)}`).join('; ')}`,
    }
  }

  async function* readPage(call: ToolCall, ref: string): AsyncGenerator<StrategyEvent, ToolOutcome> {
    // The model may name a source by its number instead of its URL.
    const number = /^\[?(\d{1,4})\]?$/.exec(ref.trim())
    const url = number ? memory.find(Number(number[1]))?.url : ref.trim()
    if (!url || !/^https?:\/\//i.test(url)) return failed(call, `\`${bound(ref, 100)}\` is not the URL of a source; pass a URL from the search results`)
    const page = yield* ctx.readPage(url, { schedule })
    if (!page) return failed(call, `could not read ${url}`)
    const source = memory.source(page.url || url, page.title, true)
    const head = `[${source.n}] ${page.title ?? ''}\n${source.url}\n`
    return {
      call,
      ok: true,
      content: head + bound(page.text, settings.resultChars),
      note: `- read [${source.n}]: ${bound(page.text.replace(/\s+/g, ' '), 240)}`,
    }
  }

  // A run resumed from a pause first settles the step that waited.
  if (saved?.pending && ctx.resumed?.paused) {
    const pending = saved.pending
    const approval = (ctx.resumed.options as Partial<ResumeOptions>).approval
    const decisions = approval ? { ...pending.decisions, [pending.waiting]: normalizeApproval(approval) } : pending.decisions
    if (!approval) yield ctx.warning(`resumed without \`approval\`: the waiting call ${pending.waiting} is refused`, 'approval-missing')
    const settled = approval ? decisions : { ...decisions, [pending.waiting]: { approved: false } }
    if (!(yield* act(pending.step, pending.text, pending.calls, { ...pending, decisions: settled }))) return { reason: 'paused' }
    yield* save()
  }

  while (true) {
    state.step++
    const forced = state.answerAsked === true || state.step >= settings.maxSteps || state.repeats > settings.maxRepeats || (yield* budgetStop(ctx))
    let textProtocol = state.protocol === 'text'
    const specs: ToolSpec[] = visibleAt(state.step).map((t) => t.spec)
    const system = textProtocol ? `${reactSystem}\n\n${textProtocolInstructions(specs)}` : reactSystem
    const { prompt, turns } = memory.request({ system, question, knowledge, textProtocol, budget: settings.contextTokens })
    const offered = !textProtocol && specs.length > 0
    let reply: { text: string; toolCalls: ToolCall[] }
    try {
      reply = yield* ctx.act(ROLE, {
        system,
        prompt: forced ? `${prompt}\n\n${lastStepNote}` : prompt,
        turns,
        ...(offered ? { tools: specs, toolChoice: forced ? ('none' as const) : ('auto' as const) } : {}),
        temperature: 0,
        maxTokens: 1024,
      })
    } catch (error) {
      if (!textProtocol && toolsUnsupported(error)) {
        yield ctx.warning(`the model cannot call tools (${describeError(error).message}); using the text protocol`, 'tools-unsupported')
        state.protocol = 'text'
        state.step--
        continue
      }
      throw error
    }

    // A server that ignores `tools` (no error, no tool calls) leaves a model that may still write the
    // text protocol's action: take it, and speak the protocol from now on.
    if (!textProtocol && !reply.toolCalls.length) {
      const parsed = parseTextStep(reply.text)
      if (parsed.kind === 'action' && byName.has(parsed.name)) {
        yield ctx.warning('the model wrote a text-protocol action instead of calling a tool; using the text protocol', 'tools-unsupported')
        state.protocol = 'text'
        textProtocol = true
      }
    }

    let calls = forced ? [] : reply.toolCalls
    let draft = reply.text.trim()
    const parsed = textProtocol ? parseTextStep(reply.text) : undefined
    if (parsed) {
      calls = []
      if (parsed.kind === 'action' && !forced) {
        const args = coerceTextArgs(parsed.args, byName.get(parsed.name)?.spec)
        calls = [{ id: ctx.newId('call'), name: parsed.name, args }]
      } else if (parsed.kind === 'answer') draft = parsed.answer
      else if (!forced) {
        yield ctx.warning('the model replied outside the Thought / Action / Final Answer protocol', 'unparseable-output')
        memory.steps.push({ text: reply.text, outcomes: [], followUp: protocolNudge })
        yield* save()
        continue
      }
    }

    if (calls.length) {
      // An Observation the model went on to invent is not kept: the real one follows.
      if (!(yield* act(state.step, textProtocol ? untilObservation(reply.text) : reply.text, calls))) return { reason: 'paused' }
      yield* save()
      continue
    }

    if (!draft && !forced) {
      memory.steps.push({ text: '', outcomes: [], followUp: emptyNudge })
      yield* save()
      continue
    }

    // Told to answer, the model still acts (a text-protocol action or a bare `Thought:`, or tool
    // calls and no text): asked once more, then the answer is what the run gathered, never its text.
    let gathered = false
    const acting = parsed ? parsed.kind === 'action' || (parsed.kind === 'unreadable' && hasProtocolLabel(reply.text)) : reply.toolCalls.length > 0 && !draft
    if (forced && acting) {
      if (!state.answerAsked) {
        state.answerAsked = true
        yield ctx.warning('the model acted instead of answering on its last step; it is asked once more for the answer', 'unparseable-output')
        memory.steps.push({ text: parsed ? untilObservation(reply.text) : '', outcomes: [], followUp: answerNowNote(textProtocol) })
        yield* save()
        continue
      }
      draft = gatheredAnswer(memory)
      gathered = true
      yield ctx.warning(
        `the model acted again instead of answering: ${draft ? 'the answer lists what the run gathered' : 'nothing was gathered to answer from'}`,
        'empty-output',
      )
    }

    const evidence = { sources: memory.sources.map((s) => ({ ...s })) }
    const verdict = draft && !gathered ? await (hooks.finalAnswer ?? groundingGate)(draft, evidence) : true
    if (verdict !== undefined && typeof verdict === 'object' && 'reject' in verdict) {
      const reason = bound(String(verdict.reject), ERROR_CHARS)
      if (state.rejections < settings.maxRejections && !forced) {
        state.rejections++
        yield ctx.warning(`the answer was rejected: ${reason}`, 'answer-rejected')
        memory.steps.push({ text: reply.text, outcomes: [], followUp: rejectedNote(reason) })
        yield* save()
        continue
      }
      yield ctx.warning(`the answer was rejected (${reason}), but no revision is left: it stands as it is`, 'answer-ungrounded')
    }

    yield* answer(draft, ctx, memory, gathered)
    return { reason: forced && state.step >= settings.maxSteps ? 'max-iterations' : 'answered' }
  }
}

/** What the run's tools found, as the answer of a model that would not give one. */
function gatheredAnswer(memory: Memory): string {
  const notes = memory.steps.flatMap((s) => s.outcomes.filter((o) => o.ok).map((o) => o.note))
  if (!notes.length) return ''
  return `No answer was given within the step budget. What the research found:\n${truncateAtSentence(notes.join('\n'), KNOWLEDGE_CHARS)}`
}

/** The answer, released once the gate took it: its `[n]` renumbered for the conversation. */
async function* answer(draft: string, ctx: StrategyContext, memory: Memory, warned: boolean): AsyncGenerator<StrategyEvent> {
  const registry = new CitationRegistry(ctx.input.citations)
  const text = draft
    ? rewriteCitations(draft, (n) => {
        const source = memory.find(n)
        return source ? registry.indexOf(source.url, source.title) : undefined
      })
    : 'No answer was found within the step budget.'
  if (!draft && !warned) yield ctx.warning('the model gave no answer', 'empty-output')
  const notes = memory.steps.flatMap((s) => s.outcomes.filter((o) => o.ok).map((o) => o.note))
  if (notes.length) yield { type: 'knowledge-update', knowledge: truncateAtSentence(notes.join('\n'), KNOWLEDGE_CHARS), iteration: memory.steps.length }
  yield { type: 'answer-token', text }
  yield { type: 'answer', text, citations: registry.citedIn(text) }
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

function normalizeApproval(approval: ToolApproval): ToolApproval {
  if (typeof approval?.approved !== 'boolean') throw new LaconicError('`approval.approved` must be true or false', { code: 'config' })
  return approval
}
