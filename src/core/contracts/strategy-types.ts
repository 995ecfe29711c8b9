import type { CheckpointStore } from './checkpoint.js'
import type { JsonValue } from '../util/json-value.js'
import type { Cost, Pricing } from './run-cost.js'
import type { Citation, ErrorInfo, Fact, RunEndReason, StrategyEvent, VerifyMode, WarningCode } from './events.js'
import type { PriorAnswer } from './result.js'
import type { FetchProvider, FetchedPage, LLMProvider, LLMRequest, SearchProvider, SearchResult, SourceFilter, ToolCall } from './providers.js'
import type { InterruptDecision, InterruptRequest, ToolCallRequest } from './interruption.js'
import type { MemoryOptions, RecalledFinding } from './long-term-memory.js'
import type { TextFilter } from '../util/text.js'

/** Model roles of the built-in strategies; custom strategies may use their own names. */
export type ModelRole = 'planner' | 'synthesizer' | 'finalizer' | 'extractor' | 'neighbor' | 'verifier' | (string & {})

/**
 * What every strategy shares: the models, providers, search size, spending and pipelining. A
 * strategy's own options are a section of the agent's options (e.g. `graphReader`) that the
 * core passes on unread to the strategy's definition (see `StrategyDefinition`).
 */
export interface SharedOptions {
  /** The model for every role not set in `models`. */
  llm?: LLMProvider
  models?: Partial<Record<ModelRole, LLMProvider>>
  search?: SearchProvider
  fetch?: FetchProvider
  strategy?: string | Strategy
  /** Results asked of each search. @defaultValue 5 */
  searchLimit?: number
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
   * whole reply. A plan put to the caller (`review.plan`) is never searched early.
   * @defaultValue true
   */
  pipelining?: boolean
  /**
   * Long-term memory across runs (off when absent): a run recalls the earlier findings most
   * relevant to its question before it plans, and a finished run is written after `run-end`.
   */
  memory?: MemoryOptions
  /**
   * Check each sentence of the answer against the sources it cites (`claim` events, the result's
   * `claims` and `supportRate`); `'revise'` also rewrites the answer without the unsupported ones.
   * A run's own `verify` wins. See docs/strategies.md. @defaultValue false
   */
  verify?: VerifyMode
  /**
   * Which sources count: domains allowed or denied (with their subdomains) and a window of
   * publication dates, applied to every search's results and page read (a provider that can
   * filter is handed them). A run's own `sources` win. See docs/strategies.md.
   */
  sources?: SourceFilter
  /**
   * The language of the research, a BCP 47 tag (`'de'`, `'pt-BR'`): answers and reports are
   * written in it, and queries too (with English ones where English sources are likely better).
   * Every model call but the claim judge's is told so in one line after its system prompt.
   * A run's own `language` wins. See docs/strategies.md.
   */
  language?: string
}

/** A plan a strategy proposes before it searches: the request of a plan review (`review.plan`). */
export interface PlanProposal {
  text: string
  queries: string[]
  keyElements?: string[]
}

/**
 * Which requests wait for a decision before the run goes on (see docs/checkpoints.md): `plan`
 * puts a plan (a report's outline) to the caller before any search of it, once per run; `tools`
 * puts every tool call (`true`) or those the predicate picks, besides the calls of tools marked
 * `needsApproval`. The predicate sees the call as it would run (sensitive fields included).
 */
export interface ReviewSwitches {
  plan?: boolean
  tools?: boolean | ((call: ToolCallRequest) => boolean | Promise<boolean>)
}

/** What `decide` answers: a decision on the request, or `{ action: 'pause' }` to end the run `paused` with it. */
export type DecideAnswer = InterruptDecision | { action: 'pause' }

