// `laconic-research`: make an agent, run research, read its events. Everything a strategy author
// needs beyond this lives on `laconic-research/strategy`; providers on `laconic-research/adapters`.
// A part of a type here is reached through it (`EventOf<'warning'>['code']`,
// `NonNullable<AgentOptions['react']>`, `NonNullable<LLMRequest['tools']>[number]`).
export { createAgent, registerStrategy, strategyNames, type Agent, type AgentOptions } from './agent.js'
// Conversations: the store interface users implement, and the in-memory store (the file store
// lives on laconic-research/node, the Redis store on laconic-research/redis).
export { memorySessions, type Session, type SessionState, type SessionStore } from './conversations/session-store.js'
export { fromGenerate } from './core/run/generate.js'
export { LaconicError, ProviderError, type ErrorCode } from './core/contracts/laconic-error.js'
// The contracts of what an agent takes: the providers you pass it (typed as these, an object
// literal gets its parameters' types from context).
export type {
  LLMRequest,
  LLMChunk,
  LLMProvider,
  SearchResult,
  SearchOptions,
  SearchProvider,
  FetchedPage,
  FetchProvider,
} from './core/contracts/providers.js'
<<<<<<< HEAD
export type * from './core/contracts/events.js'
export type { SourceFilter, SourceFilterPart } from './core/run/allowed-sources.js'
export type { EmbeddingProvider, Embeddings, EmbedOptions } from './core/contracts/embeddings.js'
export type { Cost, ModelPrice, Pricing } from './core/contracts/run-cost.js'
export type { ProviderUsage, UsageReporter } from './core/contracts/provider-usage.js'
export type {
  ModelRole,
  SharedOptions,
  ResearchOptions,
  ResumeOptions,
  Resumption,
  DecideAnswer,
  ReviewSwitches,
  StrategyOutcome,
  Schedule,
  Step,
  SearchOutcome,
  StrategyContext,
  ScopedContext,
  Strategy,
  StrategyDefinition,
} from './core/contracts/strategy-types.js'
export type { ScratchpadOptions } from './strategies/scratchpad/options.js'
export type { GraphReaderOptions } from './strategies/graph-reader/options.js'
export type { ReflectOptions } from './strategies/reflect/options.js'
export type { DeepOptions } from './strategies/deep/options.js'
export type { ReportOptions } from './strategies/report/options.js'
export type { ReactOptions, ReactTool, ReactToolSource, OpenToolSource, ReactCall, ReactEvidence } from './strategies/react/options.js'
=======
export type { EmbeddingProvider } from './core/contracts/embeddings.js'
// What a run gives back: every event is `EventOf<'claim'>`, `EventOf<'run-end'>`, ... of the one
// union. Strategy authors find `StrategyEvent` on laconic-research/strategy.
export type { ResearchEvent, EventOf, EventType } from './core/contracts/events.js'
>>>>>>> e5f8472 (Root entry 110 -> 37 exports, /strategy 41 -> 34: strategy-author types move to laconic-research/strategy; parts of a public type are reached through it (EventOf<'warning'>['code'], NonNullable<AgentOptions['react']>); CHANGELOG before/after tables; tests and docs name only what stays)
export type { ResearchRun } from './core/run/run.js'
export type { ResearchResult } from './core/contracts/result.js'
export type { Cost, Pricing } from './core/contracts/run-cost.js'
export type { ResearchOptions, ResumeOptions } from './core/contracts/strategy-types.js'
// Pausing for a person: the one request/decision pair (plans, tool calls, outlines).
export type { InterruptRequest, InterruptDecision } from './core/contracts/interruption.js'
// Long-term memory: the store interface users implement (`memoryStore` of laconic-research/kb is one).
export type { MemoryStore } from './core/contracts/long-term-memory.js'
// Checkpoints: the store interface users implement, and the in-memory store (the file store
// needs node:fs, so it lives on laconic-research/node).
export { memoryCheckpoints, type Checkpoint, type CheckpointStore } from './core/contracts/checkpoint.js'
