import type { Citation } from '../core/contracts/events.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { SessionFact } from '../core/contracts/long-term-memory.js'
import type { PriorAnswer, ResearchResult } from '../core/contracts/result.js'
import type { ResearchOptions } from '../core/contracts/strategy-types.js'
import type { ResearchRun } from '../core/run/run.js'
import { isObject, readStoredJson } from '../core/util/stored-json.js'

// Defined beside long-term memory, which keeps the same findings, so the two never import each other.
export type { SessionFact } from '../core/contracts/long-term-memory.js'

/** The format of session states this version writes and reads. */
export const SESSION_VERSION = 1

/**
 * Everything a conversation carries from one turn to the next, as plain JSON (versioned like
 * checkpoints). Citation numbers in `citations` are stable for the whole conversation.
 */
export interface SessionState {
  /** The format's version; this release reads and writes 1. */
  version: 1
  /** Each answered turn: its question, its answer (with the conversation's `[n]` numbers) and its sources. */
  priorAnswers: PriorAnswer[]
  /** Every source the conversation has numbered, by number. */
  citations: Citation[]
  /** The latest turn's `result.knowledge` (the summaries of concurrent turns joined). */
  knowledge: string
  /** Every fact the turns found, once each. */
  facts: SessionFact[]
}

/**
 * Where conversations live between turns. `memorySessions()`, `fileSessions(dir)`
 * (laconic-research/node) and `redisSessions(...)` (laconic-research/redis) are built in;
 * implement this for any other store. `update` is atomic per chat: two turns of one chat that
 * finish at once both land (the second sees the first's write), whatever the store.
 */
export interface SessionStore {
  /** The chat's state, or undefined when the chat is new. Throws a `config` LaconicError when it cannot be read. */
  load(chatId: string): Promise<SessionState | undefined>
  /** Replaces the chat's state; a reader never sees a half-written one. */
  save(chatId: string, state: SessionState): Promise<void>
  /** Forgets the chat; nothing happens when there is none. */
  delete(chatId: string): Promise<void>
  /**
   * Reads the chat's state (undefined when new), applies `change` and writes the result,
   * atomically: no other `update` of the chat lands between the read and the write. `change`
   * may be called more than once (a store that retries on a conflict) and must not have effects.
   */
  update(chatId: string, change: (current: SessionState | undefined) => SessionState): Promise<SessionState>
}

/** How `agent.session()` finds and keeps a conversation: a store, or a state to start from, or neither (in memory). */
export interface SessionOptions {
  /** Where the conversation is loaded from before each turn and saved to after it. */
  store?: SessionStore
  /**
   * A state to start from (e.g. rebuilt from a chat client's messages), kept in memory by the
   * session; not with `store`.
   */
  state?: SessionState
}

/**
 * A conversation: each turn carries what earlier turns learned (answers, knowledge, facts and
 * citations, so `[1]` names the same source for the whole conversation). A turn loads the
 * conversation when it starts and merges what it learned into it before its `run-end`.
 */
export interface Session {
  /** The chat's id in its store: the one given, or a random UUID. */
  readonly chatId: string
  /** Starts a turn (lazily, like `agent.research`): it loads the conversation when it is first read or its result awaited. */
  research(question: string, options?: ResearchOptions): ResearchRun
  /** Runs a turn to the end, saved, and returns its result. */
  answer(question: string, options?: ResearchOptions): Promise<ResearchResult>
  /** The conversation as it stands (from the store, when there is one). */
  state(): Promise<SessionState>
}

/** A conversation with nothing in it yet. */
export function emptySessionState(): SessionState {
  return { version: SESSION_VERSION, priorAnswers: [], citations: [], knowledge: '', facts: [] }
}

/** Options of `memorySessions()`. */
export interface MemorySessionsOptions {
  /**
   * The most chats kept: past it, the chat saved least recently is forgotten (a long-running
   * server's bound).
   * @defaultValue no limit
   */
  maxChats?: number
}

