import { describeError, LaconicError } from '../core/contracts/laconic-error.js'
import type { ResearchOptions } from '../core/contracts/strategy-types.js'
import type { RunInit } from '../core/run/prepared-run.js'
import { createRun } from '../core/run/run.js'
import { checkChatId, emptySessionState, memorySessions, parseSessionState, type Session, type SessionOptions, type SessionState } from './session-store.js'
import { knowledgeOf, mergeTurn } from './merge-turn.js'

/**
 * A conversation over `store` (or, without one, over a store of its own in memory, seeded with
 * `options.state`). Each turn is a deferred run: it loads the conversation when first read,
 * starts with what the conversation knows, and merges its result in (`store.update`) before its
 * `run-end`, so whoever saw the end of a turn finds it in the store.
 */
export function createSession(
  chatId: string | undefined,
  options: SessionOptions | undefined,
  runInit: (question: string, input: ResearchOptions) => RunInit,
): Session {
  const id = chatId === undefined ? crypto.randomUUID() : checkChatId(chatId)
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new LaconicError('session options must be an object', { code: 'config', hint: 'e.g. agent.session(chatId, { store })' })
  }
  const { store: given, state } = options ?? {}
  if (given && state) {
    throw new LaconicError('a session takes a `store` or a `state`, not both', {
      code: 'config',
      hint: 'with a store, the conversation is loaded from it; save a rebuilt state to the store first if that is what you mean',
    })
  }
  if (given && ['load', 'save', 'delete', 'update'].some((m) => typeof (given as unknown as Record<string, unknown>)[m] !== 'function')) {
    throw new LaconicError('`store` is not a SessionStore', { code: 'config', hint: 'pass memorySessions(), fileSessions(dir) or redisSessions(...)' })
  }
  const store = given ?? memorySessions()
  // Checked now, so a bad state fails where it was passed, not at the first turn.
  const seeded = state && !given ? store.save(id, parseSessionState(state, 'the session state given')) : Promise.resolve()

  // Checked again here: a store of the user's own may hand back anything.
  const load = async (): Promise<SessionState> => {
    await seeded
    const loaded = await store.load(id)
    return loaded === undefined ? emptySessionState() : parseSessionState(loaded, `the session of chat ${id}`)
  }

  const research = (question: string, input: ResearchOptions = {}) => {
    const init = runInit(question, input)
    return createRun({
      runId: crypto.randomUUID(),
      prepare: async () => {
        const base = await load()
        const givenKnowledge = knowledgeOf(base)
        // What the caller passes for this turn wins over what the conversation carries.
        const carried: ResearchOptions = { knowledge: givenKnowledge, priorAnswers: base.priorAnswers, citations: base.citations }
        return {
          ...init,
          input: { ...carried, ...input },
          onEnd: async (result) => {
            try {
              await store.update(id, (current) => mergeTurn(current, { question: init.question, base, givenKnowledge, result }))
              return undefined
            } catch (error) {
              return [{ type: 'warning', code: 'session-failed', message: `saving the turn to chat ${id} failed: ${describeError(error).message}` }]
            }
          },
        }
      },
    })
  }

  return {
    chatId: id,
    research,
    answer: (question, input) => research(question, input).result,
    state: load,
  }
}
