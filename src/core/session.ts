import type { Citation } from './events.js'
import type { SessionFact } from './memory.js'
import type { PriorAnswer, ResearchResult } from './result.js'
import type { ResearchRun } from './run.js'
import type { ResearchOptions } from './strategy.js'

// Defined beside long-term memory, which keeps the same findings, so the two never import each other.
export type { SessionFact } from './memory.js'

/**
 * Everything a conversation carries from one turn to the next, as plain JSON (versioned like
 * checkpoints). Citation numbers in `citations` are stable for the whole conversation.
 */
export interface SessionState {
  version: 1
  priorAnswers: PriorAnswer[]
  citations: Citation[]
  knowledge: string
  facts: SessionFact[]
}

/**
 * Where conversations live between turns. `update` is atomic per chat: two turns of one chat
 * that finish at once both land (the second sees the first's write), whatever the store.
 */
export interface SessionStore {
  load(chatId: string): Promise<SessionState | undefined>
  save(chatId: string, state: SessionState): Promise<void>
  delete(chatId: string): Promise<void>
  /** Reads the chat's state (undefined when new), applies `change` and writes the result, atomically. */
  update(chatId: string, change: (current: SessionState | undefined) => SessionState): Promise<SessionState>
}

/** How `agent.session()` finds and keeps a conversation. */
export interface SessionOptions {
  /** Where the conversation is loaded from before each turn and saved to after it. */
  store?: SessionStore
  /** A state to start from (e.g. rebuilt from a chat client's messages) when there is no store. */
  state?: SessionState
}

/**
 * A conversation: each turn carries what earlier turns learned (answers, knowledge, facts and
 * citations, so `[1]` names the same source for the whole conversation).
 */
export interface Session {
  readonly chatId: string
  research(question: string, options?: ResearchOptions): ResearchRun
  answer(question: string, options?: ResearchOptions): Promise<ResearchResult>
  /** The conversation as it stands (from the store, when there is one). */
  state(): Promise<SessionState>
}
