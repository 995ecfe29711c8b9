/** The JSON Schemas of graph-reader's structured prompts (prompts.ts), sent with each call. */
import { flag, list, object, query, sourceNumber, text } from '../shared/schema.js'

// Queries come early in both: a reply streams in this order, and each query starts its node as
// it closes (pipelining). Key elements stay before the queries, which are drawn from them.
export const planSchema = object('research_plan', {
  key_elements: list(text(80), 8),
  queries: list(query, 5),
  goal: text(300),
  steps: list(text(200), 4),
})

export const extractionSchema = object('extracted_facts', {
  facts: list(object('fact', { text: text(300), source: sourceNumber }), 12),
})

export const nodeCheckSchema = object('node_check', {
  answerable: flag,
  queries: list(query, 4),
  missing: text(300),
})

export const condenseSchema = object('condensed_facts', {
  facts: list(object('fact', { text: text(300), sources: list(sourceNumber, 8) }), 30),
})
