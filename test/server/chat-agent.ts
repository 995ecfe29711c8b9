/**
 * Test agents for the chat handler: a real agent whose sessions are recorded, a strategy whose
 * model call a test can read, and a model reply a test can gate.
 */
import type { Agent } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { gate } from '../streams/helpers.js'
import type { createChatHandler } from '../../src/server/index.js'

type ChatAgent = Parameters<typeof createChatHandler>[0]['agent']

type SessionOptions = NonNullable<Parameters<Agent['session']>[1]>

/** `agent`, recording every session the handler opens (the chat id and the options). */
export function recordingAgent(agent: Agent): ChatAgent & { opened: { chatId: string; options: SessionOptions | undefined }[] } {
  const opened: { chatId: string; options: SessionOptions | undefined }[] = []
  return {
    opened,
    session(chatId, options) {
      opened.push({ chatId, options })
      return agent.session(chatId, options)
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
