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
export type { EmbeddingProvider } from './core/contracts/embeddings.js'
// What a run gives back: every event is `EventOf<'claim'>`, `EventOf<'run-end'>`, ... of the one
// union. Strategy authors find `StrategyEvent` on laconic-research/strategy.
export type { ResearchEvent, EventOf, EventType } from './core/contracts/events.js'
export type { ResearchRun } from './core/run/run.js'
export type { ResearchResult } from './core/contracts/result.js'
export type { Cost, Pricing } from './core/contracts/run-cost.js'
export type { ResearchOptions, ResumeOptions } from './core/contracts/strategy-types.js'
// Pausing for a person: the one request/decision pair (plans, tool calls, outlines), what a
// `decide` callback answers, and which requests wait for one.
export type { DecideAnswer, ReviewSwitches } from './core/contracts/strategy-types.js'
export type { InterruptRequest, InterruptDecision } from './core/contracts/interruption.js'
// Long-term memory: the store interface users implement (`memoryStore` of laconic-research/kb is one).
export type { MemoryStore } from './core/contracts/long-term-memory.js'
// Checkpoints: the store interface users implement, and the in-memory store (the file store
// needs node:fs, so it lives on laconic-research/node).
export { memoryCheckpoints, type Checkpoint, type CheckpointStore } from './core/contracts/checkpoint.js'
