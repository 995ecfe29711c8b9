import { LaconicError } from '../contracts/laconic-error.js'
import type { Strategy, StrategyDefinition } from '../contracts/strategy-types.js'

/** The agent's options as the registry sees them: an object holding each strategy's section under its `optionsKey`, unread. */
type AnyOptions = object

/** Strategies by name. The package entry fills one with the built-ins. */
export interface StrategyRegistry {
  register(name: string, definition: StrategyDefinition<unknown>): void
  /** The agent's strategy, made from its section of `options` (a name's definition) or given as it is. */
  resolve(strategy: string | Strategy | undefined, options: AnyOptions): Strategy
  /** Checks every known strategy's section that `options` holds (a `config` error names the field). */
  check(options: AnyOptions): void
  /** The key of the agent's options that holds the named strategy's section. */
  optionsKey(name: string): string | undefined
  names(): string[]
}

/** `fallback` is the strategy an agent that names none runs (the package entry's default). */
export function createRegistry(initial: Readonly<Record<string, StrategyDefinition<unknown>>> = {}, fallback?: string): StrategyRegistry {
  const definitions = new Map(Object.entries(initial))
  const sectionOf = (definition: StrategyDefinition<unknown>, options: AnyOptions): unknown =>
    definition.optionsKey === undefined ? undefined : (options as Readonly<Record<string, unknown>>)[definition.optionsKey]
  return {
    register(name, definition) {
      if (!name.trim()) throw new LaconicError('a strategy needs a non-empty name', { code: 'config' })
      if (typeof definition === 'function') {
        throw new LaconicError(`registerStrategy(\`${name}\`, factory) expects a definition, got a function`, {
          code: 'config',
          hint: `did you mean registerStrategy('${name}', { create: factory })?`,
        })
      }
      if (typeof definition?.create !== 'function') {
        throw new LaconicError(`registerStrategy(\`${name}\`, definition) expects \`create\`, a function returning a Strategy`, { code: 'config' })
      }
      definitions.set(name, definition)
    },
    resolve(strategy, options) {
      if (strategy === undefined) strategy = fallback
      if (strategy === undefined) throw new LaconicError('no strategy given, and no default', { code: 'config', hint: 'pass `strategy`' })
      if (typeof strategy !== 'string') return strategy
      const definition = definitions.get(strategy)
      if (!definition) {
        throw new LaconicError(`unknown strategy \`${strategy}\``, {
          code: 'unknown-strategy',
          hint: `known strategies: ${[...definitions.keys()].join(', ')}`,
        })
      }
      return makeStrategy(definition, sectionOf(definition, options))
    },
    check(options) {
      for (const definition of definitions.values()) {
        const raw = sectionOf(definition, options)
        if (raw !== undefined) definition.normalize?.(raw)
      }
    },
    optionsKey(name) {
      return definitions.get(name)?.optionsKey
    },
    names() {
      return [...definitions.keys()]
    },
  }
}

/** A strategy from its definition and its raw options section: normalised, then made. */
export function makeStrategy<Settings>(definition: StrategyDefinition<Settings>, raw: unknown): Strategy {
  return definition.create(definition.normalize ? definition.normalize(raw) : (raw as Settings))
}
