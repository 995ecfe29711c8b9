import type { CheckpointStore, JsonValue } from './checkpoint.js'
import type { Cost, Pricing } from './cost.js'
import type { Citation, ErrorInfo, Fact, Report, RunEndReason, StrategyEvent, WarningCode } from './events.js'
import type { FetchProvider, JsonSchema, FetchedPage, LLMProvider, LLMRequest, SearchProvider, SearchResult, ToolCall } from './providers.js'
import type { InterruptDecision, InterruptRequest } from './interruption.js'
import type { TextFilter } from './text.js'

/** Model roles of the built-in strategies; custom strategies may use their own names. */
export type ModelRole = 'planner' | 'synthesizer' | 'finalizer' | 'extractor' | 'neighbor' | (string & {})

export interface ScratchpadOptions {
  /** Hard cap on the knowledge summary, in characters (the synthesizer is told the same budget). @defaultValue 1500 */
  knowledgeChars?: number
  /** Past queries shown to the planner. @defaultValue 8 */
  historySize?: number
}

export interface GraphReaderOptions {
  /** Nodes (queries) explored at most. @defaultValue 8 */
  maxSteps?: number
  /** Nodes explored at once (so exploration model calls in flight), and searches and page fetches in flight at once. @defaultValue 4 */
  concurrency?: number
  /** Pages deep-read per node at most. @defaultValue 2 */
  maxPagesPerNode?: number
  /** Page text kept for extraction, in characters. @defaultValue 4000 */
  pageChars?: number
  /** Condense the notebook before the finalizer when it holds more facts than this. @defaultValue 40 */
  condenseAbove?: number
  /** Facts per condensing batch. @defaultValue 25 */
  condenseBatch?: number
}

export interface ReflectOptions {
  /** Reflection rounds at most. @defaultValue 2 */
  maxIterations?: number
  /** Words in the answer at most. @defaultValue 80 */
  maxWords?: number
  /** Searches in flight at once. @defaultValue 4 */
  concurrency?: number
}

export interface DeepOptions {
  /** Sub-questions at most. @defaultValue 3 */
  maxIterations?: number
  /** `report` (default) writes a structured report; `conversational` a direct cited answer. */
  mode?: 'report' | 'conversational'
  /** Searches per sub-question at most. @defaultValue 3 */
  searchesPerQuestion?: number
  /** Searches and page fetches in flight at once. @defaultValue 4 */
  concurrency?: number
  /** Top results deep-read per sub-question when a fetch provider is set (0: snippets only). @defaultValue 1 */
  readPages?: number
  /** Page text kept per deep-read page, in characters. @defaultValue 3000 */
  pageChars?: number
}

export interface AgentOptions {
  /** The model for every role not set in `models`. */
  llm?: LLMProvider
  models?: Partial<Record<ModelRole, LLMProvider>>
  search?: SearchProvider
  fetch?: FetchProvider
  strategy?: string | Strategy
  /** Scratchpad search iterations at most. @defaultValue 5 */
  maxIterations?: number
  /** Results asked of each search. @defaultValue 5 */
  searchLimit?: number
  scratchpad?: ScratchpadOptions
  graphReader?: GraphReaderOptions
  reflect?: ReflectOptions
  deep?: DeepOptions
  react?: ReactOptions
  /** Dollars per search call; overrides the search provider's own `searchCost`. */
  searchCost?: number
  /** Per-model token prices, used when a provider reports no cost. */
  pricing?: Pricing
  /**
   * A spending limit. Near it (the known dollars spent plus a reserve for the final answer), the
   * strategies stop exploring and answer with what they found (`answered`, with a `warning` of
   * code `budget`); the answer itself is never cut off. Calls whose price is unknown count 0.
   */
  budget?: { usd: number }
  /**
   * Start each search as soon as a planner's reply names its query, while the reply still
   * streams; a query the finished reply does not keep is cancelled. Off: searches wait for the
   * whole reply. A plan that is put to `approvePlan`/`pauseAfterPlan` is never searched early.
   * @defaultValue true
   */
  pipelining?: boolean
}

