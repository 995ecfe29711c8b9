/**
 * What a run is made from (`RunInit`, or a `DeferredRunInit` that loads it first) and what the
 * runtime builds from it before the first event: the result fold, ids, ledger, checkpoints, the
 * strategy's context, and the source of the strategy's events.
 */
import type { Checkpoint, ReleaseLock } from '../contracts/checkpoint.js'
import type { StrategyEvent } from '../contracts/events.js'
import type { RecalledFinding } from '../contracts/long-term-memory.js'
import type { ResearchResult } from '../contracts/result.js'
import type { ResearchOptions, ResumeOptions, SharedOptions, Strategy, StrategyContext, StrategyOutcome } from '../contracts/strategy-types.js'
import { createIdSource } from '../util/ids.js'
import { createContext } from './context.js'
import { OpenCalls } from './open-calls.js'
import { ResultFold } from './result-fold.js'
import { type Gathered, type RunCheckpoints, runCheckpoints, savedInput, strategyOptionsOf } from './run-checkpoints.js'
import { type MemorySettings, memorySettings, recallFindings } from './run-memory.js'
import { createLedger, type Ledger } from './run-scope.js'
import { usageCollector } from './run-usage.js'

/** A warning the runtime itself emits. */
export type WarningEvent = Extract<StrategyEvent, { type: 'warning' }>

export interface RunInit {
  strategy: Strategy
  question: string
  options: Readonly<SharedOptions>
  input: Readonly<ResearchOptions>
  /**
   * Called once with the result when the run ends, without starting the run. The run's
   * `run-end` (and its result) wait for it; the warnings it returns are emitted just before `run-end`.
   */
  onEnd?: (result: ResearchResult) => Promise<WarningEvent[] | undefined> | undefined
  /** A resumed run: the checkpoint it continues, what was passed to resume, and the lock resume took. */
  restore?: { checkpoint: Checkpoint; options: Readonly<ResumeOptions>; lock: ReleaseLock }
}

/**
 * A run that has to be prepared asynchronously first (`agent.resume` loads its checkpoint and
 * takes its lock): nothing is loaded until it is read or its result awaited. When preparing
 * fails (a corrupt checkpoint, a lock held elsewhere), reading it throws that error and its
 * result rejects with it: no event is made up for a run that never started.
 */
export interface DeferredRunInit {
  runId: string
  prepare(): Promise<RunInit>
}

/** What a run needs once its init is known: the strategy's inputs, its fold, ids and checkpoints. */
export interface Prepared {
  runId: string
  /** Its `input` takes the recalled findings once memory has answered (`adoptRecalled`). */
  init: RunInit
  restored: Checkpoint | undefined
  fold: ResultFold
  openCalls: OpenCalls
  /** What the run spent, for its budget: the strategy's context shares it, and the recall before the strategy counts in it. */
  ledger: Ledger
  checkpoints: RunCheckpoints | undefined
  /** The agent's long-term memory, when it has one. */
  memory: MemorySettings | undefined
  /** The run recalls before its strategy starts: memory is on, and this is neither a resume nor a run given its findings. */
  recalls: boolean
  adoptRecalled(findings: RecalledFinding[]): void
  context(): StrategyContext
  gathered(): Gathered
}

/** The strategy's context, continuing `restore`'s checkpoint when the run resumes one. */
function contextOf(run: Prepared, signal: AbortSignal, ids: ReturnType<typeof createIdSource>): StrategyContext {
  const { restore, question, options } = run.init
  return createContext({
    runId: run.runId,
    question,
    signal,
    options,
    input: run.init.input,
    ids,
    openCalls: run.openCalls,
    ledger: run.ledger,
    ...(run.init.strategy.concurrency !== undefined && { concurrency: run.init.strategy.concurrency }),
    ...(restore
      ? {
          resumed: {
            state: restore.checkpoint.state,
            paused: restore.checkpoint.status === 'paused',
            ...(restore.checkpoint.status === 'paused' && restore.checkpoint.request ? { request: restore.checkpoint.request } : {}),
            ...(restore.options.decision ? { decision: restore.options.decision } : {}),
            facts: restore.checkpoint.facts,
            cost: restore.checkpoint.cost,
            options: restore.options,
          },
        }
      : {}),
  })
}

