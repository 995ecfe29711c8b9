import { onAbort as onAbortOf } from '../util/abort-listener.js'
import { abortError, describeError, describeWithCause, LaconicError } from '../contracts/laconic-error.js'
import type { ErrorInfo, EventPayloads, EventType, ResearchEvent, RunEndReason, StrategyEvent } from '../contracts/events.js'
import { createContext } from './context.js'
import { toJson, type Checkpoint, type ReleaseLock } from '../contracts/checkpoint.js'
import { type InterruptRequest, isInterruptRequest } from '../contracts/interruption.js'
import { createIdSource } from '../util/ids.js'
import { RunRelay, type RunIterator } from './run-relay.js'
import { OpenCalls } from './open-calls.js'
import { createLedger, type Ledger } from './run-scope.js'
import { usageCollector } from './run-usage.js'
import { ResultFold } from './result-fold.js'
import type { RecalledFinding } from '../contracts/long-term-memory.js'
import { type MemorySettings, memorySettings, recallFindings, rememberRun } from './run-memory.js'
import { type Gathered, type RunCheckpoints, runCheckpoints, savedInput, strategyOptionsOf } from './run-checkpoints.js'
import type { ResearchResult } from '../contracts/result.js'
import type { SharedOptions, ResearchOptions, ResumeOptions, Strategy, StrategyContext, StrategyOutcome } from '../contracts/strategy-types.js'

type WarningEvent = Extract<StrategyEvent, { type: 'warning' }>

/** A research run: iterate it for its events, await `result` for what it found, or `abort()` it. */
export interface ResearchRun extends AsyncIterable<ResearchEvent> {
  readonly runId: string
  /** A real Promise of what the run gathered, settled when it ends; subscribing to it (`await`, `then`, `catch`, `finally`) starts the run. */
  readonly result: Promise<ResearchResult>
  /** Stops every in-flight request of the run; the stream ends with `run-end {reason: 'aborted'}`. */
  abort(reason?: unknown): void
  toReadableStream(): ReadableStream<ResearchEvent>
}

/**
 * A real Promise that settles with `settled` and calls `start` the first time anyone subscribes
 * through `then` (which `await`, `catch` and `finally` all go through). Derived promises are
 * plain ones. Subscribing with `Promise.prototype.then.call` skips the start: it only waits.
 */
export function lazyPromise<T>(settled: Promise<T>, start: () => void): Promise<T> {
  class LazyPromise extends Promise<T> {
    static override get [Symbol.species]() {
      return Promise
    }
    // biome-ignore lint/suspicious/noThenProperty: a Promise subclass overrides then; that is the point of it
    override then<A = T, B = never>(
      onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
      onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ): Promise<A | B> {
      start()
      return super.then(onFulfilled, onRejected)
    }
  }
  const lazy = new LazyPromise((resolve, reject) => settled.then(resolve, reject))
  // Its rejection is `settled`'s, reported (or handled) there: a run read only by iterating, whose
  // result nobody awaits, must not crash the process when it fails to load (a resume's lock held).
  Promise.prototype.then.call(lazy, undefined, () => undefined)
  return lazy
}

/** The request of a paused outcome, as plain JSON; undefined when it names none a consumer could read. */
// biome-ignore lint/suspicious/noConfusingVoidType: a strategy's return type, as Strategy.run declares it
function requestOf(outcome: StrategyOutcome | void): InterruptRequest | undefined {
  const request = outcome && 'request' in outcome ? toJson(outcome.request) : undefined
  return isInterruptRequest(request) ? request : undefined
}

/** A finished run resumed: nothing to call, it ends as it ended (its result is in the fold). */
// biome-ignore lint/correctness/useYield: a strategy with no events, only an outcome
async function* replayEnd(checkpoint: Checkpoint): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const reason = checkpoint.result?.reason
  return { reason: reason === 'max-iterations' ? 'max-iterations' : 'answered' }
}

