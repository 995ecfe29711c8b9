/**
 * A ready `useChat` endpoint: one Web-standard `(request) => Promise<Response>` that reads the
 * body the AI SDK's chat transport posts, continues the chat's session with the last user
 * message and answers with the run as a UI message stream. It mounts as is in Hono, a Next.js
 * route handler, Bun or Deno, and in `node:http` through a listener adapter.
 *
 *   const chat = createChatHandler({ agent, store })
 *   export const POST = chat                      // app/api/chat/route.ts
 */
import { describeError, LaconicError } from '../core/contracts/laconic-error.js'
import type { ResearchOptions } from '../core/contracts/strategy-types.js'
import type { ResearchRun } from '../core/run/run.js'
import { emptySessionState, type Session, type SessionOptions, type SessionStore } from '../conversations/session-store.js'
import { readJsonObject } from '../wire/read-body.js'
import { createRequestGuard, type RequestGuard, type RequestGuardOptions } from '../wire/request-guard.js'
import { failure } from './responses.js'
import { readChatTurn } from './chat-request.js'
import { sessionStateFromMessages } from '../conversations/state-from-messages.js'
import { logMaskedError, maskedText, type OnMaskedError } from '../streams/error-masking.js'
import type { ResearchUIChunk } from '../streams/ui-message-chunks.js'
import { toUIMessageStream, toUIMessageStreamResponse } from '../streams/ui-message-stream.js'

/** What the handler needs of an agent: `createAgent()`'s result fits. */
export interface ChatAgent {
  session(chatId: string, options?: SessionOptions): Session
}

/**
 * Options of `createChatHandler`. `host` and `token` are the request guard's
 * (`createRequestGuard`), as the research handler's are; a turn's `POST` passes its `checkStart`.
 */
export interface ChatHandlerOptions extends RequestGuardOptions {
  /** The agent whose sessions answer: `createAgent(...)`. */
  agent: ChatAgent
  /**
   * Where conversations live between turns (memory, a file with `laconic-research/node`, Redis):
   * the client then only needs to send its last message. Without one, each turn's conversation
   * is rebuilt from the messages the client sends (its answers, `source-url` and `data-fact`
   * parts), which trusts the client: see docs/streams.md.
   */
  store?: SessionStore | undefined
  /**
   * Which requests may start a turn (every turn spends the model's keys): a request guard shared
   * with the server that serves the page (`createRequestGuard({ host })`, whose token the page
   * sends), in place of the one `host` and `token` make (so not with them: a `config` error).
   * `false` lets every `POST` through (a server-to-server endpoint behind your own checks).
   * @defaultValue `createRequestGuard({ host, token })`
   */
  guard?: Pick<RequestGuard, 'checkStart'> | false | undefined
  /**
   * The token a turn must carry in the `x-laconic-token` header, or `false` for none (a plain
   * `useChat` page sends no custom header: a same-origin `POST` addressed to `host` is enough).
   * @defaultValue false
   */
  token?: string | false | undefined
  /**
   * The session key for a chat: map the client's chat id to your own (prefix the signed-in
   * user's id, so one user cannot continue another's chat), or return undefined to refuse the
   * request with a 403.
   * @defaultValue the chat id as the client sent it
   */
  chatKey?: ((chatId: string, request: Request) => string | undefined | Promise<string | undefined>) | undefined
  /**
   * Replace what a browser sees of every failure (the run's error, failed searches, warnings
   * carrying a provider's error text, which may name internal URLs) with a short message and
   * its code; the full text goes to `onError`.
   * @defaultValue true
   */
  maskErrors?: boolean | undefined
  /** Where hidden failures go, with the chat id. @defaultValue one `console.error` line each */
  onError?: OnMaskedError | undefined
  /** The largest request body read, in bytes; a larger one gets a 413. @defaultValue 1048576 (1 MiB) */
  maxBodyBytes?: number | undefined
  /** The longest question, in characters. @defaultValue 2000 */
  maxQuestionChars?: number | undefined
  /** Interval of keep-alive comments on a quiet stream, in ms; `0` turns them off. @defaultValue 15000 */
  heartbeatMs?: number | undefined
}

/** One turn of a chat, started and not yet read: merge `stream` into the AI SDK's `createUIMessageStream`. */
export interface StartedChatTurn {
  /** The session key (after `chatKey`). */
  chatId: string
  question: string
  /** The run: it is aborted when the request's signal is, whoever reads the stream. */
  run: ResearchRun
  /** The run as UI message chunks (failures masked as the handler's options say). */
  stream: ReadableStream<ResearchUIChunk>
}

/**
 * The chat endpoint: a `fetch`-style function answering a `useChat` POST with the run's UI
 * message stream, and `turn(request)` for composing your own response (it answers a refusal as
 * a `Response`).
 */
export interface ChatHandler {
  (request: Request): Promise<Response>
  /** Reads and checks the request and starts its turn; a refused request gets its `Response` instead. */
  turn(request: Request): Promise<StartedChatTurn | Response>
}

const DEFAULT_MAX_BODY_BYTES = 1_048_576
const DEFAULT_MAX_QUESTION_CHARS = 2_000

