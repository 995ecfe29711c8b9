/**
 * Test agents for the chat handler: an agent whose `session(chatId, { state })` continues from
 * the state it is given (prior answers, citations, and knowledge with the facts in it), recording
 * every session it opens; and strategies whose model calls a test can see and gate.
 */
import type { Agent, Strategy } from '../../src/index.js'
import type { Session, SessionOptions, SessionState } from '../../src/core/session.js'
import type { ChatAgent } from '../../src/streams/index.js'
import { gate } from './helpers.js'

export const EMPTY_STATE: SessionState = { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] }

/** `agent` behind the session contract: each turn starts from the options' state (or an empty one). */
export function statefulAgent(agent: Agent): ChatAgent & { opened: { chatId: string; options: SessionOptions | undefined }[] } {
  const opened: { chatId: string; options: SessionOptions | undefined }[] = []
  return {
    opened,
    session(chatId, options): Session {
      opened.push({ chatId, options })
      const state = options?.state ?? EMPTY_STATE
      const knowledge = [state.knowledge, ...state.facts.map((fact) => `${fact.text} (${fact.url})`)].filter(Boolean).join('\n')
      const carried = { priorAnswers: state.priorAnswers, citations: state.citations, knowledge }
      return {
        chatId,
        research: (question, runOptions) => agent.research(question, { ...carried, ...runOptions }),
        answer: (question, runOptions) => agent.research(question, { ...carried, ...runOptions }).result,
        state: async () => state,
      }
    },
  }
}

/** A strategy answering with one model call's streamed text: the prompt is the knowledge, then the question. */
export const echoStrategy: Strategy = {
  name: 'echo',
  async *run(question, ctx) {
    const text = yield* ctx.streamAnswer('planner', { prompt: `${ctx.input.knowledge ?? ''}\n${question}`.trim() })
    yield { type: 'answer', text, citations: [] }
  },
}

/** A model reply that waits until its call is aborted: `started` opens when the call arrives, `aborted` when its signal fires. */
export function gatedReply() {
  const started = gate()
  const aborted = gate()
  const reply = (req: { signal?: AbortSignal | undefined }) =>
    new Promise<never>((_, reject) => {
      started.open()
      const stop = () => {
        aborted.open()
        reject(req.signal?.reason)
      }
      if (req.signal?.aborted) stop()
      else req.signal?.addEventListener('abort', stop, { once: true })
    })
  return { reply, started: started.promise, aborted: aborted.promise }
}
