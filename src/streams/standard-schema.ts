/**
 * A small validator kit behind the data-part schemas: each schema implements Standard Schema v1
 * (https://standardschema.dev), which the AI SDK accepts wherever it takes a schema
 * (`validateUIMessages`' `dataSchemas` and `metadataSchema`, `useChat`'s `dataPartSchemas`), so
 * no validation library is needed. The checks are shape checks: types and required fields;
 * unknown fields pass, as a newer server may send more.
 */

/** One problem a schema found: what, and where (`['fact', 'sources', 0]`). */
export interface SchemaIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey> | undefined
}

/** What a Standard Schema's `validate` returns: the value, or the issues. */
export type SchemaResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<SchemaIssue> }

/**
 * A Standard Schema v1 (`'~standard'`, vendor `laconic-research`) for values of type `Output`:
 * pass it to the AI SDK as a data part or metadata schema, or call
 * `schema['~standard'].validate(value)` yourself (it answers at once, never a promise).
 */
export interface ResearchSchema<Output> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: 'laconic-research'
    readonly validate: (value: unknown) => SchemaResult<Output>
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined
  }
}

/** Adds the issues of `value` at `path` to `issues`. */
export type Check = (value: unknown, path: PropertyKey[], issues: SchemaIssue[]) => void

/** The Standard Schema of a check. */
export function schemaOf<Output>(check: Check): ResearchSchema<Output> {
  return {
    '~standard': {
      version: 1,
      vendor: 'laconic-research',
      validate(value) {
        const issues: SchemaIssue[] = []
        check(value, [], issues)
        return issues.length === 0 ? { value: value as Output } : { issues }
      },
    },
  }
}

const typeCheck =
  (expected: string, test: (value: unknown) => boolean): Check =>
  (value, path, issues) => {
    if (!test(value)) issues.push({ message: `expected ${expected}, got ${describe(value)}`, path: [...path] })
  }

export const string: Check = typeCheck('a string', (value) => typeof value === 'string')
export const number: Check = typeCheck('a finite number', (value) => typeof value === 'number' && Number.isFinite(value))
export const boolean: Check = typeCheck('a boolean', (value) => typeof value === 'boolean')

/** One of the listed strings. */
export function oneOf(values: readonly string[]): Check {
  const allowed = new Set(values)
  return typeCheck(`one of ${values.join(', ')}`, (value) => typeof value === 'string' && allowed.has(value))
}

/** An array whose every item passes `item`. */
export function arrayOf(item: Check): Check {
  return (value, path, issues) => {
    if (!Array.isArray(value)) {
      issues.push({ message: `expected an array, got ${describe(value)}`, path: [...path] })
      return
    }
    for (const [index, entry] of value.entries()) item(entry, [...path, index], issues)
  }
}

/** A plain object: `required` fields must be there, `optional` ones may be missing (or undefined). */
export function object(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ message: `expected an object, got ${describe(value)}`, path: [...path] })
      return
    }
    const record = value as Record<string, unknown>
    for (const [key, check] of Object.entries(required)) {
      if (record[key] === undefined) issues.push({ message: `\`${key}\` is missing`, path: [...path, key] })
      else check(record[key], [...path, key], issues)
    }
    for (const [key, check] of Object.entries(optional)) if (record[key] !== undefined) check(record[key], [...path, key], issues)
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}