/**
 * A `useChat` endpoint over `agent`'s sessions: reads the chat transport's body (bounded),
 * continues the chat (from `store`, or rebuilt from the messages sent), and streams the turn in
 * the UI message stream protocol. The request's signal aborts the run: a closed tab or `stop()`
 * stops every request of it, also when the stream is merged into `createUIMessageStream`.
 * Refusals are JSON `{code, message}`: 403 (guard, `chatKey`), 405, 413, 415, 400.
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const { agent, store, chatKey, heartbeatMs } = options
  if (typeof agent?.session !== 'function') {
    throw new TypeError('createChatHandler needs an `agent` with `session(chatId, options)`: pass `createAgent(...)`')
  }
  if (options.guard !== undefined && (options.host !== undefined || options.token !== undefined)) {
    // A guard of its own makes its own checks: `host` and `token` beside it would be ignored.
    throw new LaconicError('createChatHandler takes `guard` or `host`/`token`, not both', {
      code: 'config',
      hint: 'give them to the guard: createRequestGuard({ host, token })',
    })
  }
  const guard = options.guard ?? createRequestGuard({ host: options.host, token: options.token ?? false })
  const maskErrors = options.maskErrors ?? true
  const report = options.onError ?? logMaskedError
  const maxBodyBytes = positive(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes')
  const maxQuestionChars = positive(options.maxQuestionChars ?? DEFAULT_MAX_QUESTION_CHARS, 'maxQuestionChars')

  const reportFor =
    (chatId: string): OnMaskedError =>
    (error) =>
      report({ ...error, chatId })

  async function start(request: Request): Promise<Omit<StartedChatTurn, 'stream'> | Response> {
    const refused = guard === false ? undefined : guard.checkStart(request)
    if (refused?.status === 405) return failure(405, 'method-not-allowed', 'send the chat with POST', refused.headers)
    if (refused) return failure(refused.status, 'forbidden', refused.message, refused.headers)
    if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
      return failure(415, 'unsupported-media-type', 'send the chat as JSON, as useChat does')
    }
    const body = await readJsonObject(request, maxBodyBytes).catch(() => 'invalid' as const)
    if (body === 'too-large') return failure(413, 'too-large', `the chat must fit in ${maxBodyBytes} bytes: with a store, send only the last message`)
    if (body === 'invalid') return failure(400, 'bad-request', 'send the chat as a JSON object: { id, messages }')
    const asked = readChatTurn(body, maxQuestionChars)
    if ('refused' in asked) return failure(400, 'bad-request', asked.refused)
    let chatId: string | undefined
    try {
      chatId = chatKey ? await chatKey(asked.chatId, request) : asked.chatId
      if (chatId === undefined) return failure(403, 'forbidden', 'this chat is not yours to continue')
      // Regenerating, the stored answer to this question gives way to the new one (without a
      // store, the client's messages already end before it).
      if (store && asked.regenerate) await forgetLastAnswer(store, chatId, asked.question)
      const session = agent.session(chatId, store ? { store } : { state: sessionStateFromMessages(asked.earlier) })
      // The run follows the request's signal: the AI SDK's stream merges do not pass a cancel on.
      const run = session.research(asked.question, { signal: request.signal } satisfies ResearchOptions)
      return { chatId, question: asked.question, run }
    } catch (error) {
      const { message, code } = describeError(error)
      report({ kind: 'request', code, message, chatId: chatId ?? asked.chatId })
      return failure(500, 'error', maskErrors ? maskedText('request', code) : message)
    }
  }

  const turn = async (request: Request): Promise<StartedChatTurn | Response> => {
    const started = await start(request)
    if (started instanceof Response) return started
    return { ...started, stream: toUIMessageStream(started.run, { maskErrors, onError: reportFor(started.chatId) }) }
  }

  const handler = async (request: Request): Promise<Response> => {
    const started = await start(request)
    if (started instanceof Response) return started
    const init = { maskErrors, onError: reportFor(started.chatId), ...(heartbeatMs === undefined ? {} : { heartbeatMs }) }
    return toUIMessageStreamResponse(started.run, init)
  }
  return Object.assign(handler, { turn })
}

/**
 * Drops the conversation's last answer when it answers `question`: what `regenerate()` replaces.
 * Its facts and sources stay (they were found, and keep their numbers); a chat whose last answer
 * is to another question (the regenerated turn failed, so nothing was stored) is left as it is.
 */
async function forgetLastAnswer(store: SessionStore, chatId: string, question: string): Promise<void> {
  const answers = (await store.load(chatId))?.priorAnswers
  if (answers?.at(-1)?.query !== question) return
  await store.update(chatId, (current) => {
    const state = current ?? emptySessionState()
    return state.priorAnswers.at(-1)?.query === question ? { ...state, priorAnswers: state.priorAnswers.slice(0, -1) } : state
  })
}

function positive(value: number, name: string): number {
  if (!(Number.isSafeInteger(value) && value > 0)) throw new TypeError(`createChatHandler: \`${name}\` must be a positive integer, got ${value}`)
  return value
}
