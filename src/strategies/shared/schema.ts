/**
 * Builders for the JSON Schemas that structured prompts declare. Every string and list is
 * bounded: a backend that constrains decoding (a grammar, a JSON mode) then cannot run on past
 * what the prompt asked for, and a server that ignores the schema loses nothing, because the
 * total parsers read the reply either way.
 */
import type { JsonSchema } from '../../core/contracts/providers.js'

export const text = (maxLength: number): JsonSchema => ({ type: 'string', maxLength })
export const list = (items: JsonSchema, maxItems: number): JsonSchema => ({ type: 'array', items, maxItems })
export const sourceNumber: JsonSchema = { type: 'integer', minimum: 1 }
export const flag: JsonSchema = { type: 'boolean' }

/** An object whose listed properties are all required; `title` names it on the wire. */
export function object(title: string, properties: Record<string, JsonSchema>): JsonSchema {
  return { title, type: 'object', properties, required: Object.keys(properties) }
}

/** A short web search query. */
export const query = text(120)
