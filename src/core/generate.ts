import type { LLMProvider, LLMRequest } from './providers.js'
import { createThinkFilter, estimateTokens } from './text.js'

export interface Generation {
  /** The visible text, think blocks removed. */
  text: string
  /** Reasoning the backend delivered out of band, if any. */
  reasoning: string
  usage: { inputTokens: number; outputTokens: number }
  /** Dollars, when the provider reported them. */
  cost?: number
}

/** Runs one model call to the end and returns its text, usage and cost. */
export async function generate(llm: LLMProvider, req: LLMRequest): Promise<Generation> {
  const filter = createThinkFilter()
  let text = ''
  let reasoning = ''
  let usage: Generation['usage'] | undefined
  let cost: number | undefined
  for await (const chunk of llm.stream(req)) {
    if (chunk.type === 'text') text += filter.push(chunk.text)
    else if (chunk.type === 'reasoning') reasoning += chunk.text
    else {
      usage = { inputTokens: chunk.inputTokens, outputTokens: chunk.outputTokens }
      if (chunk.cost !== undefined) cost = chunk.cost
    }
  }
  text += filter.flush()
  usage ??= {
    inputTokens: estimateTokens((req.system ?? '') + req.prompt),
    outputTokens: estimateTokens(text),
  }
  return cost === undefined ? { text, reasoning, usage } : { text, reasoning, usage, cost }
}

export type GenerateFunction = (system: string, prompt: string, options: { signal?: AbortSignal }) => Promise<string | { text: string; cost?: number }>

/**
 * Wraps a plain `(system, prompt) => text` function (as laconic's Go LLMProvider was) into an
 * `LLMProvider`. The whole reply arrives as one chunk, since the function does not stream.
 */
export function fromGenerate(fn: GenerateFunction, options: { model?: string } = {}): LLMProvider {
  return {
    ...(options.model !== undefined ? { model: options.model } : {}),
    async *stream(req) {
      req.signal?.throwIfAborted()
      const system = req.system ?? ''
      const reply = await fn(system, req.prompt, req.signal ? { signal: req.signal } : {})
      const { text, cost } = typeof reply === 'string' ? { text: reply, cost: undefined } : reply
      if (text) yield { type: 'text', text }
      yield {
        type: 'usage',
        inputTokens: estimateTokens(system + req.prompt),
        outputTokens: estimateTokens(text),
        ...(cost !== undefined ? { cost } : {}),
      }
    },
  }
}
