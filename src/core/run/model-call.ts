import type { LLMChunk, LLMProvider, LLMRequest, ToolCall } from '../contracts/providers.js'
import { chainFilters, createThinkFilter, estimateTokens, type TextFilter } from '../util/text.js'
import { requestText } from '../contracts/tool-args.js'

/** A piece of a model's reply as it streams: visible text, or reasoning (never part of the answer). */
export type ModelPiece = { type: 'text'; text: string } | { type: 'reasoning'; text: string }

/** A model call's reply, read to the end: the visible text, the reasoning, and what the call consumed. */
export interface Generation {
  /** The visible text, think blocks removed. */
  text: string
  /** The reasoning: what the backend delivered out of band, and the think blocks taken out of the text. */
  reasoning: string
  /**
   * Each count as reported by the backend, else estimated (4 characters a token); the cached
   * parts of `inputTokens` when the backend named them.
   */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; cacheWriteTokens?: number }
  /** Dollars, when the provider reported them. */
  cost?: number
  /** The tool calls the model made, complete, when the request offered tools. */
  toolCalls?: ToolCall[]
}

/**
 * The one path of every model call (`generate()` and the run context's helpers): streams the
 * reply as visible text and reasoning pieces, as they arrive, and returns the whole generation.
 * Think blocks in the text become reasoning; `filter` (if given) then runs on the visible text.
 */
export async function* modelCall(llm: LLMProvider, req: LLMRequest, filter?: TextFilter): AsyncGenerator<ModelPiece, Generation, undefined> {
  let thought = ''
  const visible = createThinkFilter((text) => (thought += text))
  const textFilter = filter ? chainFilters(visible, filter) : visible
  const generation: Generation = { text: '', reasoning: '', usage: { inputTokens: 0, outputTokens: 0 } }
  let reported: Omit<Extract<LLMChunk, { type: 'usage' }>, 'type'> = {}

  // Reasoning first: a think block that closes in a chunk comes before the text after it.
  function* pieces(text: string): Generator<ModelPiece> {
    if (thought) {
      generation.reasoning += thought
      yield { type: 'reasoning', text: thought }
      thought = ''
    }
    if (text) {
      generation.text += text
      yield { type: 'text', text }
    }
  }

  for await (const chunk of llm.stream(req)) {
    if (chunk.type === 'text') yield* pieces(textFilter.push(chunk.text))
    else if (chunk.type === 'reasoning') {
      thought += chunk.text
      yield* pieces('')
    } else if (chunk.type === 'tool-call') {
      generation.toolCalls ??= []
      generation.toolCalls.push({ id: chunk.id, name: chunk.name, args: chunk.args })
    } else if (chunk.type === 'usage') {
      reported = chunk
      if (chunk.cost !== undefined) generation.cost = chunk.cost
    }
  }
  yield* pieces(textFilter.flush())
  // Only reported counts are trusted; a count the backend left out is estimated, never zero.
  const { cachedInputTokens, cacheWriteTokens } = reported
  generation.usage = {
    inputTokens: reported.inputTokens ?? estimateTokens(requestText(req)),
    outputTokens: reported.outputTokens ?? estimateTokens(generation.text),
    ...(cachedInputTokens !== undefined && { cachedInputTokens }),
    ...(cacheWriteTokens !== undefined && { cacheWriteTokens }),
  }
  return generation
}
