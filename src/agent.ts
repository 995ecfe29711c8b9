import { parseCheckpoint } from './core/contracts/checkpoint.js'
import { LaconicError } from './core/contracts/laconic-error.js'
import type { ResearchResult } from './core/contracts/result.js'
import type { ResumeOptions, ResearchOptions, SharedOptions, StrategyDefinition } from './core/contracts/strategy-types.js'
import { checkApprovalOptions, checkDecision } from './core/run/decision.js'
import { createRegistry } from './core/run/registry.js'
import { assertResumable } from './core/run/run-checkpoints.js'
import { checkRecalled, memorySettings } from './core/run/run-memory.js'
import type { RunInit } from './core/run/prepared-run.js'
import { createRun, type ResearchRun } from './core/run/run.js'
import { checkSharedOptions, refuseRenamed, verifyMode } from './core/run/shared-options.js'
import type { Session, SessionOptions } from './conversations/session-store.js'
import { languageTag } from './core/run/language.js'
import { sourceRules } from './core/run/allowed-sources.js'
import { createSession } from './conversations/session.js'
import { builtinStrategies, DEFAULT_STRATEGY, RENAMED_OPTIONS } from './strategies/builtins.js'
import type { DeepOptions } from './strategies/deep/options.js'
import type { GraphReaderOptions } from './strategies/graph-reader/options.js'
import type { ReactOptions } from './strategies/react/options.js'
import type { ReportOptions } from './strategies/report/options.js'
import type { ReflectOptions } from './strategies/reflect/options.js'
import type { ScratchpadOptions } from './strategies/scratchpad/options.js'

/**
 * What `createAgent` takes: the options every strategy shares, and each strategy's own section
 * (`graphReader`, `react`, ...), which only that strategy reads. A strategy of your own reads its
 * section the same way: declare it by augmenting this interface
 * (`declare module 'laconic-research' { interface AgentOptions { mine?: MineOptions } }`).
 */
export interface AgentOptions extends SharedOptions {
  scratchpad?: ScratchpadOptions
  graphReader?: GraphReaderOptions
  reflect?: ReflectOptions
  deep?: DeepOptions
  react?: ReactOptions
  report?: ReportOptions
}

const registry = createRegistry(builtinStrategies, DEFAULT_STRATEGY)

/**
 * Makes a strategy (`defineStrategy`'s) available by its name to every agent created afterwards.
 * Its `optionsKey` section of the agent's options goes through `normalize` (when the agent is
 * made) to `run`.
 */
export function registerStrategy<Settings, Options>(definition: StrategyDefinition<Settings, Options>): void {
  registry.register(definition)
}

/** The key of the agent's options that holds the named strategy's section, e.g. `graphReader` for `graph-reader`. */
export function strategyOptionsKey(name: string): string | undefined {
  return registry.optionsKey(name)
}

/** The names `strategy` accepts, built-ins first. */
export function strategyNames(): string[] {
  return registry.names()
}

/** A configured research agent: start runs, answer questions, resume paused or interrupted runs. */
export interface Agent {
  /** Starts a research run (lazily: nothing happens until it is read or its result awaited). */
  research(question: string, options?: ResearchOptions): ResearchRun
  /** Runs to the end and returns the result. */
  answer(question: string, options?: ResearchOptions): Promise<ResearchResult>
  /**
   * Continues a run from its checkpoint (see docs/checkpoints.md): the same `runId`, `seq` going
   * on, cost counted from what was spent, no finished call repeated. A checkpoint that is missing,
   * corrupt or for another strategy or question, or a run another process is running, makes
   * reading the run throw (and its result reject) a LaconicError before any event.
   */
  resume(runId: string, options: ResumeOptions): ResearchRun
  /**
   * A conversation: follow-up questions build on earlier answers, knowledge, facts and citation
   * numbers. With a `store`, the conversation `chatId` is continued from any process (each turn
   * loads it when it starts and merges its result in before its `run-end`); with a `state`, it
   * starts from that state and lives in this object; with neither, it starts empty in memory.
   * `chatId` defaults to a random UUID. See docs/sessions.md.
   */
  session(chatId?: string, options?: SessionOptions): Session
}

