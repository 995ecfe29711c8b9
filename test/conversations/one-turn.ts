/**
 * One turn of a conversation, as `agent.session(chatId, { store })` runs it: the turn starts from
 * what the store holds (its base), its strategy yields the events the test gives, `meanwhile`
 * changes the store while the turn runs (another turn of the chat, finishing first), and the turn
 * ends as the test says. What the turn merged is then in the store.
 */
import { createAgent, memorySessions, type SessionState, type SessionStore } from '../../src/index.js'
import type { Strategy, StrategyEvent } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'

export const CHAT = 'chat-1'

export interface TurnScript {
  events: StrategyEvent[]
  /** Runs while the turn runs, after it loaded its base. */
  meanwhile?: (store: SessionStore) => Promise<void>
  /** How the turn ends: answered (default), in an error, or aborted by its caller. */
  end?: 'answered' | 'error' | 'aborted'
  question?: string
}

/** Runs the turn over `store`; resolves with the knowledge the turn was given and the state the store holds after it. */
export async function oneTurn(store: SessionStore, script: TurnScript): Promise<{ givenKnowledge: string | undefined; state: SessionState | undefined }> {
  const caller = new AbortController()
  let givenKnowledge: string | undefined
  const strategy: Strategy = {
    name: 'scripted-turn',
    async *run(_question, ctx) {
      givenKnowledge = ctx.input.knowledge
      await script.meanwhile?.(store)
      yield* script.events
      if (script.end === 'error') throw new Error('the turn failed')
      if (script.end === 'aborted') {
        caller.abort()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
      }
    },
  }
  const agent = createAgent({ llm: scriptedLLM({ replies: [] }), strategy })
  const result = await agent.session(CHAT, { store }).research(script.question ?? 'Q?', { signal: caller.signal }).result
  if (result.reason !== (script.end ?? 'answered')) throw new Error(`the turn ended ${result.reason}, not ${script.end ?? 'answered'}`)
  return { givenKnowledge, state: await store.load(CHAT) }
}

/** A store holding `state` for the chat (none when undefined). */
export async function storeWith(state: SessionState | undefined): Promise<SessionStore> {
  const store = memorySessions()
  if (state) await store.save(CHAT, state)
  return store
}
