/**
 * The model half of claim verification: a short prompt that asks the `verifier` role whether a
 * passage supports a sentence, and a total parser of its reply.
 */
import type { JsonSchema, LLMRequest } from '../../core/index.js'
import { parseLooseJson } from './json.js'
import { object } from './schema.js'

/** What a judge may say. */
export type JudgeVerdict = 'supported' | 'partial' | 'unsupported'

const judgeSchema: JsonSchema = object('claim_verdict', { verdict: { type: 'string', enum: ['supported', 'partial', 'unsupported'] } })

/** The judge's system prompt (exported for scripted models in tests and demos). */
export const judgeSystem =
  'You check a sentence against the source text it cites. Judge only by the source text, not by what you know. ' +
  '"supported": the source says it. "partial": the source says part of it and not the rest. ' +
  '"unsupported": the source does not say it, or says otherwise (another number, name, or the opposite). ' +
  'Reply with JSON: {"verdict": "supported" | "partial" | "unsupported"}.'

/** Characters of source text a judge is shown: the matching passage and what surrounds it. */
export const JUDGE_SOURCE_CHARS = 1500

/** The judge's request for one sentence and the source text it is checked against. */
export function judgeRequest(sentence: string, source: string): Omit<LLMRequest, 'signal' | 'onRetry'> {
  return {
    system: judgeSystem,
    prompt: `Source text:\n"""\n${source.slice(0, JUDGE_SOURCE_CHARS)}\n"""\n\nSentence: ${sentence}\n\nDoes the source text support the sentence?`,
    json: judgeSchema,
    maxTokens: 40,
    temperature: 0,
  }
}

/** Replies are read this far: a verdict comes first, and a hostile reply costs no more. */
const READ_CHARS = 2000

/** A verdict word, longest first ("unsupported" before "supported"). */
const VERDICT_WORD = /\b(not\s+supported|unsupported|partially(?:\s+supported)?|partial|supported)\b/i
/** A bare yes or no, the whole reply. */
const YES_NO = /^\W*(yes|no)\W*$/i

function verdictOf(word: string): JudgeVerdict {
  const w = word.toLowerCase().replace(/\s+/g, ' ')
  if (w === 'supported' || w === 'yes') return 'supported'
  if (w.startsWith('partial')) return 'partial'
  return 'unsupported'
}

/**
 * The verdict in a judge's reply: the `verdict` field of its JSON, else the first verdict word
 * in its text ("unsupported", "partially supported", "yes", ...). Undefined when it holds none.
 * Total: any string (or anything else) gives a verdict or undefined, never an error.
 */
export function parseVerdict(reply: unknown): JudgeVerdict | undefined {
  if (typeof reply !== 'string') return undefined
  const text = reply.slice(0, READ_CHARS)
  const json = parseLooseJson(text, 'object')
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const field = (json as Record<string, unknown>).verdict
    if (typeof field === 'string') {
      const word = VERDICT_WORD.exec(field)
      return word ? verdictOf(word[1] as string) : undefined
    }
  }
  const word = VERDICT_WORD.exec(text) ?? YES_NO.exec(text)
  return word ? verdictOf(word[1] as string) : undefined
}
