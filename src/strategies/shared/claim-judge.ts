/**
 * The model half of claim verification: one short prompt that asks the `verifier` role whether
 * each of a few sentences is supported by the source text it cites, and a total parser of its
 * reply. Sentences go to the judge a few at a time (`JUDGE_BATCH`), so the sentences the words
 * cannot settle cost one call per batch rather than one each.
 */
import type { JsonSchema, LLMRequest } from '../../core/contracts/providers.js'
import { parseLooseJson } from './json.js'
import { list, object } from './schema.js'

/** What a judge may say of one sentence. */
export type JudgeVerdict = 'supported' | 'partial' | 'unsupported'

/** Sentences one judge call checks at most: four sources' excerpts fit a 4k-token prompt. */
export const JUDGE_BATCH = 4

/** Characters of source text a judge is shown per sentence: the matching passage and what surrounds it. */
export const JUDGE_SOURCE_CHARS = 1500

/** One sentence to judge and the source text it is checked against. */
export interface JudgeItem {
  sentence: string
  source: string
}

const VERDICTS = ['supported', 'partial', 'unsupported'] as const
const judgeSchema: JsonSchema = object('claim_verdicts', { verdicts: list({ type: 'string', enum: [...VERDICTS] }, JUDGE_BATCH) })

/** The judge's system prompt (exported for scripted models in tests and demos). */
export const judgeSystem =
  'You check sentences against the source text each one cites. Judge only by that source text, not by what you know. ' +
  '"supported": the source says it. "partial": the source says part of it and not the rest. ' +
  '"unsupported": the source does not say it, or says otherwise (another number, name, or the opposite). ' +
  'Reply with JSON: {"verdicts": [one of "supported" | "partial" | "unsupported" for each sentence, in order]}.'

/** The judge's request for a few sentences (at most `JUDGE_BATCH`), each with its source text. */
export function judgeRequest(items: readonly JudgeItem[]): Omit<LLMRequest, 'signal' | 'onRetry'> {
  const shown = items.slice(0, JUDGE_BATCH)
  const parts = shown.map(
    ({ sentence, source }, i) => `Sentence ${i + 1}: ${sentence}\nSource text ${i + 1}:\n"""\n${source.slice(0, JUDGE_SOURCE_CHARS)}\n"""`,
  )
  const ask = shown.length === 1 ? 'Does the source text support the sentence?' : `Does each source text support its sentence? Give ${shown.length} verdicts.`
  return {
    system: judgeSystem,
    prompt: `${parts.join('\n\n')}\n\n${ask}`,
    json: judgeSchema,
    maxTokens: 20 + 12 * shown.length,
    temperature: 0,
  }
}

/** Replies are read this far: verdicts come first, and a hostile reply costs no more. */
const READ_CHARS = 2000

/** A verdict word, longest first ("unsupported" before "supported"). */
const VERDICT_WORD = /\b(not\s+supported|unsupported|partially(?:\s+supported)?|partial|supported)\b/gi
/** A bare yes or no, the whole reply. */
const YES_NO = /^\W*(yes|no)\W*$/i

function verdictOf(word: string): JudgeVerdict {
  const w = word.toLowerCase().replace(/\s+/g, ' ')
  if (w === 'supported' || w === 'yes') return 'supported'
  if (w.startsWith('partial')) return 'partial'
  return 'unsupported'
}

/** The verdict a JSON value names: a verdict string, or an object with a `verdict` string. */
function verdictIn(value: unknown): JudgeVerdict | undefined {
  const field = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>).verdict : value
  if (typeof field !== 'string') return undefined
  const word = new RegExp(VERDICT_WORD.source, 'i').exec(field)
  return word ? verdictOf(word[1] as string) : undefined
}

/**
 * The verdicts in a judge's reply for `count` sentences, in order; a sentence it gave no verdict
 * for is undefined. Read from the JSON's `verdicts` list (strings or `{ verdict }` objects), a
 * bare JSON list, or, for one sentence, a `verdict` field; failing JSON, from the verdict words in
 * its text, in order ("1. supported 2. unsupported"), or a bare yes/no for one sentence.
 * Total: any reply (or anything else) gives `count` entries, never an error.
 */
export function parseVerdicts(reply: unknown, count: number): (JudgeVerdict | undefined)[] {
  const none = Array.from({ length: Math.max(0, count) }, (): JudgeVerdict | undefined => undefined)
  if (typeof reply !== 'string' || count < 1) return none
  const text = reply.slice(0, READ_CHARS)
  const json = parseLooseJson(text, 'any')
  if (json !== undefined && json !== null && typeof json === 'object') {
    const listed = Array.isArray(json) ? json : (json as Record<string, unknown>).verdicts
    if (Array.isArray(listed)) return none.map((_, i) => verdictIn(listed[i]))
    if (count === 1) return [verdictIn(json)]
  }
  const words = [...text.matchAll(VERDICT_WORD)].map((match) => verdictOf(match[1] as string))
  if (words.length === 0 && count === 1) {
    const yesNo = YES_NO.exec(text)
    return [yesNo ? verdictOf(yesNo[1] as string) : undefined]
  }
  return none.map((_, i) => words[i])
}
