// `laconic-research`: make an agent, run research, read its events. Everything a strategy author
// needs beyond this lives on `laconic-research/strategy`; providers on `laconic-research/adapters`.
export { createAgent, registerStrategy, strategyNames, type Agent, type Session } from './agent.js'
export { fromGenerate, type GenerateFunction } from './core/generate.js'
export { LaconicError, ProviderError, type ErrorCode, type ProviderErrorDetails } from './core/errors.js'
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
} from './core/providers.js'
export type * from './core/events.js'
export type { Cost, ModelPrice, Pricing } from './core/cost.js'
export type {
  ModelRole,
  ScratchpadOptions,
  GraphReaderOptions,
  ReflectOptions,
  DeepOptions,
  ReactOptions,
  ReactTool,
  ReactCall,
  ReactEvidence,
  BeforeToolDecision,
  AgentOptions,
  PriorAnswer,
  ResearchOptions,
  ResearchResult,
  ResumeOptions,
  Resumption,
  PlanProposal,
  ApprovePlan,
  StrategyOutcome,
  Schedule,
  Step,
  SearchOutcome,
  StrategyContext,
  ScopedContext,
  Strategy,
  StrategyFactory,
} from './core/strategy.js'
export type { ResearchRun } from './core/run.js'
export type { InterruptRequest, InterruptDecision, PlanRequest, ToolCallRequest } from './core/interruption.js'
// Checkpoints: the store interface users implement, and the in-memory store (the file store
// needs node:fs, so it lives on laconic-research/node).
export { memoryCheckpoints, type Checkpoint, type CheckpointStore, type JsonValue, type ReleaseLock } from './core/checkpoint.js'