function deferred<T>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok
    reject = fail
  })
  return { promise, resolve, reject }
}

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
interface Prepared {
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

function prepared(start: RunInit, runId: string, signal: AbortSignal): Prepared {
  const { strategy, question, options, restore } = start
  const restored = restore?.checkpoint
  const fold = new ResultFold(start.input.knowledge ?? '', restored)
  const ids = createIdSource(restored?.ids)
  const memory = memorySettings(options.memory)
  const openCalls = new OpenCalls()
  const ledger = createLedger(restore?.checkpoint.cost)
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
    init: start,
    restored,
    fold,
    openCalls,
    ledger,
    checkpoints: checkpointsFor(start.input),
    memory,
    recalls: memory !== undefined && memory.recall > 0 && !restored && start.input.recalled === undefined,
    adoptRecalled(findings) {
      run.init = { ...run.init, input: { ...run.init.input, recalled: findings } }
      run.checkpoints = checkpointsFor(run.init.input)
    },
    context: () =>
      createContext({
        runId,
        question,
        signal,
        options,
        input: run.init.input,
        ids,
        openCalls,
        ledger,
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
      }),
    gathered: () => ({ cost: fold.cost, facts: [...fold.facts.values()], knowledge: fold.knowledge }),
  }
  return run
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

/**
 * A lazy research run. The strategy starts when the run is first iterated or its result is
 * awaited; the runtime stamps every event, sums cost, and guarantees one `run-start` first and
 * one `run-end` last, whatever the strategy does (throws, hangs on an abort, or is abandoned).
 * A deferred run (`{ runId, prepare }`) prepares itself first, when it is first read.
 */
export function createRun(start: RunInit | DeferredRunInit): ResearchRun {
  const controller = new AbortController()
  const signal = controller.signal
  const runId = 'prepare' in start ? start.runId : (start.restore?.checkpoint.runId ?? crypto.randomUUID())
  let ready: Prepared | undefined = 'prepare' in start ? undefined : prepared(start, runId, signal)
  let loading: Promise<Prepared> | undefined
  /** Prepares a deferred run once; a failure rejects the result and every read. */
  const load = (): Promise<Prepared> => {
    if (ready) return Promise.resolve(ready)
    loading ??= (start as DeferredRunInit)
      .prepare()
      .then((init) => {
        try {
          ready = prepared(init, runId, signal)
          return ready
        } catch (error) {
          void init.restore?.lock().catch(() => undefined)
          throw error
        }
      })
      .catch((error: unknown) => {
        settled.reject(error)
        throw error
      })
    return loading
  }
  const settled = deferred<ResearchResult>()
  // Not an unhandled rejection when nobody awaits the result of a run that failed to prepare.
  settled.promise.catch(() => undefined)
  let started = false
  let finishing: Promise<WarningEvent[]> | undefined

  const abort = (reason?: unknown) => {
    if (!signal.aborted) controller.abort(reason ?? new DOMException('The run was aborted', 'AbortError'))
  }

  /**
   * Ends the run once: gives its lock back and calls `onEnd`. The result settles after both, so
   * a caller who awaited it can resume the run at once, or read what `onEnd` saved. Resolves to
   * the warnings to emit before `run-end`.
   */
  const finish = (run: Prepared, reason: RunEndReason, error?: ErrorInfo, request?: InterruptRequest): WarningEvent[] | Promise<WarningEvent[]> => {
    if (finishing) return finishing
    const result = run.fold.result(reason, error, request)
    // A resumed finished run only replays its end: it was written when it first ended.
    if (run.memory && run.restored?.status !== 'final') rememberRun(run.memory, { runId, question: run.init.question, result }, run.init.options.pricing)
    const released = run.checkpoints?.release()
    const onEnd = run.init.onEnd
    if (!released && !onEnd) {
      // Nothing to wait for: the run ends now, with no promise hop between the abort and `run-end`.
      finishing = Promise.resolve([])
      settled.resolve(result)
      return []
    }
    const notices = onEnd
      ? Promise.resolve()
          .then(() => onEnd(result))
          .then(
            (warnings) => warnings ?? [],
            (failure: unknown): WarningEvent[] => [{ type: 'warning', code: 'config', message: `after the run: ${describeError(failure).message}` }],
          )
      : undefined
    finishing = Promise.all([released, notices]).then(([, warnings]) => {
      settled.resolve(result)
      return warnings ?? []
    })
    return finishing
  }

  /**
   * The run's event stream, as a hand-written iterator rather than an async generator: each
   * event crosses one promise hop instead of a generator's several, which is most of the
   * runtime's cost per event (bench/overhead.ts). Phases: preparing (a deferred run),
   * `run-start`, the strategy's events, `run-end`; `return()` (the consumer left) aborts everything.
   */
  function events(): RunIterator {
    // biome-ignore lint/suspicious/noConfusingVoidType: a strategy's return type, as Strategy.run declares it
    type Step = IteratorResult<StrategyEvent, StrategyOutcome | void>
    const DONE: IteratorResult<ResearchEvent> = { done: true, value: undefined }
    let phase: 'start' | 'running' | 'done' = 'start'
    /** The run's last events, made at once and served one per `next()`. */
    const pending: IteratorResult<ResearchEvent>[] = []
    let seq = 0
    let generator: ReturnType<Strategy['run']> | undefined
    // An abort rejects the step in progress, so a strategy stuck on a call that ignores its
    // signal cannot keep the stream open. One step at a time holds the reject function: racing
    // every step against one long-lived promise would pile a reaction per event onto it.
    let rejectStep: ((error: unknown) => void) | undefined

    // Object.assign, not an object spread: V8 spreads these varied shapes ~10x slower.
    const stamp = <T extends EventType>(event: { type: T } & EventPayloads[T]): IteratorResult<ResearchEvent> => {
      const stamped = Object.assign({}, event) as unknown as Record<string, unknown>
      stamped.runId = runId
      stamped.seq = seq++
      stamped.time = Date.now()
      return { done: false, value: stamped as unknown as ResearchEvent }
    }

    /** A strategy's event, folded into the result and stamped (a `cost` event with the total so far). */
    const foldAndStamp = (run: Prepared, event: StrategyEvent): IteratorResult<ResearchEvent> => {
      run.fold.add(event)
      return event.type === 'cost'
        ? stamp({ type: 'cost', delta: event.delta, total: run.fold.cost })
        : stamp(event as { type: EventType } & EventPayloads[EventType])
    }

    const onAbort = () => rejectStep?.(abortError(signal))
    // One listener per signal however many runs share it (see abort-listener.ts).
    let stopWaiting = [() => {}]
    const release = () => {
      phase = 'done'
      for (const stop of stopWaiting) stop()
    }

    /** Ends the run: its last events (`onEnd`'s warnings, then `run-end`) come once `finish` is done. */
    const end = (
      run: Prepared,
      reason: RunEndReason,
      error?: ErrorInfo,
      request?: InterruptRequest,
    ): IteratorResult<ResearchEvent> | Promise<IteratorResult<ResearchEvent>> => {
      for (const event of run.openCalls.drain()) pending.push(foldAndStamp(run, event))
      const finished = finish(run, reason, error, request)
      release()
      busy = true
      // A run may leave work in flight (a search beside a branch that threw, a step cut off at the
      // iteration cap, a call a strategy started and never awaited): stop it before anyone sees
      // `run-end`, so every call's signal is aborted and nothing keeps running, or costing, after
      // the run is over.
      abort(new DOMException(`the run ended (${reason})`, 'AbortError'))
      const last = (warnings: WarningEvent[]): IteratorResult<ResearchEvent> => {
        busy = false
        const { cost, answer } = run.fold.result(reason)
        for (const warning of warnings) pending.push(stamp(warning))
        pending.push(
          stamp({
            type: 'run-end',
            reason,
            cost,
            ...(answer ? { answer } : {}),
            ...(error ? { error } : {}),
            ...(request ? { request } : {}),
          }),
        )
        return pending.shift() as IteratorResult<ResearchEvent>
      }
      return Array.isArray(finished) ? last(finished) : finished.then(last)
    }

    const onStep = (run: Prepared, taken: Step): IteratorResult<ResearchEvent> | Promise<IteratorResult<ResearchEvent>> => {
      const { checkpoints, fold } = run
      if (taken.done) {
        const reason = signal.aborted ? 'aborted' : (taken.value?.reason ?? 'answered')
        const request = reason === 'paused' ? requestOf(taken.value) : undefined
        if (reason === 'paused' && !request) {
          busy = false
          return end(run, 'error', { message: 'the strategy paused without a request saying what it waits for', code: 'config' })
        }
        if (!checkpoints) {
          busy = false
          return end(run, reason, undefined, request)
        }
        return checkpoints.end(reason, fold.result(reason, undefined, request), seq + 1, run.gathered()).then(() => {
          busy = false
          return end(run, reason, undefined, request)
        })
      }
      const event = taken.value
      if (event.type === 'checkpoint') {
        // Not an event for consumers: save it, let the strategy go on (unless the run was
        // aborted meanwhile), then take its next event.
        const saving = checkpoints ? checkpoints.step(event.state, seq, run.gathered(), event.ids) : Promise.resolve(undefined)
        return saving.then((warning) => {
          if (!signal.aborted) event.saved?.()
          return warning ? onStep(run, { done: false, value: warning }) : step(run)
        })
      }
      busy = false
      return foldAndStamp(run, event)
    }

    const onThrow = (run: Prepared, thrown: unknown): IteratorResult<ResearchEvent> | Promise<IteratorResult<ResearchEvent>> => {
      busy = false
      void generator?.return(undefined).catch(() => undefined)
      return signal.aborted ? end(run, 'aborted') : end(run, 'error', describeWithCause(thrown))
    }

    const begin = (run: Prepared): IteratorResult<ResearchEvent> => {
      phase = 'running'
      const { restored, init } = run
      seq = restored?.seq ?? 0
      const callerSignal = init.input.signal
      const onCallerAbort = () => abort(callerSignal?.reason)
      if (callerSignal?.aborted) onCallerAbort()
      stopWaiting = [onAbortOf(callerSignal, onCallerAbort), onAbortOf(signal, onAbort)]
      return stamp({ type: 'run-start', question: init.question, strategy: init.strategy.name, ...(restored ? { resumed: { cost: restored.cost } } : {}) })
    }

    const step = (run: Prepared): Promise<IteratorResult<ResearchEvent>> => {
      if (signal.aborted) return Promise.resolve(onThrow(run, abortError(signal)))
      try {
        generator ??=
          run.restored?.status === 'final'
            ? replayEnd(run.restored)
            : run.recalls && run.memory
              ? recallThenRun(run, run.memory, signal)
              : run.init.strategy.run(run.init.question, run.context())
      } catch (thrown) {
        return Promise.resolve(onThrow(run, thrown))
      }
      const running = generator
      return new Promise<Step>((resolve, reject) => {
        rejectStep = reject
        running.next().then(resolve, reject)
      }).then(
        (taken) => onStep(run, taken),
        (thrown) => onThrow(run, thrown),
      )
    }

    // Calls to next() are served one after another, even if a caller does not wait for each:
    // a call made while a step is in flight waits for it (and only then costs a promise hop).
    let busy = false
    let last: Promise<IteratorResult<ResearchEvent>> = Promise.resolve(DONE)
    const serve = (): Promise<IteratorResult<ResearchEvent>> => {
      const queued = pending.shift()
      if (queued) return Promise.resolve(queued)
      if (phase === 'done') return Promise.resolve(DONE)
      if (phase === 'start') {
        if (ready) return Promise.resolve(begin(ready))
        busy = true
        return load().then(
          (run) => {
            busy = false
            return phase === 'done' ? DONE : begin(run)
          },
          (error: unknown) => {
            busy = false
            phase = 'done'
            throw error
          },
        )
      }
      busy = true
      return step(ready as Prepared)
    }
    const next = (): Promise<IteratorResult<ResearchEvent>> => (last = busy ? last.then(serve, serve) : serve())

    return {
      [Symbol.asyncIterator]() {
        return this
      },
      next,
      async return() {
        if (phase === 'done') return DONE
        // The consumer left before the end (break out of `for await`): stop everything.
        abort(new DOMException('The consumer stopped reading the run', 'AbortError'))
        void generator?.return(undefined).catch(() => undefined)
        phase = 'done'
        // A deferred run left while it prepared still ends (aborted), so its lock is given back.
        const run = ready ?? (await load().catch(() => undefined))
        if (run) {
          // Nobody reads the events any more; the calls cut off still count in the result.
          for (const event of run.openCalls.drain()) run.fold.add(event)
          void finish(run, 'aborted')
        }
        release()
        return DONE
      },
    }
  }

  // Set when awaiting the result started the run: the first reader then reads it through this.
  let relay: RunRelay | undefined
  const iterate = (): RunIterator => {
    if (relay && !relay.attached) return relay.attach()
    if (started) {
      throw new LaconicError('a research run can be read only once', {
        code: 'config',
        hint: 'use broadcast(run) from laconic-research/streams to share one run among several consumers',
      })
    }
    started = true
    return events()
  }

  const startInBackground = () => {
    if (started) return
    relay = new RunRelay(iterate())
  }

  // A real promise (its own `then` starts the run first), so `await run.result` alone drives it.
  const result = lazyPromise(settled.promise, startInBackground)

  return {
    runId,
    result,
    abort,
    [Symbol.asyncIterator]: iterate,
    toReadableStream() {
      let iterator: RunIterator | undefined
      return new ReadableStream<ResearchEvent>({
        async pull(controller) {
          iterator ??= iterate()
          const step = await iterator.next()
          if (step.done) controller.close()
          else controller.enqueue(step.value)
        },
        async cancel() {
          iterator ??= iterate()
          await iterator.return()
        },
      })
    },
  }
}
