/** The JSON Schemas of reflect's structured prompts (prompts.ts), sent with each call. */
import { flag, list, object, query } from '../shared/schema.js'

export const queriesSchema = object('search_queries', { queries: list(query, 5) })

export const reflectionSchema = object('reflection', {
  // The slots are named by the model, so their names are open; each is evidence or null.
  slots: { type: 'object', additionalProperties: { type: ['string', 'null'], maxLength: 300 }, maxProperties: 8 },
  need_more: flag,
  new_queries: list(query, 3),
})
