import {
  createRegistry,
  createRun,
  LaconicError,
  type AgentOptions,
  type Citation,
  type PriorAnswer,
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
  /** A conversation: follow-up questions build on earlier answers, knowledge and citation numbers. */
  session(): Session
}

/**
 * Carries what each run learned into the next: its answer (as a prior answer), its knowledge,
 * and its citations, so `[1]` names the same source for the whole conversation.
 */
export interface Session {
  research(question: string, options?: ResearchOptions): ResearchRun
  answer(question: string, options?: ResearchOptions): Promise<ResearchResult>
  readonly priorAnswers: readonly PriorAnswer[]
  readonly citations: readonly Citation[]
  readonly knowledge: string
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
  const research = (question: string, researchOptions: ResearchOptions = {}, onEnd?: (r: ResearchResult) => void): ResearchRun => {
    if (typeof question !== 'string' || !question.trim()) {
      throw new LaconicError('the question is empty', { code: 'config', hint: 'pass the question to research as a non-empty string' })
    }
    const strategy = registry.resolve(options.strategy, options)
    return createRun({ strategy, question: question.trim(), options, input: researchOptions, ...(onEnd ? { onEnd } : {}) })
  }
  return {
    research: (question, researchOptions) => research(question, researchOptions),
    answer: (question, researchOptions) => research(question, researchOptions).result,
    session: () => createSession(research),
  }
}

function createSession(
  research: (question: string, options: ResearchOptions, onEnd: (r: ResearchResult) => void) => ResearchRun,
): Session {
  const priorAnswers: PriorAnswer[] = []
  const citations = new Map<number, Citation>()
  let knowledge = ''

  const record = (question: string) => (result: ResearchResult) => {
    for (const citation of result.citations) citations.set(citation.index, citation)
    if (result.knowledge) knowledge = result.knowledge
    if (result.answer && result.reason !== 'error' && result.reason !== 'aborted') {
      priorAnswers.push({
        query: question,
        answer: result.answer,
        ...(result.confidence !== undefined ? { confidence: result.confidence } : {}),
        sources: result.citations.map((c) => c.url),
      })
    }
  }

  const start = (question: string, options: ResearchOptions = {}) =>
    research(
      question,
      {
        knowledge,
        priorAnswers: [...priorAnswers],
        citations: [...citations.values()].sort((a, b) => a.index - b.index),
        ...options,
      },
      record(question),
    )

  return {
    research: start,
    answer: (question, options) => start(question, options).result,
    get priorAnswers() {
      return [...priorAnswers]
    },
    get citations() {
      return [...citations.values()].sort((a, b) => a.index - b.index)
    },
    get knowledge() {
      return knowledge
    },
  }
}
