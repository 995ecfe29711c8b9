import { LaconicError } from './errors.js'
import type { AgentOptions, Strategy, StrategyFactory } from './strategy.js'

/** Strategies by name. The package entry fills one with the built-ins. */
export interface StrategyRegistry {
  register(name: string, factory: StrategyFactory): void
  resolve(strategy: string | Strategy | undefined, options: Readonly<AgentOptions>): Strategy
  names(): string[]
}

export function createRegistry(initial: Readonly<Record<string, StrategyFactory>> = {}): StrategyRegistry {
  const factories = new Map(Object.entries(initial))
  return {
    register(name, factory) {
      if (!name.trim()) throw new LaconicError('a strategy needs a non-empty name', { code: 'config' })
      if (typeof factory !== 'function') {
        throw new LaconicError(`registerStrategy(\`${name}\`, factory) expects a function returning a Strategy`, { code: 'config' })
      }
      factories.set(name, factory)
    },
    resolve(strategy, options) {
      if (strategy === undefined) strategy = 'scratchpad'
      if (typeof strategy !== 'string') return strategy
      const factory = factories.get(strategy)
      if (!factory) {
        throw new LaconicError(`unknown strategy \`${strategy}\``, {
          code: 'unknown-strategy',
          hint: `known strategies: ${[...factories.keys()].join(', ')}`,
        })
      }
      return factory(options)
    },
    names() {
      return [...factories.keys()]
    },
  }
}