/** Per-run options of `agent.research()` and `agent.answer()`: cancellation, checkpoints, prior knowledge and more. */
export interface ResearchOptions {
  signal?: AbortSignal
  /** Save a checkpoint after every strategy step, so `agent.resume(runId, { checkpoints })` can continue the run. */
  checkpoints?: CheckpointStore
  /** Which requests wait for a decision: the plan, tool calls (see `ReviewSwitches`). Off by default. */
  review?: ReviewSwitches
  /**
   * Answers each request `review` turns on, in process, before the run goes on: `approve`,
   * `reject` (with a reason), `edit` (other queries, arguments or outline, checked like the
   * originals), or `{ action: 'pause' }`, which ends the run `paused` with the request for
   * `agent.resume(runId, { checkpoints, decision })`. Without it, every such request pauses the
   * run (which then needs `checkpoints`).
   */
  decide?: (request: InterruptRequest, options: { signal: AbortSignal }) => DecideAnswer | Promise<DecideAnswer>
  /** What a previous run learned (its `result.knowledge`): follow-up questions build on it. */
  knowledge?: string
  priorAnswers?: PriorAnswer[]
  /** Citations already numbered in a conversation, so `[n]` keeps its meaning across questions. */
  citations?: Citation[]
  /**
   * Earlier findings the strategy gets as prior knowledge, each cited as the source it came from
   * (never reported as this run's facts). The agent's `memory` recalls them when this is not set;
   * pass your own (or `[]`) to skip its recall.
   */
  recalled?: RecalledFinding[]
  /** Claim verification for this run, instead of the agent's `verify`. */
  verify?: VerifyMode
  /** Which sources count for this run, instead of the agent's `sources`. */
  sources?: SourceFilter
  /** The language of this run, instead of the agent's `language`. */
  language?: string
}

/** How to continue a run from its checkpoint. */
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
  /** The review switches of the resumed run; by default those it was started with (the predicate of `tools` is not saved: pass it again). */
  review?: ReviewSwitches
  /** Answers the requests the resumed run meets after this one, as `ResearchOptions.decide`. */
  decide?: ResearchOptions['decide']
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

/**
 * What a strategy's generator may return when it ends normally. `paused`: the strategy saved its
 * state (`ctx.checkpoint`) and waits for a decision on `request`; resume continues it.
 */
export type StrategyOutcome = { reason?: Extract<RunEndReason, 'answered' | 'max-iterations'> } | { reason: 'paused'; request: InterruptRequest }

/** Runs work under a concurrency limit: the run's (`ctx.limit`), or the slot a limited task already holds. */
export type Schedule = <T>(work: () => Promise<T>) => Promise<T>

/** A sub-generator: yields events, returns a value (`const x = yield* ctx.complete(...)`). */
export type Step<T> = AsyncGenerator<StrategyEvent, T, undefined>

/** A search step's outcome: the query's id, its results, and the failure when it failed. */
export interface SearchOutcome {
  queryId: string
  results: SearchResult[]
  /** The failure, already reported as a `warning`. */
  error?: ErrorInfo
}

