import { Validator } from '@cfworker/json-schema'
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { JsonSchema } from '../../core/contracts/providers.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'

/** A strategy's saved state, as a JSON Schema checked when a run resumes. */
export interface StateSchema {
  /** What is wrong with `value` (the first problem found), or undefined when it fits. */
  problem(value: unknown): string | undefined
}

/** Compiles a state's JSON Schema once, when the strategy's module loads. */
export function stateSchema(schema: JsonSchema): StateSchema {
  const validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], '2020-12', true)
  return {
    problem(value) {
      const result = validator.validate(value)
      if (result.valid) return undefined
      // The last error is the innermost: the field that is wrong, not the objects around it.
      const leaf = result.errors.at(-1)
      return leaf ? `${leaf.instanceLocation.replace(/^#/, '') || '(the state)'}: ${leaf.error}` : 'it does not fit the schema'
    },
  }
}

/**
 * The state a built-in strategy saved, when this run resumes; undefined for a new run. A state
 * that does not fit the strategy's schema (a hand-edited or corrupt checkpoint) is a `config`
 * error naming the field: the run does not silently start over, and the checkpoint stays as it is.
 */
export function restoredState<T>(ctx: StrategyContext, strategy: string, schema: StateSchema): T | undefined {
  if (!ctx.resumed) return undefined
  const problem = schema.problem(ctx.resumed.state)
  if (problem !== undefined) {
    throw new LaconicError(`the checkpoint's ${strategy} state is malformed (${problem})`, {
      code: 'config',
      hint: 'the checkpoint is left as it is; nothing was run',
    })
  }
  return ctx.resumed.state as T
}

/** Pieces of state schemas. */
export const strings: JsonSchema = { type: 'array', items: { type: 'string' } }
export const count: JsonSchema = { type: 'integer', minimum: 0 }
/** An object with these properties; those named in `required` must be there. */
export const record = (properties: Record<string, JsonSchema>, required: readonly string[] = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  properties,
  required: [...required],
})