/** An answer a previous run or the caller already has, so `deep` can skip research it covers. */
export interface PriorAnswer {
  query: string
  answer: string
  confidence?: number
  sources?: string[]
}

/** A plan a strategy proposes before it searches: shown to `approvePlan`, or the request of a run that pauses at it. */
export interface PlanProposal {
  text: string
  queries: string[]
  keyElements?: string[]
}

/**
 * Decides on a plan before any search runs: `true` runs it, `false` ends the run `paused` with
 * the plan as its request (answer it later with `agent.resume(runId, { decision })`), an array
 * runs those queries instead.
 */
export type ApprovePlan = (plan: PlanProposal, options: { signal: AbortSignal }) => boolean | string[] | Promise<boolean | string[]>

export interface ResearchOptions {
  signal?: AbortSignal
  /** Save a checkpoint after every strategy step, so `agent.resume(runId, { checkpoints })` can continue the run. */
  checkpoints?: CheckpointStore
  /** End the run `paused` right after its plan, with the plan as its request (needs `checkpoints`); `agent.resume` with a `decision` answers it. */
  pauseAfterPlan?: boolean
  /** Asked once, after the plan and before any search of it. */
  approvePlan?: ApprovePlan
  /** What a previous run learned (its `result.knowledge`): follow-up questions build on it. */
  knowledge?: string
  priorAnswers?: PriorAnswer[]
  /** Citations already numbered in a conversation, so `[n]` keeps its meaning across questions. */
  citations?: Citation[]
}

/** How to continue a run from its checkpoint. Strategies may read more fields of their own (a tool approval). */
/** A tool of your own for the `react` strategy. */
export interface ReactTool {
  /** Letters, digits, `_` and `-`; not `search` or `read_page` (the built-ins). */
  name: string
  description: string
  /** The arguments as a JSON Schema object; they are validated against it before `execute`. */
  parameters: JsonSchema
  /** Runs the tool; `signal` aborts when the run does. What it returns (text, or JSON) goes back to the model, bounded. */
  execute(args: Record<string, unknown>, options: { signal: AbortSignal }): unknown
  /** Pause the run for approval before each call (needs `checkpoints`), with a `tool-call` request; `agent.resume(runId, { checkpoints, decision })` answers it. */
  needsApproval?: boolean
  /** Argument fields shown as `[redacted]` in `tool-call` events. */
  sensitive?: readonly string[]
}

/** A call the `react` strategy is about to run, as callbacks see it. */
export interface ReactCall {
  callId: string
  name: string
  args: Record<string, unknown>
  /** 1, 2, ... */
  step: number
}

/** What `beforeTool` decides: run the call (nothing, or `allow`), refuse it with a message to the model, change its arguments, or pause the run for approval. */
export type BeforeToolDecision =
  | undefined
  | { action: 'allow' }
  | { action: 'deny'; message: string }
  | { action: 'rewrite'; args: Record<string, unknown> }
  | { action: 'suspend' }

/** The sources a `react` answer may cite, for `finalAnswer`: each `[n]` the model saw. */
export interface ReactEvidence {
  sources: readonly { n: number; url: string; title?: string; read: boolean }[]
}

