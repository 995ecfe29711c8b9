/** The JSON Schemas of graph-reader's structured prompts (prompts.ts), sent with each call. */
import { flag, list, object, query, sourceNumber, text } from '../shared/schema.js'

export const planSchema = object('research_plan', {
  goal: text(300),
  steps: list(text(200), 4),
  key_elements: list(text(80), 8),
  queries: list(query, 5),
})

export const extractionSchema = object('extracted_facts', {
  facts: list(object('fact', { text: text(300), source: sourceNumber }), 12),
})

export const nodeCheckSchema = object('node_check', {
  answerable: flag,
  missing: text(300),
  queries: list(query, 4),
})

export const condenseSchema = object('condensed_facts', {
  facts: list(object('fact', { text: text(300), sources: list(sourceNumber, 8) }), 30),
})
