import { optionsSection, wholeNumberOption } from '../../core/run/shared-options.js'

/** The `reflect` section of the agent's options. */
export interface ReflectOptions {
  /** Reflection rounds at most. @defaultValue 2 */
  maxSteps?: number
  /** Words in the answer at most. @defaultValue 80 */
  maxWords?: number
  /** Searches in flight at once. @defaultValue 4 */
  concurrency?: number
}

/** Reflect's options, checked, with their defaults filled. */
export type ReflectSettings = Required<ReflectOptions>

const FIELDS = ['maxSteps', 'maxWords', 'concurrency'] as const

/** Checks the `reflect` section (a `config` error names the field) and fills its defaults. */
export function reflectSettings(raw: unknown): ReflectSettings {
  const options = optionsSection(raw, 'reflect', FIELDS, { maxIterations: 'reflect.maxSteps' })
  return {
    maxSteps: wholeNumberOption(options.maxSteps, 'reflect.maxSteps', 2, 1),
    maxWords: wholeNumberOption(options.maxWords, 'reflect.maxWords', 80, 1),
    concurrency: wholeNumberOption(options.concurrency, 'reflect.concurrency', 4, 1),
  }
}