/** What a strategy works with during a run: the question, options, signal, and steps that call the model, search and fetch. */
export interface StrategyContext {
  readonly runId: string
  readonly question: string
  readonly signal: AbortSignal
  readonly options: Readonly<SharedOptions>
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
   * Runs `work` in a slot of the run's one limit, which every search, page read and model call
   * of the context (and of its scopes) takes by itself while in flight. The limit has a lane of
   * `concurrency` slots per kind of request: `'model'` (model calls: what a model's server gets
   * at once) and `'network'` (searches, page reads, anything else). Use it for I/O of the
   * strategy's own (a tool's `execute`, a request outside the context), naming its `kind`
   * (default `'network'`; `'model'` for work that calls a model).
   * `work` gets `inSlot`, which runs nested work in the slot `work` already holds: limit nested
   * work with it, not with `ctx.limit` (nor a context call) of the same kind, which waits for a
   * second slot of the lane, forever once every slot of it is held by work waiting so. (The
   * context's own calls never wait for a slot while holding one.) Work still waiting when the
   * context's signal aborts rejects with the abort error and never starts.
   */
  limit<T>(work: (inSlot: <U>(nested: () => Promise<U>) => Promise<U>) => Promise<T>, opts?: { kind?: 'model' | 'network' }): Promise<T>
  /**
   * One model call to the end; yields `reasoning-token`s as they stream, then `llm-call` and
   * `cost`; returns the visible text. `onText` sees the visible text piece by piece as it
   * arrives (think blocks removed), e.g. to start searching a planner's queries before its
   * reply ends.
   */
  complete(role: ModelRole, req: Omit<LLMRequest, 'signal' | 'onRetry'>, opts?: { onText?: (text: string) => void }): Step<string>
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
  runSearch(query: string, opts?: { parentId?: string; depth?: number; limit?: number }): Step<SearchOutcome>
  /** Deep-reads one page: yields `page` and `cost`, or a `warning` and returns undefined. */
  readPage(url: string, opts?: { queryId?: string }): Step<FetchedPage | undefined>
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
   * yielded agree: every change in `state` has had its events yielded. `state` may be a function
   * that returns it: called (now) only when the run has a checkpoint store, so a state that
   * grows with the run costs nothing to a run that saves none.
   */
  checkpoint(state: unknown): Step<void>
  /** Set when the run resumes from a checkpoint: start from this state instead of from scratch. */
  readonly resumed: Resumption | undefined
  /**
   * Puts `request` to the caller, the one way a strategy asks "may this go ahead?". A plan or an
   * outline is put only when `review.plan` is on, once per run and never in a resumed run (else
   * it is approved as it is); a tool call always (the strategy decides which calls need it: see
   * `review.tools`). Returns the caller's decision from `decide` (checked against the request),
   * or `{ action: 'pause' }` (no `decide`, or it said so): then save the state with `checkpoint`
   * and return `{ reason: 'paused', request }`.
   */
  decide(request: InterruptRequest): Promise<DecideAnswer>
}

/** A child scope of a run (`ctx.scope()`). */
export interface ScopedContext extends StrategyContext {
  /** Aborts every request of this scope (and of its own child scopes); the run goes on. */
  abort(reason?: unknown): void
  /** Detaches the scope from its parent's signal, once its work is over. */
  close(): void
}

/** A research method: how a run plans, searches, reads and answers. Pass one to `createAgent({ strategy })`. */
export interface Strategy {
  readonly name: string
  /**
   * The strategy's own options after validation and defaults, as JSON. Every checkpoint saves
   * them, and a resume under different ones is refused.
   */
  readonly settings?: JsonValue
  /**
   * The size of each lane of a run's one limit (`ctx.limit`): its model calls in flight at once,
   * and its searches and page reads in flight at once. @defaultValue 4
   */
  readonly concurrency?: number
  // biome-ignore lint/suspicious/noConfusingVoidType: a generator without a `return` is inferred as returning void; undefined would reject it
  run(question: string, ctx: StrategyContext): AsyncGenerator<StrategyEvent, StrategyOutcome | void, undefined>
}

/**
 * A strategy as `defineStrategy` takes it: its name, its own section of the agent's options
 * (`optionsKey`, checked and filled by `normalize`), the size of its runs' limit, and `run`,
 * which gets the settings, typed.
 */
export interface StrategyDefinition<Settings = undefined, Options = unknown> {
  /** The name `createAgent({ strategy })` knows it by once registered, and every checkpoint saves. */
  readonly name: string
  /** The key of the agent's options that holds this strategy's own section, e.g. `graphReader`. */
  readonly optionsKey?: string
  /**
   * Checks the section (`undefined` when the agent has none) and fills its defaults. Throws a
   * `config` LaconicError naming the field that is wrong. Runs when the agent is made.
   */
  normalize?(options: Options | undefined): Settings
  /** The size of each lane of a run's one limit, from the settings (e.g. `(s) => s.concurrency`). @defaultValue 4 */
  concurrency?(settings: Settings): number
  /** One run: `settings` is what `normalize` returned (`undefined` without one). */
  // biome-ignore lint/suspicious/noConfusingVoidType: a generator without a `return` is inferred as returning void; undefined would reject it
  run(question: string, ctx: StrategyContext, settings: Settings): AsyncGenerator<StrategyEvent, StrategyOutcome | void, undefined>
}