export interface ReactOptions {
  /** Tools of your own, beside the built-in `search` and `read_page`. */
  tools?: readonly ReactTool[]
  /** Model calls (think → act steps) at most; the last one must answer. @defaultValue 8 */
  maxSteps?: number
  /** Tool calls of one step run at once at most. @defaultValue 4 */
  concurrency?: number
  /** `native` tool calling (falls back to `text` when the server says it has none), or the `text` protocol (Thought / Action / Final Answer). @defaultValue 'native' */
  toolCalls?: 'native' | 'text'
  /** Past tool results are compacted into short notes once the prompt would pass this many tokens. @defaultValue 6000 */
  contextTokens?: number
  /** Characters of a tool result the model sees (a page is cut there). @defaultValue 3000 */
  resultChars?: number
  /** Times the same call (name and arguments) may be refused as a repeat before the loop stops and answers. @defaultValue 2 */
  maxRepeats?: number
  /** Answers the gate may reject before the last one is taken as it is. @defaultValue 2 */
  maxRejections?: number
  /**
   * Every tool call (the built-in `search` and `read_page` too) waits for approval, as a tool
   * marked `needsApproval` does, unless `beforeTool` allows or denies it. Plain data, so the
   * checkpoint keeps it: a run resumed after an interruption still asks. @defaultValue false
   */
  needsApproval?: boolean
  /** The tool names the model may call at a step (all by default). */
  activeTools?: (step: number, names: readonly string[]) => readonly string[]
  beforeTool?: (call: ReactCall) => BeforeToolDecision | Promise<BeforeToolDecision>
  /** Sees each result; may replace the text the model gets. */
  afterTool?: (call: ReactCall, result: { ok: boolean; content: string }) => undefined | { content: string } | Promise<undefined | { content: string }>
  /**
   * Judges an answer: `true` (or nothing) accepts it, `{ reject }` sends the reason back to the
   * model. Replaces the default grounding gate, which rejects an answer that cites no source, or
   * a number that names none of the run's sources.
   */
  finalAnswer?: (answer: string, evidence: ReactEvidence) => undefined | boolean | { reject: string } | Promise<undefined | boolean | { reject: string }>
}

export interface ResumeOptions {
  checkpoints: CheckpointStore
  signal?: AbortSignal
  /**
   * The answer to what a paused run waits for (its `request`): approve it, reject it with a
   * reason, or edit it (other queries for a plan, other arguments for a tool call). A decision
   * that does not fit the request, or for a run that is not paused, is a `config` error. Without
   * one, a paused plan runs as saved and a paused tool call is refused.
   */
  decision?: InterruptDecision
  /** The question the caller expects; a checkpoint for another question is a `config` error. */
  question?: string
}

/** What a resumed run's strategy gets back (`ctx.resumed`). */
export interface Resumption {
  /** What the strategy last saved with `ctx.checkpoint(state)`. */
  readonly state: JsonValue
  /** The run had ended `paused` (waiting for approval) and this resume continues it. */
  readonly paused: boolean
  /** What the paused run waited for, and the caller's answer to it (checked against it), if given. */
  readonly request?: InterruptRequest
  readonly decision?: InterruptDecision
  /** The facts the run had emitted by the checkpoint (superseded ones removed): the notebook to start from. */
  readonly facts: readonly Fact[]
  /** What the run had spent by the checkpoint (the budget counts it). */
  readonly cost: Cost
  readonly options: Readonly<ResumeOptions>
}

export interface ResearchResult {
  answer: string
  citations: Citation[]
  facts: Fact[]
  knowledge: string
  cost: Cost
  reason: RunEndReason
  error?: ErrorInfo
  report?: Report
  confidence?: number
  /** What a `paused` run waits for: answer it with `agent.resume(runId, { checkpoints, decision })`. */
  request?: InterruptRequest
}

/**
 * What a strategy's generator may return when it ends normally. `paused`: the strategy saved its
 * state (`ctx.checkpoint`) and waits for a decision on `request`; resume continues it.
 */
export type StrategyOutcome = { reason?: Extract<RunEndReason, 'answered' | 'max-iterations'> } | { reason: 'paused'; request: InterruptRequest }

/** Runs work under a concurrency limit (a p-limit instance fits). */
export type Schedule = <T>(work: () => Promise<T>) => Promise<T>

/** A sub-generator: yields events, returns a value (`const x = yield* ctx.complete(...)`). */
export type Step<T> = AsyncGenerator<StrategyEvent, T, undefined>

export interface SearchOutcome {
  queryId: string
  results: SearchResult[]
  /** The failure, already reported as a `warning`. */
  error?: ErrorInfo
}