export function prepareRun(start: RunInit, runId: string, signal: AbortSignal): Prepared {
  const { strategy, question, options, restore } = start
  const restored = restore?.checkpoint
  const fold = new ResultFold(start.input.knowledge ?? '', restored)
  const ids = createIdSource(restored?.ids)
  const memory = memorySettings(options.memory)
  // Made again when the input changes (before the strategy's first step, so before any save).
  const checkpointsFor = (input: Readonly<ResearchOptions>) =>
    input.checkpoints
      ? runCheckpoints({
          store: input.checkpoints,
          base: { runId, question, strategy: strategy.name, options: strategyOptionsOf(strategy, options), input: savedInput(input) },
          ids,
          ...(restored ? { state: restored.state, lock: restore.lock } : {}),
        })
      : undefined
  const run: Prepared = {
    runId,
    init: start,
    restored,
    fold,
    openCalls: new OpenCalls(),
    ledger: createLedger(restored?.cost),
    checkpoints: checkpointsFor(start.input),
    memory,
    recalls: memory !== undefined && memory.recall > 0 && !restored && start.input.recalled === undefined,
    adoptRecalled(findings) {
      run.init = { ...run.init, input: { ...run.init.input, recalled: findings } }
      run.checkpoints = checkpointsFor(run.init.input)
    },
    context: () => contextOf(run, signal, ids),
    gathered: () => ({ cost: fold.cost, facts: [...fold.facts.values()], knowledge: fold.knowledge }),
  }
  return run
}

/**
 * A run's prepared state, at once for a run given its init, else loaded once when first needed;
 * a failure to load rejects the run's result and every read.
 */
export class RunLoader {
  /** The prepared run, once it is. */
  ready: Prepared | undefined
  private loading: Promise<Prepared> | undefined

  constructor(
    private readonly start: RunInit | DeferredRunInit,
    private readonly runId: string,
    private readonly signal: AbortSignal,
    /** Told why preparing failed, once. */
    private readonly failed: (error: unknown) => void,
  ) {
    if (!('prepare' in start)) this.ready = prepareRun(start, runId, signal)
  }

  load(): Promise<Prepared> {
    if (this.ready) return Promise.resolve(this.ready)
    this.loading ??= (this.start as DeferredRunInit)
      .prepare()
      .then((init) => {
        try {
          this.ready = prepareRun(init, this.runId, this.signal)
          return this.ready
        } catch (error) {
          void init.restore?.lock().catch(() => undefined)
          throw error
        }
      })
      .catch((error: unknown) => {
        this.failed(error)
        throw error
      })
    return this.loading
  }
}

/** A finished run resumed: nothing to call, it ends as it ended (its result is in the fold). */
// biome-ignore lint/correctness/useYield: a strategy with no events, only an outcome
async function* replayEnd(checkpoint: Checkpoint): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const reason = checkpoint.result?.reason
  return { reason: reason === 'max-iterations' ? 'max-iterations' : 'answered' }
}

/**
 * The strategy, after long-term memory's recall: a `recall` event with the findings (then in the
 * strategy's `input.recalled`), or a `warning` when the store failed and the run goes on without;
 * then what the recall spent (the question's embedding), as the run's cost.
 */
async function* recallThenRun(run: Prepared, memory: MemorySettings, signal: AbortSignal): ReturnType<Strategy['run']> {
  const usage = usageCollector({ options: run.init.options, ledger: run.ledger, openCalls: run.openCalls })
  const recalled = await recallFindings(memory, run.init.question, signal, usage.onUsage)
  if ('warning' in recalled) yield { type: 'warning', code: 'recall-failed', message: recalled.warning }
  else {
    run.adoptRecalled(recalled.findings)
    yield { type: 'recall', findings: recalled.findings }
  }
  yield* usage.take()
  return yield* run.init.strategy.run(run.init.question, run.context())
}

/** The events the run serves between `run-start` and `run-end`: a finished run's replayed end, the recall then the strategy, or the strategy. */
export function strategyEvents(run: Prepared, signal: AbortSignal): ReturnType<Strategy['run']> {
  if (run.restored?.status === 'final') return replayEnd(run.restored)
  if (run.recalls && run.memory) return recallThenRun(run, run.memory, signal)
  return run.init.strategy.run(run.init.question, run.context())
}
