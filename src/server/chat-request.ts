/**
 * The body `useChat` posts (AI SDK 6's `DefaultChatTransport`): `{ id, messages, trigger,
 * messageId }` and whatever `body` the page adds. `trigger` is `'submit-message'`, or
 * `'regenerate-message'` from `regenerate()` (the messages then end at the question whose answer
 * is asked again). Read totally: anything else is a refusal with a
 * line saying what to send, never a throw.
 */
import { SAFE_CHAT_ID } from '../conversations/session-store.js'
import { textOf } from '../conversations/state-from-messages.js'

/** A chat turn as the client asked for it: the chat, the question, and the messages before it. */
export interface ChatTurnRequest {
  chatId: string
  question: string
  /** The messages before the question's, as sent (unchecked beyond being objects). */
  earlier: readonly Record<string, unknown>[]
  /** `trigger: 'regenerate-message'` (useChat's `regenerate()`): the answer to the question is asked again, replacing the last one. */
  regenerate: boolean
}

/** The turn asked for, or why the body is not one. */
export function readChatTurn(body: Record<string, unknown>, maxQuestionChars: number): ChatTurnRequest | { refused: string } {
  const { id, messages } = body
  if (typeof id !== 'string' || !SAFE_CHAT_ID.test(id)) {
    return { refused: 'send the chat `id` useChat sends: 1 to 128 letters, digits, _ or - (starting with a letter or digit, as useChat ids are)' }
  }
  if (!Array.isArray(messages)) return { refused: 'send `messages`: the chat so far, as useChat sends it' }
  const objects = messages.filter((message): message is Record<string, unknown> => typeof message === 'object' && message !== null && !Array.isArray(message))
  const last = objects.findLastIndex((message) => message.role === 'user')
  const question = last >= 0 ? textOf(objects[last] as Record<string, unknown>) : ''
  if (!question) return { refused: 'send a user message with text as the last question' }
  if (question.length > maxQuestionChars) return { refused: `ask in at most ${maxQuestionChars} characters (the question has ${question.length})` }
  return { chatId: id, question, earlier: objects.slice(0, last), regenerate: body.trigger === 'regenerate-message' }
}