/**
 * Sessions in this process's memory: for tests, and for a single-process app. Each chat is kept
 * as JSON text, so a caller's later changes to a state it saved or loaded never leak in.
 */
export function memorySessions(options: MemorySessionsOptions = {}): SessionStore {
  const { maxChats = Number.POSITIVE_INFINITY } = options
  if (!(maxChats >= 1)) throw new LaconicError('`maxChats` must be 1 or more', { code: 'config' })
  const saved = new Map<string, string>()
  const read = (chatId: string) => {
    const text = saved.get(checkChatId(chatId))
    return text === undefined ? undefined : parseSessionState(text, `the session of chat ${chatId}`)
  }
  const write = (chatId: string, state: SessionState) => {
    const text = JSON.stringify(parseSessionState(state, `the session given for chat ${chatId}`))
    // Saved last, so first to go: the map's order is the order of the last saves.
    saved.delete(checkChatId(chatId))
    saved.set(chatId, text)
    for (const oldest of saved.keys()) {
      if (saved.size <= maxChats) break
      saved.delete(oldest)
    }
  }
  return {
    async load(chatId) {
      return read(chatId)
    },
    async save(chatId, state) {
      write(chatId, state)
    },
    async delete(chatId) {
      saved.delete(checkChatId(chatId))
    },
    // Read, change and write with no await between: nothing else of this process runs meanwhile.
    async update(chatId, change) {
      const next = change(read(chatId))
      write(chatId, next)
      return read(chatId) as SessionState
    },
  }
}

/** Chat ids become file names and keys: only these characters, so an id can never name a path elsewhere. */
export const SAFE_CHAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

/** The chat id, checked: 1 to 128 letters, digits, `_` and `-`, starting with a letter or digit. */
export function checkChatId(chatId: string): string {
  if (typeof chatId !== 'string' || !SAFE_CHAT_ID.test(chatId)) {
    throw new LaconicError(`\`${String(chatId).slice(0, 80)}\` is not a chat id`, {
      code: 'config',
      hint: 'chat ids are 1 to 128 letters, digits, _ and -, starting with a letter or digit (a UUID fits)',
    })
  }
  return chatId
}

const badState = (where: string, problem: string) =>
  new LaconicError(`${where} cannot be continued: ${problem}`, { code: 'config', hint: 'the stored session is left as it is; nothing was run' })

const isString = (value: unknown): value is string => typeof value === 'string'
const optional = (value: unknown, ok: (v: unknown) => boolean) => value === undefined || ok(value)

const isPriorAnswer = (v: unknown) =>
  isObject(v) &&
  isString(v.query) &&
  isString(v.answer) &&
  optional(v.confidence, (c) => typeof c === 'number' && Number.isFinite(c)) &&
  optional(v.sources, (s) => Array.isArray(s) && s.every(isString))
const isCitation = (v: unknown) => isObject(v) && Number.isInteger(v.index) && (v.index as number) > 0 && isString(v.url) && optional(v.title, isString)
const isFact = (v: unknown) => isObject(v) && isString(v.text) && isString(v.url) && optional(v.title, isString)

/**
 * Reads a session state from its text (or an already parsed value) and checks its shape. Never
 * a half-read state: a corrupt one, or one from another format version, is a `config`
 * LaconicError naming the problem.
 */
export function parseSessionState(text: unknown, where = 'the session'): SessionState {
  return readStoredJson(text, {
    versionLabel: 'format version',
    version: SESSION_VERSION,
    fields: [
      ['priorAnswers', (v) => Array.isArray(v) && v.every(isPriorAnswer)],
      ['citations', (v) => Array.isArray(v) && v.every(isCitation) && new Set(v.map((c) => c.index)).size === v.length],
      ['knowledge', isString],
      ['facts', (v) => Array.isArray(v) && v.every(isFact)],
    ],
    bad: (problem) => badState(where, problem),
  }) as unknown as SessionState
}
