import { onAbort } from '../util/abort-listener.js'
import { LaconicError } from '../contracts/laconic-error.js'
import { createIdSource, type IdSource } from '../util/ids.js'
import { modelCalls } from './model-calls.js'
import { OpenCalls } from './open-calls.js'
import { pageReads } from './page-reads.js'
import type { LLMProvider } from '../contracts/providers.js'
import { createLedger, createLimit, type Ledger, laneOf, limitFor, type RunShared, runNow } from './run-scope.js'
import { searchCalls } from './search-calls.js'
import { stepCalls } from './step-calls.js'
import type { ModelRole, ResearchOptions, Resumption, SharedOptions, StrategyContext } from '../contracts/strategy-types.js'

/** Which role a role falls back to when the agent sets no model for it. */
const ROLE_FALLBACK: Readonly<Record<string, ModelRole>> = {
  finalizer: 'synthesizer',
  extractor: 'synthesizer',
  neighbor: 'extractor',
  verifier: 'finalizer',
}

export interface ContextInit {
  runId: string
  question: string
  signal: AbortSignal
  options: Readonly<SharedOptions>
  input: Readonly<ResearchOptions>
  /** The run's ids (a resumed run's counters go on from its checkpoint). @defaultValue counters from 1 */
  ids?: IdSource
  /** What a resumed run restores. */
  resumed?: Resumption
  /** Where model calls cut off mid-stream wait to be counted by the runtime. @defaultValue a set of its own */
  openCalls?: OpenCalls
  /** What the run has spent (the runtime's, which counts a recall before the strategy starts). @defaultValue a new one */
  ledger?: Ledger
  /** The size of each lane of the run's one limit (`ctx.limit`), its strategy's `concurrency`. @defaultValue 4 */
  concurrency?: number
}

export function createContext({
  signal,
  ids = createIdSource(),
  resumed,
  openCalls = new OpenCalls(),
  ledger,
  concurrency,
  ...init
}: ContextInit): StrategyContext {
  const { options } = init
  const model = (role: ModelRole): LLMProvider => {
    const seen = new Set<string>()
    for (let r: ModelRole | undefined = role; r !== undefined && !seen.has(r); r = ROLE_FALLBACK[r]) {
      seen.add(r)
      const found = options.models?.[r]
      if (found) return found
    }
    if (options.llm) return options.llm
    throw new LaconicError(`no model for the \`${role}\` role`, {
      code: 'config',
      hint: `pass \`llm\` (used for every role) or \`models.${role}\` to createAgent`,
    })
  }
  return scopedContext(
    {
      ...init,
      model,
      newId: ids.newId,
      ids,
      resumed,
      planReviewed: resumed !== undefined,
      ledger: ledger ?? createLedger(resumed?.cost),
      lastPrompts: new Map(),
      resultDates: new Map(),
      runSignal: signal,
      openCalls,
      limit: createLimit(concurrency),
    },
    signal,
  )
}

/**
 * The context of one scope of a run: every request it makes gets `signal`. `scope()` opens a
 * child with its own signal (aborted with this one, or on its own) and the run's ids and cost.
 * Each kind of call is made by its own factory: model calls, searches, page reads, and the
 * step calls (checkpoint, budget, plan review).
 */
function scopedContext(run: RunShared, signal: AbortSignal): StrategyContext {
  const { runId, question, options, input, model, newId } = run
  return {
    runId,
    question,
    signal,
    options,
    input,
    search: options.search,
    fetch: options.fetch,
    model,
    newId,
    resumed: run.resumed,
    async limit(work, { kind = 'network' } = {}) {
      return limitFor(laneOf(run.limit, kind), signal)(() => work(runNow))
    },
    scope() {
      const controller = new AbortController()
      const onParentAbort = () => controller.abort(signal.reason)
      if (signal.aborted) onParentAbort()
      const detach = onAbort(signal, onParentAbort)
      onAbort(controller.signal, detach)
      return Object.assign(scopedContext(run, controller.signal), {
        abort: (reason?: unknown) => controller.abort(reason ?? new DOMException('the scope was closed', 'AbortError')),
        close: detach,
      })
    },
    ...modelCalls(run, signal),
    ...searchCalls(run, signal),
    ...pageReads(run, signal),
    ...stepCalls(run, signal),
  }
}
