/**
 * `modelReranker(llm)`: a model reads the query and the numbered candidates and answers with
 * their numbers, best first. The reply is read by a total parser: any numbers in it, in order,
 * those out of range or repeated dropped; a reply with none leaves the order as it was.
 */
import { modelCall } from '../core/model-call.js'
import type { LLMProvider } from '../core/index.js'
import type { RerankedPassage, Reranker } from './reranker.js'

/** Options of `modelReranker()`: how much of each passage the model reads. */
export interface ModelRerankerOptions {
  /** Characters of each passage in the prompt. @defaultValue 400 */
  readonly passageChars?: number
  /** The longest reply, in tokens. @defaultValue 200 */
  readonly maxTokens?: number
}

const SYSTEM = 'You rank search results. Reply with the numbers of the passages, most relevant to the query first, as a JSON array of numbers. Nothing else.'

export function rerankPrompt(query: string, passages: readonly string[], passageChars: number): string {
  const listed = passages.map((passage, i) => `[${i + 1}] ${passage.replace(/\s+/g, ' ').trim().slice(0, passageChars)}`).join('\n\n')
  return `Query: ${query}\n\nPassages:\n${listed}\n\nThe passage numbers, most relevant first (e.g. [2, 1, 3]):`
}

/** The passages a reply names, as 0-based indices in the order named. Total: any text gives a list. */
export function parseRanking(reply: string, count: number): RerankedPassage[] {
  const ranked: RerankedPassage[] = []
  const seen = new Set<number>()
  for (const match of String(reply).matchAll(/\d{1,4}/g)) {
    const index = Number(match[0]) - 1
    if (index >= 0 && index < count && !seen.has(index)) {
      seen.add(index)
      ranked.push({ index })
    }
  }
  return ranked
}

/** A `Reranker` that asks `llm` to order the candidates (one model call per search, reported to `onUsage`: a run counts it as a `reranker` model call). */
export function modelReranker(llm: LLMProvider, options: ModelRerankerOptions = {}): Reranker {
  const { passageChars = 400, maxTokens = 200 } = options
  return {
    async rerank(query, passages, opts = {}) {
      if (passages.length < 2) return passages.map((_, index) => ({ index }))
      const started = Date.now()
      const call = modelCall(llm, {
        system: SYSTEM,
        prompt: rerankPrompt(query, passages, passageChars),
        maxTokens,
        temperature: 0,
        ...(opts.signal ? { signal: opts.signal } : {}),
      })
      let step = await call.next()
      while (!step.done) step = await call.next()
      const { usage, cost } = step.value
      opts.onUsage?.({
        kind: 'model',
        role: 'reranker',
        model: llm.model,
        local: llm.local,
        latencyMs: Date.now() - started,
        ...usage,
        ...(cost !== undefined ? { cost } : {}),
      })
      return parseRanking(step.value.text, passages.length)
    },
  }
}
