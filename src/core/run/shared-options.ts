import { LaconicError } from '../contracts/laconic-error.js'
import type { VerifyMode } from '../contracts/events.js'
import { languageTag } from './language.js'
import { sourceRules } from './allowed-sources.js'
import type { SharedOptions } from '../contracts/strategy-types.js'

/**
 * A whole-number option, or its default: anything else (a fraction, NaN, a string, below `min`)
 * is a `config` error when the agent is made, not a surprise mid-run. `name` is how the user
 * wrote it (`searchLimit`, `graphReader.maxSteps`).
 */
export function wholeNumberOption(value: unknown, name: string, fallback: number, min: number): number {
  const chosen = value ?? fallback
  if (typeof chosen !== 'number' || !Number.isInteger(chosen) || chosen < min) {
    throw new LaconicError(`\`${name}\` must be a whole number >= ${min}, got ${String(chosen)}`, {
      code: 'config',
      hint: `omit it for the default (${fallback})`,
    })
  }
  return chosen
}

/**
 * A strategy's options section as an object to read (empty when absent). Anything but an object,
 * a field that was renamed (0.x keeps no silent aliases: `renamed` maps an old field to the new
 * name the error gives) or a field not in `fields` is a `config` error naming it.
 */
export function optionsSection(
  raw: unknown,
  key: string,
  fields: readonly string[],
  renamed: Readonly<Record<string, string>> = {},
): Readonly<Record<string, unknown>> {
  if (raw === undefined) return {}
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new LaconicError(`\`${key}\` must be an object of options, got ${Array.isArray(raw) ? 'an array' : String(raw)}`, { code: 'config' })
  }
  const section = raw as Record<string, unknown>
  refuseRenamed(section, key, renamed)
  const unknown = Object.keys(section).filter((field) => section[field] !== undefined && !fields.includes(field))
  if (unknown.length) {
    throw new LaconicError(`\`${key}\` has no option ${unknown.map((field) => `\`${field}\``).join(', ')}`, {
      code: 'config',
      hint: `its options: ${fields.join(', ')}`,
    })
  }
  return section
}

/** Refuses renamed options: `renamed` maps each old key of `section` to its new full name, which the `config` error names. */
export function refuseRenamed(section: Readonly<Record<string, unknown>>, prefix: string | undefined, renamed: Readonly<Record<string, string>>): void {
  for (const [old, now] of Object.entries(renamed)) {
    if (section[old] !== undefined) {
      throw new LaconicError(`\`${prefix ? `${prefix}.${old}` : old}\` was renamed: use \`${now}\``, { code: 'config' })
    }
  }
}

/** What `verify` asks for (`true` is `'annotate'`); anything else is a `config` error naming `name`. */
export function verifyMode(value: unknown, name = 'verify'): 'annotate' | 'revise' | undefined {
  if (value === undefined || value === false) return undefined
  if (value === true || value === 'annotate') return 'annotate'
  if (value === 'revise') return 'revise'
  throw new LaconicError(`\`${name}\` must be false, true, 'annotate' or 'revise', got ${JSON.stringify(value) ?? String(value)}`, {
    code: 'config',
    hint: "'annotate' reports a verdict per cited sentence; 'revise' also rewrites the answer without the unsupported ones",
  })
}

/** The run's verification: its own `verify` wins over the agent's. */
export function runVerifyMode(options: Readonly<SharedOptions>, input: { verify?: VerifyMode | undefined }): 'annotate' | 'revise' | undefined {
  return input.verify !== undefined ? verifyMode(input.verify) : verifyMode(options.verify)
}

/** Checks the options every strategy shares (a `config` error names the one that is wrong). */
export function checkSharedOptions(options: Readonly<SharedOptions>): void {
  verifyMode(options.verify)
  wholeNumberOption(options.searchLimit, 'searchLimit', 5, 1)
  sourceRules(options.sources)
  languageTag(options.language)
  if (options.pipelining !== undefined && typeof options.pipelining !== 'boolean') {
    throw new LaconicError('`pipelining` must be true or false', { code: 'config', hint: 'leave it out to search queries as they stream in' })
  }
}
