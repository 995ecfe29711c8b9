/** The JSON Schemas of deep's structured prompts (prompts.ts), sent with each call. */
import { flag, list, object, query, sourceNumber, text } from '../shared/schema.js'

/** `next_question` is absent when the research is complete. */
export const planSchema = {
  ...object('next_step', { is_complete: flag, next_question: text(200), reasoning: text(300) }),
  required: ['is_complete', 'reasoning'],
}

export const subAnswerSchema = object('sub_answer', {
  answer: text(800),
  confidence: { type: 'number', minimum: 0, maximum: 1 },
  facts: list(object('fact', { text: text(300), sources: list(sourceNumber, 6) }), 8),
  need_more: flag,
  queries: list(query, 2),
})

export const reportSchema = object('research_report', {
  title: text(120),
  main_findings: list(text(300), 8),
  conclusions: list(text(300), 5),
  limitations: list(text(300), 5),
  recommendations: list(text(300), 5),
  sources_summary: text(400),
})
