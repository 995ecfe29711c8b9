/**
 * `modelReranker(llm)`: a model reads the query and the numbered candidates and answers with
 * their numbers, best first. The reply is read by a total parser: any numbers in it, in order,
 * those out of range or repeated dropped; a reply with none leaves the order as it was.
 */
import { type Generation, type ModelPiece, modelCall } from '../core/run/model-call.js'
import { estimateTokens } from '../core/util/text.js'
import { requestText } from '../core/contracts/tool-args.js'
import type { LLMProvider } from '../core/contracts/providers.js'
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
      const request = { system: SYSTEM, prompt: rerankPrompt(query, passages, passageChars), maxTokens, temperature: 0 }
      const report = (usage: Generation['usage'], cost?: number) =>
        opts.onUsage?.({
          kind: 'model',
          role: 'reranker',
          model: llm.model,
          local: llm.local,
          latencyMs: Date.now() - started,
          ...usage,
          ...(cost !== undefined ? { cost } : {}),
        })
      const call = modelCall(llm, { ...request, ...(opts.signal ? { signal: opts.signal } : {}) })
      let streamed = ''
      let step: IteratorResult<ModelPiece, Generation>
      try {
        step = await call.next()
        while (!step.done) {
          streamed += step.value.text
          step = await call.next()
        }
      } catch (error) {
        // Cut off after it streamed, the call is billed for what it sent: reported with its tokens
        // estimated, as a run counts its own calls cut off.
        if (streamed) report({ inputTokens: estimateTokens(requestText(request)), outputTokens: estimateTokens(streamed) })
        throw error
      }
      report(step.value.usage, step.value.cost)
      return parseRanking(step.value.text, passages.length)
    },
  }
}
