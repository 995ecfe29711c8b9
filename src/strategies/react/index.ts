import type { StrategyEvent } from '../../core/contracts/events.js'
import type { InterruptDecision } from '../../core/contracts/interruption.js'
import { describeError } from '../../core/contracts/laconic-error.js'
import type { ToolCall, ToolSpec } from '../../core/contracts/providers.js'
import type { Step, StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'
import { toolsUnsupported } from '../../core/contracts/tool-args.js'
import { defineStrategy } from '../../core/run/registry.js'
import { truncateAtSentence } from '../../core/util/text.js'
import { budgetStop } from '../shared/budget.js'
import { citedAnswer } from '../shared/cited-answer.js'
import { restoredState } from '../shared/resume.js'
import { recalledFindings, recalledLines } from '../shared/recalled.js'
import { earlierAnswers, runKnowledge } from './conversation.js'
import { reactState } from './state.js'
import { groundingGate } from './gate.js'
import { bound, ToolNotes, type ToolNotesState } from './tool-notes.js'
import { answerNowNote, emptyNudge, lastStepNote, protocolNudge, reactSystem, rejectedNote } from './prompts.js'
import { coerceTextArgs, hasProtocolLabel, parseTextStep, type TextStep, textProtocolInstructions, untilObservation } from './text-protocol.js'
import { type ReactLimits, type ReactOptions, type ReactSettings, reactSettings } from './options.js'
import { ERROR_CHARS, toolRunner } from './tool-runner.js'
import { builtinTools, openToolSources, READ_PAGE, type ReactToolSource, type RunnableTool, SEARCH } from './tools.js'

type Settings = ReactLimits

/** A step whose calls wait for approval: replayed on resume, its calls announced once. */
interface PendingStep {
  step: number
  text: string
  calls: ToolCall[]
  /** The call that waits. */
  waiting: string
  /** Decisions taken on this step's calls so far (in process, or on earlier resumes), by call id. */
  decisions: Record<string, InterruptDecision>
}

/** What a checkpoint holds of a `react` run. */
interface SavedState extends ToolNotesState {
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

/** How the run ends when a call waits for approval. */
type Paused = Extract<StrategyOutcome, { reason: 'paused' }>

const ROLE = 'agent'
/** Characters of knowledge a run leaves for a follow-up. */
const KNOWLEDGE_CHARS = 3000

/**
 * ReAct over native tool calls (or the Thought / Action / Final Answer text protocol for models
 * without them): a bounded think → act → observe loop with the built-in `search` and
 * `read_page` and the user's own tools, a flat context, a grounding gate on the answer, and
 * tool calls that can pause the run for approval.
 */
export const react = defineStrategy<ReactSettings, ReactOptions>({
  name: 'react',
  optionsKey: 'react',
  normalize: (options) => {
    const settings = reactSettings(options)
    const { limits, tools, sources } = settings
    // What checkpoints save, what shapes the run and is plain data: the limits, the user's tools as the model sees them, and the tool sources by name.
    const toJSON = () => ({
      ...limits,
      tools: tools.map((tool) => tool.spec),
      ...(sources.length ? { toolSources: sources.map((source) => source.name) } : {}),
    })
    return Object.assign(settings, { toJSON })
  },
  concurrency: (settings) => settings.limits.concurrency,
  run: (question, ctx, { limits, tools, sources, hooks }) =>
    sources.length
      ? withToolSources(question, ctx, { settings: limits, own: tools, hooks }, sources)
      : runReact(question, ctx, { settings: limits, own: tools, hooks }),
})

/** The run with its tool sources open: their tools join the user's own, and every source is closed when the run ends, however it ends. */
async function* withToolSources(
  question: string,
  ctx: StrategyContext,
  setup: Setup,
  sources: readonly ReactToolSource[],
): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const taken = [SEARCH, READ_PAGE, ...setup.own.map((tool) => tool.spec.name)]
  const opened = await openToolSources(sources, taken, ctx.signal)
  try {
    for (const problem of opened.problems) yield ctx.warning(problem, 'tool-source-failed')
    return yield* runReact(question, ctx, { ...setup, own: [...setup.own, ...opened.tools] })
  } finally {
    await opened.close()
  }
}

interface Setup {
  settings: Settings
  own: RunnableTool[]
  hooks: ReactSettings['hooks']
}

/** What one run of the loop works with: its setup, its state (what the checkpoint keeps), and its parts. */
interface Loop {
  ctx: StrategyContext
  question: string
  settings: Settings
  hooks: ReactSettings['hooks']
  state: SavedState
  notes: ToolNotes
  made: Set<string>
  tools: RunnableTool[]
  byName: ReadonlyMap<string, RunnableTool>
  /** What the prompt shows before the sources: recalled findings and the caller's knowledge; the conversation's earlier answers. */
  knowledge: string
  earlier: string
  runner: ReturnType<typeof toolRunner>
}

/** A model's reply to a step, read: the calls to run, the draft answer, and the text protocol's reading (when it is spoken). */
interface ReadReply {
  reply: { text: string; toolCalls: ToolCall[] }
  textProtocol: boolean
  calls: ToolCall[]
  draft: string
  parsed: TextStep | undefined
}

async function* runReact(question: string, ctx: StrategyContext, setup: Setup): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const saved = restoredState<SavedState>(ctx, 'react', reactState)
  const loop = openLoop(question, ctx, setup, saved)
  // A run resumed from a pause first settles the step that waited.
  if (saved?.pending && ctx.resumed?.paused) {
    const pending = saved.pending
    const { decision } = ctx.resumed
    if (!decision) yield ctx.warning(`resumed without a \`decision\`: the waiting call ${pending.waiting} is refused`, 'approval-missing')
    const decisions = { ...pending.decisions, [pending.waiting]: decision ?? { action: 'reject' as const } }
    const paused = yield* act(loop, pending.step, pending.text, pending.calls, decisions)
    if (paused) return paused
    yield* save(loop)
  }
  while (true) {
    const outcome = yield* step(loop)
    if (outcome) return outcome
  }
}

