import { LaconicError } from '../../core/index.js'

/**
 * A strategy's whole-number option, or its default; anything else (a fraction, NaN, a string,
 * below `min`) is a `config` error when the strategy is made, not a surprise mid-run.
 */
export function wholeNumberOption<T extends object>(
  section: string | undefined,
  options: T | undefined,
  key: keyof T & string,
  fallback: number,
  min: number,
): number {
  const value: unknown = options?.[key] ?? fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    const name = section ? `${section}.${key}` : key
    throw new LaconicError(`\`${name}\` must be a whole number >= ${min}, got ${String(value)}`, {
      code: 'config',
      hint: `omit it for the default (${fallback})`,
    })
  }
  return value
}
