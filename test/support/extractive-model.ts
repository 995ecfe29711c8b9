/**
 * A loopback "model" for eval tests, the eval bench and the offline sample: it plays scratchpad's
 * three roles by reading its prompts, with no language model. The planner searches the question
 * once, then answers; the synthesizer keeps the result snippet that shares the most words with
 * the question, citing its number; the finalizer answers with the notes' best line and its citation. Right or wrong depends on
 * what the search found, as with a real model, and it prices its calls like a small hosted model.
 */
import type { LLMRequest } from '../../src/index.js'
import { estimateTokens } from '../../src/strategy.js'
import { type ScriptedLLM, scriptedLLM } from '../../src/testing/index.js'

type ScriptedReply = Exclude<Extract<Parameters<typeof scriptedLLM>[0]['replies'], readonly unknown[]>[number], string>

const STOP = new Set(
  'the a an of in on at to for and or is was were what which who whom when where how why did does do by with from as that this its it be are'.split(' '),
)

function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((word) => word && !STOP.has(word))
}

function overlap(text: string, question: string): number {
  const wanted = new Set(words(question))
  return new Set(words(text).filter((word) => wanted.has(word))).size
}

function best<T>(items: readonly T[], score: (item: T) => number): T | undefined {
  let chosen: T | undefined
  let top = -1
  for (const item of items) {
    const value = score(item)
    if (value > top) {
      top = value
      chosen = item
    }
  }
  return chosen
}

const field = (prompt: string, label: string) => new RegExp(`^${label}: (.*)$`, 'm').exec(prompt)?.[1]?.trim() ?? ''

/** The reply to one request, by the role its system prompt names. */
export function extractiveReply(req: LLMRequest): string {
  const system = req.system ?? ''
  const question = field(req.prompt, 'Question')
  if (/planner/i.test(system)) {
    return req.prompt.includes('(none yet)') ? `Action: Search\nQuery: ${question}` : 'Action: Answer'
  }
  if (/notes/i.test(system) && req.prompt.includes('New results for')) {
    const results = [...req.prompt.matchAll(/^\[(\d+)\] (.*)\n(\S+)\n([\s\S]*?)(?=\n\n\[\d+\] |\n\nRewrite the notes|$)/gm)].map((m) => ({
      n: m[1] ?? '',
      snippet: (m[4] ?? '').trim(),
    }))
    const chosen = best(results, (result) => overlap(result.snippet, question))
    // The notes cite their source by number, as the synthesizer is asked to.
    return chosen ? `${chosen.snippet.replace(/\s*[.!?…]*$/, '')} [${chosen.n}].` : ''
  }
  if (/answer/i.test(system)) {
    const notes = (/Research notes:\n([\s\S]*?)(?:\n\nSources:|\n\n?Answer:|$)/.exec(req.prompt)?.[1] ?? '').replace(
      /\s*\((?:https?|file|local|hotpotqa)[^)]*\)/g,
      '',
    )
    // A line of notes is one source's snippet, ending with the source's number.
    const sentences = notes
      .split('\n')
      .filter((line) => line.trim() && !line.includes('no notes were gathered'))
      .map((line) => ({ sentence: line.replace(/\s*\[\d+\]\.?\s*$/, '').trim(), cited: /\[(\d+)\]\.?\s*$/.exec(line)?.[1] }))
    const chosen = best(sentences, (item) => overlap(item.sentence, question))
    if (!chosen) return 'I could not find the answer.'
    return chosen.cited ? `${chosen.sentence.replace(/[.!?]$/, '')} [${chosen.cited}].` : chosen.sentence
  }
  return 'Action: Answer'
}

/** Options of `extractiveModel`: its name, and the latency of a hosted model to simulate. */
export interface ExtractiveModelOptions {
  model?: string
  latencyMs?: number
  tokenDelayMs?: number
}

/** The extractive loopback model, priced at $0.15 / $0.60 per million tokens. */
export function extractiveModel(options: ExtractiveModelOptions = {}): ScriptedLLM {
  return scriptedLLM({
    model: options.model ?? 'extractive',
    ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    ...(options.tokenDelayMs !== undefined ? { tokenDelayMs: options.tokenDelayMs } : {}),
    replies: (req): ScriptedReply => {
      const text = extractiveReply(req)
      const inputTokens = estimateTokens(`${req.system ?? ''}${req.prompt}`)
      const outputTokens = estimateTokens(text)
      return { text, usage: { inputTokens, outputTokens }, cost: (inputTokens * 0.15 + outputTokens * 0.6) / 1e6 }
    },
  })
}