/** The loop's state, fresh or restored, and its parts: tools, tool notes, what the prompt shows of earlier turns. */
function openLoop(question: string, ctx: StrategyContext, { settings, own, hooks }: Setup, saved: SavedState | undefined): Loop {
  const notes = new ToolNotes(saved)
  const state: SavedState = {
    sources: notes.sources,
    steps: notes.steps,
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
  // Findings long-term memory recalled are sources the answer may cite (numbered first, so a
  // resumed run numbers them the same), shown with their numbers before the caller's knowledge.
  const recalled = recalledLines(recalledFindings(ctx), (finding) => {
    const source = notes.source(finding.url, finding.title, false)
    notes.saw(source, finding.text)
    return `[${source.n}]`
  })
  const knowledge = [recalled, truncateAtSentence(ctx.input.knowledge?.trim() ?? '', 1500)].filter(Boolean).join('\n')
  // The conversation's earlier answers, their sources numbered next (so the answer may cite them
  // again), within a quarter of the context budget (about 4 characters a token).
  const earlier = earlierAnswers(
    ctx.input.priorAnswers ?? [],
    ctx.input.citations ?? [],
    (citation) => notes.source(citation.url, citation.title, false).n,
    settings.contextTokens,
  )
  const runner = toolRunner({ ctx, notes, tools: byName, made, resultChars: settings.resultChars, hooks, onRepeat: () => state.repeats++ })
  return { ctx, question, settings, hooks, state, notes, made, tools, byName, knowledge, earlier, runner }
}

function save({ ctx, state, made }: Loop): Step<void> {
  return ctx.checkpoint({ ...state, made: [...made] } satisfies SavedState)
}

/** The tools the model may call at a step (`activeTools` picks among them). */
function visibleAt({ hooks, tools }: Loop, step: number): RunnableTool[] {
  if (!hooks.activeTools) return tools
  const allowed = new Set(
    hooks.activeTools(
      step,
      tools.map((t) => t.spec.name),
    ),
  )
  return tools.filter((tool) => allowed.has(tool.spec.name))
}

/** Runs a step's calls; when one waits for a decision, the step is saved as pending and the run pauses with its request. */
async function* act(
  loop: Loop,
  step: number,
  text: string,
  calls: ToolCall[],
  decisions?: Record<string, InterruptDecision>,
): AsyncGenerator<StrategyEvent, Paused | undefined> {
  const { ctx, state } = loop
  const visible = new Set(visibleAt(loop, step).map((t) => t.spec.name))
  const ran = yield* loop.runner.run({ step, text, calls, visible, ...(decisions ? { decisions } : {}) })
  if (ran.ran) {
    delete state.pending
    return undefined
  }
  const { waiting, request } = ran
  state.pending = { step, text, calls, waiting: waiting.id, decisions: ran.decisions }
  yield ctx.warning(`tool \`${waiting.name}\` (call ${waiting.id}) waits for approval: resume the run with a \`decision\``, 'approval-needed')
  yield* save(loop)
  return { reason: 'paused', request }
}

/** One think → act step: the run's outcome when it ends here (answered, or paused), undefined to go on. */
async function* step(loop: Loop): AsyncGenerator<StrategyEvent, StrategyOutcome | undefined> {
  const { ctx, state, settings, notes } = loop
  state.step++
  const forced = state.answerAsked === true || state.step >= settings.maxSteps || state.repeats > settings.maxRepeats || (yield* budgetStop(ctx))
  const read = yield* askModel(loop, forced)
  if (!read) return undefined
  const { reply, textProtocol, calls, parsed } = read
  if (parsed && parsed.kind !== 'action' && parsed.kind !== 'answer' && !forced) {
    yield ctx.warning('the model replied outside the Thought / Action / Final Answer protocol', 'unparseable-output')
    notes.steps.push({ text: reply.text, outcomes: [], followUp: protocolNudge })
    yield* save(loop)
    return undefined
  }
  if (calls.length) {
    // An Observation the model went on to invent is not kept: the real one follows.
    const paused = yield* act(loop, state.step, textProtocol ? untilObservation(reply.text) : reply.text, calls)
    if (!paused) yield* save(loop)
    return paused
  }
  if (!read.draft && !forced) {
    notes.steps.push({ text: '', outcomes: [], followUp: emptyNudge })
    yield* save(loop)
    return undefined
  }
  return yield* settleAnswer(loop, read, forced)
}

/**
 * The step's model call, and its reply read: native tool calls, or the text protocol's action or
 * answer. Undefined when the step is to be asked again (the server has no tool calling: the run
 * speaks the text protocol from now on).
 */
async function* askModel(loop: Loop, forced: boolean): AsyncGenerator<StrategyEvent, ReadReply | undefined> {
  const { ctx, state, settings, notes, byName } = loop
  let textProtocol = state.protocol === 'text'
  const specs: ToolSpec[] = visibleAt(loop, state.step).map((t) => t.spec)
  const system = textProtocol ? `${reactSystem}\n\n${textProtocolInstructions(specs)}` : reactSystem
  const { prompt, turns } = notes.request({
    system,
    question: loop.question,
    earlier: loop.earlier,
    knowledge: loop.knowledge,
    textProtocol,
    budget: settings.contextTokens,
  })
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
    if (textProtocol || !toolsUnsupported(error)) throw error
    yield ctx.warning(`the model cannot call tools (${describeError(error).message}); using the text protocol`, 'tools-unsupported')
    state.protocol = 'text'
    state.step--
    return undefined
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
  const parsed = textProtocol ? parseTextStep(reply.text) : undefined
  if (!parsed) return { reply, textProtocol, calls: forced ? [] : reply.toolCalls, draft: reply.text.trim(), parsed }
  const calls =
    parsed.kind === 'action' && !forced ? [{ id: ctx.newId('call'), name: parsed.name, args: coerceTextArgs(parsed.args, byName.get(parsed.name)?.spec) }] : []
  return { reply, textProtocol, calls, draft: parsed.kind === 'answer' ? parsed.answer : reply.text.trim(), parsed }
}

/**
 * A step without calls: its draft through the gate, then released as the answer; or, rejected,
 * sent back to the model. Told to answer, a model that still acts (a text-protocol action or a
 * bare `Thought:`, or tool calls and no text) is asked once more, then the answer is what the
 * run gathered, never its text.
 */
async function* settleAnswer(loop: Loop, read: ReadReply, forced: boolean): AsyncGenerator<StrategyEvent, StrategyOutcome | undefined> {
  const { ctx, state, settings, notes, hooks } = loop
  const { reply, parsed, textProtocol } = read
  let draft = read.draft
  let gathered = false
  const acting = parsed ? parsed.kind === 'action' || (parsed.kind === 'unreadable' && hasProtocolLabel(reply.text)) : reply.toolCalls.length > 0 && !draft
  if (forced && acting) {
    if (!state.answerAsked) {
      state.answerAsked = true
      yield ctx.warning('the model acted instead of answering on its last step; it is asked once more for the answer', 'unparseable-output')
      notes.steps.push({ text: parsed ? untilObservation(reply.text) : '', outcomes: [], followUp: answerNowNote(textProtocol) })
      yield* save(loop)
      return undefined
    }
    draft = gatheredAnswer(notes)
    gathered = true
    yield ctx.warning(
      `the model acted again instead of answering: ${draft ? 'the answer lists what the run gathered' : 'nothing was gathered to answer from'}`,
      'empty-output',
    )
  }
  const evidence = { sources: notes.sources.map(({ n, url, title, read }) => ({ n, url, ...(title ? { title } : {}), read })) }
  const verdict = draft && !gathered ? await (hooks.finalAnswer ?? groundingGate)(draft, evidence) : true
  if (verdict !== undefined && typeof verdict === 'object' && 'reject' in verdict) {
    const reason = bound(String(verdict.reject), ERROR_CHARS)
    if (state.rejections < settings.maxRejections && !forced) {
      state.rejections++
      yield ctx.warning(`the answer was rejected: ${reason}`, 'answer-rejected')
      notes.steps.push({ text: reply.text, outcomes: [], followUp: rejectedNote(reason) })
      yield* save(loop)
      return undefined
    }
    yield ctx.warning(`the answer was rejected (${reason}), but no revision is left: it stands as it is`, 'answer-ungrounded')
  }
  yield* answer(draft, ctx, notes, gathered)
  return { reason: forced && state.step >= settings.maxSteps ? 'max-iterations' : 'answered' }
}

/** What the run's tools found, as the answer of a model that would not give one. */
function gatheredAnswer(notes: ToolNotes): string {
  const found = notes.steps.flatMap((s) => s.outcomes.filter((o) => o.ok).map((o) => o.note))
  if (!found.length) return ''
  return `No answer was given within the step budget. What the research found:\n${truncateAtSentence(found.join('\n'), KNOWLEDGE_CHARS)}`
}

/** The answer, released once the gate took it: its `[n]` renumbered for the conversation. */
async function* answer(draft: string, ctx: StrategyContext, notes: ToolNotes, warned: boolean): AsyncGenerator<StrategyEvent> {
  // What the run found, then what it was given: the next turn of a conversation starts from it.
  const outcomes = notes.steps.flatMap((s) => s.outcomes)
  if (outcomes.some((o) => o.ok)) {
    yield { type: 'knowledge-update', knowledge: runKnowledge(outcomes, ctx.input.knowledge?.trim() ?? '', KNOWLEDGE_CHARS), iteration: notes.steps.length }
  }
  yield* citedAnswer(ctx, {
    from: { draft },
    source: (n) => notes.find(n),
    empty: { warning: warned ? undefined : 'the model gave no answer', text: () => 'No answer was found within the step budget.' },
  })
}
