import {
  createRegistry,
  createRun,
  LaconicError,
  type AgentOptions,
  type ResearchOptions,
  type ResearchResult,
  type ResearchRun,
  type StrategyFactory,
} from './core/index.js'
import { builtinStrategies } from './strategies/builtins.js'

const registry = createRegistry(builtinStrategies)

/** Makes a strategy available by name to every agent created afterwards. */
export function registerStrategy(name: string, factory: StrategyFactory): void {
  registry.register(name, factory)
}

/** The names `strategy` accepts, built-ins first. */
export function strategyNames(): string[] {
  return registry.names()
}

export interface Agent {
  /** Starts a research run (lazily: nothing happens until it is read or its result awaited). */
  research(question: string, options?: ResearchOptions): ResearchRun
  /** Runs to the end and returns the result. */
  answer(question: string, options?: ResearchOptions): Promise<ResearchResult>
}

export function createAgent(options: AgentOptions): Agent {
  if (!options || typeof options !== 'object') {
    throw new LaconicError('createAgent expects an options object', { code: 'config', hint: 'e.g. createAgent({ llm, search })' })
  }
  if (!options.llm && !options.models) {
    throw new LaconicError('createAgent needs a model', { code: 'config', hint: 'pass `llm` (or `models` by role)' })
  }
  if (options.maxIterations !== undefined && !(Number.isInteger(options.maxIterations) && options.maxIterations >= 0)) {
    throw new LaconicError(`\`maxIterations\` must be a whole number >= 0, got ${String(options.maxIterations)}`, { code: 'config' })
  }
  // Resolve now so an unknown strategy name fails at construction, not mid-run.
  registry.resolve(options.strategy, options)
  const research = (question: string, researchOptions: ResearchOptions = {}): ResearchRun => {
    if (typeof question !== 'string' || !question.trim()) {
      throw new LaconicError('the question is empty', { code: 'config', hint: 'pass the question to research as a non-empty string' })
    }
    const strategy = registry.resolve(options.strategy, options)
    return createRun({ strategy, question: question.trim(), options, input: researchOptions })
  }
  return {
    research,
    answer: (question, researchOptions) => research(question, researchOptions).result,
  }
}
