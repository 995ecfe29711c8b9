/**
 * Reading what laconic stored as JSON (checkpoints, sessions): the text, or a value already
 * parsed, of one format version, with each named field checked. Never half read: what is wrong
 * is thrown through the caller's `bad`, naming it.
 */

/** A JSON object: not an array, not null. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

export interface StoredShape {
  /** What the format's versions are called in messages (`schema version 2`). */
  versionLabel: string
  version: number
  /** Each field a stored value must have, with its check. */
  fields: ReadonlyArray<readonly [string, (value: unknown) => boolean]>
  /** The error for a stored value that cannot be used, given the problem. */
  bad(problem: string): Error
}

export function readStoredJson(text: unknown, shape: StoredShape): Record<string, unknown> {
  let value: unknown = text
  if (typeof text === 'string') {
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw shape.bad(`it is not JSON (${(error as Error).message})`)
    }
  }
  if (!isObject(value)) throw shape.bad('it is not a JSON object')
  if (value.version !== shape.version) {
    throw shape.bad(`it has ${shape.versionLabel} ${JSON.stringify(value.version) ?? 'undefined'}; this laconic reads version ${shape.version}`)
  }
  for (const [name, ok] of shape.fields) {
    if (!ok(value[name])) throw shape.bad(`its \`${name}\` is missing or malformed`)
  }
  return value
}
