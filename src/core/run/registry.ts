import { toJson } from '../contracts/checkpoint.js'
import { LaconicError } from '../contracts/laconic-error.js'
import type { Strategy, StrategyDefinition } from '../contracts/strategy-types.js'

/** The agent's options as the registry sees them: an object holding each strategy's section under its `optionsKey`, unread. */
type AnyOptions = object

// biome-ignore lint/suspicious/noExplicitAny: a registry holds definitions of any settings; each is only ever given its own
type AnyDefinition = StrategyDefinition<any, any>

/** Strategies by name. The package entry fills one with the built-ins. */
export interface StrategyRegistry {
  register(definition: AnyDefinition): void
  /** The agent's strategy, made from its section of `options` (a name's definition) or given as it is. */
  resolve(strategy: string | Strategy | undefined, options: AnyOptions): Strategy
  /** Checks every known strategy's section that `options` holds (a `config` error names the field). */
  check(options: AnyOptions): void
  /** The key of the agent's options that holds the named strategy's section. */
  optionsKey(name: string): string | undefined
  names(): string[]
}

/** `fallback` is the strategy an agent that names none runs (the package entry's default). */
export function createRegistry(initial: readonly AnyDefinition[] = [], fallback?: string): StrategyRegistry {
  const definitions = new Map(initial.map((definition) => [definition.name, definition]))
  const sectionOf = (definition: AnyDefinition, options: AnyOptions): unknown =>
    definition.optionsKey === undefined ? undefined : (options as Readonly<Record<string, unknown>>)[definition.optionsKey]
  return {
    register(definition) {
      if (typeof definition === 'string') {
        throw new LaconicError(`registerStrategy(name, definition) takes the definition alone now, its name inside`, {
          code: 'config',
          hint: `registerStrategy(defineStrategy({ name: '${definition}', run }))`,
        })
      }
      if (typeof definition?.run !== 'function') {
        throw new LaconicError("registerStrategy(definition) expects `run`, the strategy's async generator", {
          code: 'config',
          hint: 'make the definition with defineStrategy({ name, run })',
        })
      }
      if (typeof definition.name !== 'string' || !definition.name.trim()) throw new LaconicError('a strategy needs a non-empty name', { code: 'config' })
      definitions.set(definition.name, definition)
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

/** A strategy from its definition and options of its section: normalised, then made. */
function makeStrategy<Settings, Options>(definition: StrategyDefinition<Settings, Options>, options: Options | undefined): Strategy {
  const settings = definition.normalize ? definition.normalize(options) : (options as Settings)
  const concurrency = definition.concurrency?.(settings)
  return {
    name: definition.name,
    ...(settings !== undefined && { settings: toJson(settings) }),
    ...(concurrency !== undefined && { concurrency }),
    run: (question, ctx) => definition.run(question, ctx, settings),
  }
}

/**
 * A strategy of its own definition, in one place: its name, its section of the agent's options
 * (`optionsKey`, checked by `normalize`), its runs' limit (`concurrency`) and `run`. Returns the
 * definition, callable: `mine(options)` makes the strategy for `createAgent({ strategy })`, and
 * `registerStrategy(mine)` makes it known by name (its section then read from the agent's options).
 */
export function defineStrategy<Settings = undefined, Options = unknown>(
  definition: StrategyDefinition<Settings, Options>,
): StrategyDefinition<unknown, Options> & ((options?: Options) => Strategy) {
  const make = (options?: Options) => makeStrategy(definition, options)
  return Object.defineProperties(make, {
    // A function's own `name` is read-only: defined, not assigned.
    name: { value: definition.name, enumerable: true },
    ...Object.fromEntries(
      (['optionsKey', 'normalize', 'concurrency', 'run'] as const)
        .filter((key) => definition[key] !== undefined)
        .map((key) => [key, { value: definition[key], enumerable: true }]),
    ),
    // Settings stay the definition's own business: callers pass options and get strategies.
  }) as StrategyDefinition<unknown, Options> & ((options?: Options) => Strategy)
}
