import { modelCall, type Generation } from './model-call.js'
import type { LLMProvider, LLMRequest } from '../contracts/providers.js'

export type { Generation } from './model-call.js'

/** Runs one model call to the end and returns its text, reasoning, usage and cost. */
export async function generate(llm: LLMProvider, req: LLMRequest): Promise<Generation> {
  const call = modelCall(llm, req)
  for (;;) {
    const step = await call.next()
    if (step.done) return step.value
  }
}

/** A plain text-generation function, `(system, prompt, { signal }) => text`, that `fromGenerate()` turns into an `LLMProvider`. */
export type GenerateFunction = (system: string, prompt: string, options: { signal?: AbortSignal }) => Promise<string | { text: string; cost?: number }>

/**
 * Wraps a plain `(system, prompt) => text` function (as laconic's Go LLMProvider was) into an
 * `LLMProvider`. The whole reply arrives as one chunk, since the function does not stream.
 */
export function fromGenerate(fn: GenerateFunction, options: { model?: string; local?: boolean } = {}): LLMProvider {
  return {
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.local !== undefined ? { local: options.local } : {}),
    async *stream(req) {
      req.signal?.throwIfAborted()
      const system = req.system ?? ''
      const reply = await fn(system, req.prompt, req.signal ? { signal: req.signal } : {})
      const { text, cost } = typeof reply === 'string' ? { text: reply, cost: undefined } : reply
      if (text) yield { type: 'text', text }
      // The function reports no token counts: leave them out and the run estimates them.
      if (cost !== undefined) yield { type: 'usage', cost }
    },
  }
}