/** Creates a research agent from a model, a search provider, a fetch provider and a strategy. Throws a `config` error naming what is missing. */
export function createAgent(options: AgentOptions): Agent {
  if (!options || typeof options !== 'object') {
    throw new LaconicError('createAgent expects an options object', { code: 'config', hint: 'e.g. createAgent({ llm, search })' })
  }
  if (!options.llm && !options.models) {
    throw new LaconicError('createAgent needs a model', { code: 'config', hint: 'pass `llm` (or `models` by role)' })
  }
  refuseRenamed(options as Readonly<Record<string, unknown>>, undefined, RENAMED_OPTIONS)
  checkSharedOptions(options)
  memorySettings(options.memory)
  // Every strategy's section is checked by its own definition, whichever strategy runs; resolving
  // now makes an unknown strategy name fail at construction, not mid-run.
  registry.check(options)
  registry.resolve(options.strategy, options)
  /** A run's init, checked at once: the question, and what the run's options need. */
  const runInit = (question: string, researchOptions: ResearchOptions = {}): RunInit => {
    if (typeof question !== 'string' || !question.trim()) {
      throw new LaconicError('the question is empty', { code: 'config', hint: 'pass the question to research as a non-empty string' })
    }
    checkApprovalOptions(researchOptions)
    checkRecalled(researchOptions.recalled)
    verifyMode(researchOptions.verify)
    sourceRules(researchOptions.sources)
    languageTag(researchOptions.language)
    const strategy = registry.resolve(options.strategy, options)
    return { strategy, question: question.trim(), options, input: researchOptions }
  }
  const research = (question: string, researchOptions?: ResearchOptions): ResearchRun => createRun(runInit(question, researchOptions))
  const resume = (runId: string, resumeOptions: ResumeOptions): ResearchRun => {
    const store = resumeOptions?.checkpoints
    if (typeof runId !== 'string' || !runId) throw new LaconicError('resume needs the id of the run', { code: 'config' })
    if (!store || typeof store.load !== 'function') {
      throw new LaconicError('resume needs the checkpoint store the run saved to', { code: 'config', hint: 'pass `checkpoints`' })
    }
    // 0.x: the fields of the two approval mechanisms before `decision` are refused, not aliased.
    for (const [old, instead] of [
      ['plan', "{ action: 'edit', queries }"],
      ['approval', "{ action: 'approve' }, { action: 'reject', reason } or { action: 'edit', args }"],
    ] as const) {
      if (old in resumeOptions) {
        throw new LaconicError(`resume no longer takes \`${old}\`: answer what the run waits for with \`decision\``, {
          code: 'config',
          hint: `pass \`decision\`: ${instead}`,
        })
      }
    }
    return createRun({
      runId,
      prepare: async () => {
        const loaded = await store.load(runId)
        if (!loaded) throw new LaconicError(`no checkpoint for run ${runId}`, { code: 'config', hint: 'was it run with `checkpoints` and the same store?' })
        // Checked again here: a store of the user's own may hand back anything.
        const checkpoint = parseCheckpoint(loaded, `the checkpoint of run ${runId}`)
        const strategy = registry.resolve(options.strategy, options)
        assertResumable(checkpoint, {
          runId,
          strategy,
          options,
          ...(resumeOptions.question !== undefined ? { question: resumeOptions.question } : {}),
        })
        const decision =
          resumeOptions.decision === undefined
            ? undefined
            : checkDecision(resumeOptions.decision, checkpoint.status === 'paused' ? checkpoint.request : undefined, runId)
        // The run's own language and sources, saved with it, are checked like a new run's before anything runs.
        sourceRules(checkpoint.input.sources, `the checkpoint of run ${runId}: sources`)
        languageTag(checkpoint.input.language, `the checkpoint of run ${runId}: language`)
        const lock = await store.acquire(runId)
        if (!lock) throw new LaconicError(`run ${runId} is already running`, { code: 'locked', hint: 'another run or resume holds its lock' })
        // The review switches it was started with (plain data in the checkpoint) unless the resume gives its own.
        const review = resumeOptions.review ?? savedReview(checkpoint.input.review)
        const input: ResearchOptions = {
          ...checkpoint.input,
          checkpoints: store,
          ...(review ? { review } : {}),
          ...(resumeOptions.decide ? { decide: resumeOptions.decide } : {}),
          ...(resumeOptions.signal ? { signal: resumeOptions.signal } : {}),
        }
        checkApprovalOptions(input)
        const restoreOptions = { ...resumeOptions, ...(decision ? { decision } : {}) }
        return { strategy, question: checkpoint.question, options, input, restore: { checkpoint, options: restoreOptions, lock } }
      },
    })
  }
  return {
    research: (question, researchOptions) => research(question, researchOptions),
    answer: (question, researchOptions) => research(question, researchOptions).result,
    resume,
    session: (chatId, sessionOptions) => createSession(chatId, sessionOptions, runInit),
  }
}

/** A checkpoint's review switches, read back: only booleans count (a store of the user's own may hand back anything). */
function savedReview(saved: unknown): ResearchOptions['review'] {
  if (typeof saved !== 'object' || saved === null) return undefined
  const { plan, tools } = saved as Record<string, unknown>
  const review = { ...(typeof plan === 'boolean' ? { plan } : {}), ...(typeof tools === 'boolean' ? { tools } : {}) }
  return Object.keys(review).length ? review : undefined
}
