// `laconic-research`: make an agent, run research, read its events. Everything a strategy author
// needs beyond this lives on `laconic-research/strategy`; providers on `laconic-research/adapters`.
export { createAgent, registerStrategy, strategyNames, type Agent, type AgentOptions } from './agent.js'
// Conversations: the store interface users implement, and the in-memory store (the file store
// lives on laconic-research/node, the Redis store on laconic-research/redis).
export {
  memorySessions,
  type MemorySessionsOptions,
  type Session,
  type SessionOptions,
  type SessionState,
  type SessionStore,
} from './conversations/session-store.js'
export { fromGenerate, type GenerateFunction } from './core/run/generate.js'
export { LaconicError, ProviderError, type ErrorCode, type ProviderErrorDetails } from './core/contracts/laconic-error.js'
export type {
  JsonSchema,
  RetryInfo,
  LLMRequest,
  LLMChunk,
  LLMProvider,
  SearchResult,
  SearchOptions,
  SearchProvider,
  FetchedPage,
  FetchOptions,
  FetchProvider,
  DocumentKind,
  DocumentWarningCode,
  PageWarning,
  ToolSpec,
  ToolChoice,
  ToolCall,
  ChatTurn,
} from './core/contracts/providers.js'
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
export type { ResearchRun } from './core/run/run.js'
export type {
  InterruptRequest,
  InterruptDecision,
  PlanRequest,
  ToolCallRequest,
  OutlineRequest,
  ReportOutline,
  OutlineSection,
} from './core/contracts/interruption.js'
export type { PriorAnswer, ResearchResult } from './core/contracts/result.js'
export type { MemoryEntry, MemoryOptions, MemoryStore, MemoryWritePolicy, RecalledFinding, SessionFact } from './core/contracts/long-term-memory.js'
// Checkpoints: the store interface users implement, and the in-memory store (the file store
// needs node:fs, so it lives on laconic-research/node).
export { memoryCheckpoints, type Checkpoint, type CheckpointStore, type ReleaseLock } from './core/contracts/checkpoint.js'
export type { JsonValue } from './core/util/json-value.js'
