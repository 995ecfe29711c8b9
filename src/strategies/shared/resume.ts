import { LaconicError, type StrategyContext } from '../../core/index.js'

/**
 * The state a built-in strategy saved, when this run resumes; undefined for a new run. A state
 * that does not have the expected shape (a hand-edited checkpoint) is a `config` error: the run
 * does not silently start over.
 */
export function restoredState<T>(ctx: StrategyContext, strategy: string, isState: (value: unknown) => boolean): T | undefined {
  if (!ctx.resumed) return undefined
  const { state } = ctx.resumed
  if (typeof state !== 'object' || state === null || !isState(state)) {
    throw new LaconicError(`the checkpoint's ${strategy} state is malformed`, { code: 'config', hint: 'the checkpoint is left as it is' })
  }
  return state as T
}

/** Checks for restored states: arrays of strings, whole numbers. */
export const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string')
export const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0
