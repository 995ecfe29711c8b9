import type { RunEndReason } from '../core/contracts/events.js'

/** How an answer was graded. */
export type RowGrades = EvalRowResult['grades']

/** One question under one configuration: what was answered, how it was graded, what it took. A line of `results.jsonl`. */
export interface EvalRowResult {
  config: string
  id: string
  question: string
  answers: string[]
  answer: string
  reason: RunEndReason
  error?: string
  /** How the answer was graded: by text (always) and by the grader model (when there is one). */
  grades: {
    /** Normalized exact match with an accepted answer. */
    exact: boolean
    /** Token F1 against the best accepted answer, in [0, 1]. */
    f1: number
    /** An accepted answer appears, as whole words, in the answer. */
    contains: boolean
    /** The grader model's verdict; absent without a grader, or when its reply named no grade. */
    model?: 'correct' | 'incorrect' | 'not-attempted'
    /** What the grader replied (cut to 500 characters). */
    graderReply?: string
  }
  /** The model grade is `correct` (with a grader), else the answer contains an accepted answer. */
  correct: boolean
  /** The model grade is `not-attempted` (with a grader), else the answer is empty. */
  notAttempted: boolean
  /** The run's dollars; `null` when a model call's price was unknown. */
  cost: number | null
  /** The grader's dollars for this row (`null`: unknown), not part of `cost`. */
  graderCost?: number | null
  wallMs: number
  llmCalls: number
  inputTokens: number
  outputTokens: number
  searches: number
  fetches: number
  citations: number
  /** The share of the row's evidence that reached a model prompt (rows with evidence only). */
  evidenceRecall?: number
  /** The share of the answer's claims a source supports (runs with verification only). */
  supportRate?: number
  tags?: string[]
}