export interface StrategyContext {
  readonly runId: string
  readonly question: string
  readonly signal: AbortSignal
  readonly options: Readonly<AgentOptions>
  readonly input: Readonly<ResearchOptions>
  readonly search: SearchProvider | undefined
  readonly fetch: FetchProvider | undefined
  /** The model for a role, after fallbacks (finalizer → synthesizer → llm, ...). */
  model(role: ModelRole): LLMProvider
  /** A new id, unique in the run, e.g. `q3`. */
  newId(prefix: string): string
  /**
   * Opens a child scope: a context of the same run (ids, cost, options) whose requests get its
   * own signal, aborted when this context's signal aborts or by the scope's `abort()`, e.g. to
   * stop a branch early while the run goes on. `close()` the scope when its work is over.
   */
  scope(): ScopedContext
  /**
   * One model call to the end; yields `reasoning-token`s as they stream, then `llm-call` and
   * `cost`; returns the visible text. `onText` sees the visible text piece by piece as it
   * arrives (think blocks removed), e.g. to start searching a planner's queries before its
   * reply ends.
   */
  complete(role: ModelRole, req: Omit<LLMRequest, 'signal' | 'onRetry'>, opts?: { schedule?: Schedule; onText?: (text: string) => void }): Step<string>
  /**
   * A model call streamed to the user as `answer-token`s (think blocks removed, then `filter`
   * if given; reasoning as `reasoning-token`s); returns the streamed text, which the strategy
   * then reports in its `answer` event.
   */
  streamAnswer(role: ModelRole, req: Omit<LLMRequest, 'signal' | 'onRetry'>, opts?: { filter?: TextFilter }): Step<string>
  /**
   * A model call that may call the tools in `req.tools`: its visible text (through `filter`, if
   * given) streams as the role's `reasoning-token`s, since it is a step of the work and not yet
   * the answer; returns the text and the complete tool calls.
   */
  act(role: ModelRole, req: Omit<LLMRequest, 'signal' | 'onRetry'>, opts?: { filter?: TextFilter }): Step<{ text: string; toolCalls: ToolCall[] }>
  /**
   * One search: yields `query`, then `result` (or a `warning` when it failed) and `cost`.
   * A failing search never throws (unless the run was aborted).
   */
  runSearch(query: string, opts?: { parentId?: string; depth?: number; schedule?: Schedule; limit?: number }): Step<SearchOutcome>
  /** Deep-reads one page: yields `page` and `cost`, or a `warning` and returns undefined. */
  readPage(url: string, opts?: { queryId?: string; schedule?: Schedule }): Step<FetchedPage | undefined>
  /** A `warning` event. */
  warning(message: string, code: WarningCode): StrategyEvent
  /**
   * True once the run's spending plus a reserve for the final answer reaches `budget.usd`:
   * stop exploring and answer. Always false without a budget.
   */
  budgetExhausted(): boolean
  /**
   * Ends a step: `yield* ctx.checkpoint(state)` copies `state` as JSON now, and returns once the
   * runtime has saved it in the run's checkpoint (if the run has a store), so nothing after it
   * runs ahead of the save, even inside a merge. Call it where `state` and the events already
   * yielded agree: every change in `state` has had its events yielded.
   */
  checkpoint(state: unknown): Step<void>
  /** Set when the run resumes from a checkpoint: start from this state instead of from scratch. */
  readonly resumed: Resumption | undefined
  /**
   * Yields the `plan` event, then (once per run, and never in a resumed run) asks the caller:
   * returns the queries to run (the plan's, or edited ones, shown in a second `plan` event),
   * or undefined when the run must pause (`pauseAfterPlan`, or `approvePlan` said no). To pause,
   * save the pending plan with `checkpoint` and return `{ reason: 'paused', request: { kind: 'plan', ...plan } }`.
   */
  reviewPlan(plan: PlanProposal): Step<string[] | undefined>
}

/** A child scope of a run (`ctx.scope()`). */
export interface ScopedContext extends StrategyContext {
  /** Aborts every request of this scope (and of its own child scopes); the run goes on. */
  abort(reason?: unknown): void
  /** Detaches the scope from its parent's signal, once its work is over. */
  close(): void
}

export interface Strategy {
  readonly name: string
  // biome-ignore lint/suspicious/noConfusingVoidType: a generator without a `return` is inferred as returning void; undefined would reject it
  run(question: string, ctx: StrategyContext): AsyncGenerator<StrategyEvent, StrategyOutcome | void, undefined>
}

/** Makes a strategy from the agent's options; registered by name. */
export type StrategyFactory = (options: Readonly<AgentOptions>) => Strategy
