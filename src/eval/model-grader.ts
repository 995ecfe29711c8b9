/**
 * The model grader: SimpleQA's three grades (correct, incorrect, not attempted), asked of a
 * grader model that is not the agents' own, and read from its reply by a total parser.
 */
import type { LLMProvider } from '../core/contracts/providers.js'
import { callDollars } from '../core/contracts/run-cost.js'
import { stripThink } from '../core/util/text.js'

/** A model grader's verdict on one answer. */
export type ModelGrade = 'correct' | 'incorrect' | 'not-attempted'

/** The grading prompt: the grades' meaning with short examples, then the case (after SimpleQA's rubric). */
export function graderPrompt(question: string, answers: readonly string[], answer: string): string {
  return `You grade answers to factual questions. Compare the predicted answer with the gold target and give one grade:

A) CORRECT: the predicted answer states the gold target (or an accepted alias) and nothing that contradicts it. Wording, order, capitalisation and extra correct detail do not matter; a number must match to the precision the gold target gives.
B) INCORRECT: the predicted answer states something that contradicts the gold target, even with hedging ("I think it is X" where X is wrong), or gives several candidates one of which is wrong.
C) NOT_ATTEMPTED: the predicted answer does not state the gold target and does not contradict it: "I don't know", "I could not find this", or an answer about something else.

Examples (gold target "Malia and Sasha"): "sasha and malia obama" is CORRECT; "Malia, Sasha and Susan" is INCORRECT; "I could not find who his children are" is NOT_ATTEMPTED.

Question: ${question}
Gold target: ${answers.join(' | ')}
Predicted answer: ${answer || '(empty)'}

Reply with one letter: A, B or C.`
}

const WORDS: readonly [RegExp, ModelGrade][] = [
  [/\bNOT[\s_-]?ATTEMPTED\b/i, 'not-attempted'],
  [/\bINCORRECT\b/i, 'incorrect'],
  [/\bCORRECT\b/i, 'correct'],
]
const LETTERS: Record<string, ModelGrade> = { A: 'correct', B: 'incorrect', C: 'not-attempted' }

/**
 * Reads a grader's reply: a letter (`A`, `(B)`, `C)`, `Grade: C`) or a grade's name; think blocks
 * are skipped. Total: `undefined` when the reply names no grade, never an exception.
 */
export function parseGrade(reply: string): ModelGrade | undefined {
  const text = stripThink(String(reply)).trim()
  const letter = /^(?:\*\*)?(?:grade\s*[:=]?\s*)?[([]?([ABC])(?:[)\].:*]|\s|$)/i.exec(text)?.[1]
  if (letter && (letter === letter.toUpperCase() || text.length <= 3)) return LETTERS[letter.toUpperCase()]
  let first: { at: number; grade: ModelGrade } | undefined
  for (const [pattern, grade] of WORDS) {
    const at = text.search(pattern)
    // NOT_ATTEMPTED and INCORRECT contain CORRECT: at the same place, the longer name wins (it comes first).
    if (at >= 0 && (first === undefined || at < first.at)) first = { at, grade }
  }
  if (first) return first.grade
  const lone = /(?:^|[\s(:])([ABC])(?:[\s).:]|$)/.exec(text)?.[1]
  return lone ? LETTERS[lone] : undefined
}

/** What grading one answer took and gave. */
export interface GraderVerdict {
  grade: ModelGrade | undefined
  reply: string
  inputTokens: number
  outputTokens: number
  /** Dollars: as the backend reported them, else by the price table; `null` when unknown. */
  cost: number | null
}

/** Asks the grader model about one answer. A failing call rejects; an unreadable reply is `grade: undefined`. */
export async function gradeWithModel(
  llm: LLMProvider,
  question: string,
  answers: readonly string[],
  answer: string,
  signal?: AbortSignal,
): Promise<GraderVerdict> {
  let reply = ''
  let inputTokens = 0
  let outputTokens = 0
  let reported: number | undefined
  for await (const chunk of llm.stream({ prompt: graderPrompt(question, answers, answer), maxTokens: 16, temperature: 0, ...(signal ? { signal } : {}) })) {
    if (chunk.type === 'text') reply += chunk.text
    else if (chunk.type === 'usage') {
      inputTokens = chunk.inputTokens ?? inputTokens
      outputTokens = chunk.outputTokens ?? outputTokens
      reported = chunk.cost ?? reported
    }
    if (reply.length > 4096) break
  }
  const cost = callDollars({ inputTokens, outputTokens, ...(reported !== undefined ? { cost: reported } : {}) }, llm.model, { local: llm.local })
  return { grade: parseGrade(reply), reply: reply.slice(0, 500), inputTokens, outputTokens, cost }
}
