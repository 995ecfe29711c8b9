import type { ErrorInfo, EventPayloads, EventType, ResearchEvent, RunEndReason, StrategyEvent } from '../contracts/events.js'
import { toJson } from '../contracts/checkpoint.js'
import { type InterruptRequest, isInterruptRequest } from '../contracts/interruption.js'
import { abortError, describeWithCause } from '../contracts/laconic-error.js'
import type { Strategy, StrategyOutcome } from '../contracts/strategy-types.js'
import { onAbort as onAbortOf } from '../util/abort-listener.js'
import { type Prepared, type RunLoader, strategyEvents, type WarningEvent } from './prepared-run.js'
import type { RunEnding } from './run-ending.js'
import type { RunIterator } from './run-relay.js'

// biome-ignore lint/suspicious/noConfusingVoidType: a strategy's return type, as Strategy.run declares it
type Step = IteratorResult<StrategyEvent, StrategyOutcome | void>
type Served = IteratorResult<ResearchEvent> | Promise<IteratorResult<ResearchEvent>>
const DONE: IteratorResult<ResearchEvent> = { done: true, value: undefined }

/** The request of a paused outcome, as plain JSON; undefined when it names none a consumer could read. */
// biome-ignore lint/suspicious/noConfusingVoidType: a strategy's return type, as Strategy.run declares it
function requestOf(outcome: StrategyOutcome | void): InterruptRequest | undefined {
  const request = outcome && 'request' in outcome ? toJson(outcome.request) : undefined
  return isInterruptRequest(request) ? request : undefined
}

/** What the event stream needs of its run: its identity and abort, its preparing, its end. */
export interface RunControl {
  readonly runId: string
  readonly signal: AbortSignal
  abort(reason?: unknown): void
  readonly loader: RunLoader
  readonly ending: RunEnding
}

/**
 * The run's event stream, as a hand-written iterator rather than an async generator: each
 * event crosses one promise hop instead of a generator's several, which is most of the
 * runtime's cost per event (bench/overhead.ts). Phases: preparing (a deferred run),
 * `run-start`, the strategy's events, `run-end`; `return()` (the consumer left) aborts everything.
 * `serve` answers each `next()`, `step` takes the strategy's next event, `end` makes the last ones.
 */
export class RunEvents implements RunIterator {
  private phase: 'start' | 'running' | 'done' = 'start'
  /** The run's last events, made at once and served one per `next()`. */
  private readonly pending: IteratorResult<ResearchEvent>[] = []
  private seq = 0
  private generator: ReturnType<Strategy['run']> | undefined
  // An abort rejects the step in progress, so a strategy stuck on a call that ignores its
  // signal cannot keep the stream open. One step at a time holds the reject function: racing
  // every step against one long-lived promise would pile a reaction per event onto it.
  private rejectStep: ((error: unknown) => void) | undefined
  // One listener per signal however many runs share it (see abort-listener.ts).
  private stopWaiting = [() => {}]
  // Calls to next() are served one after another, even if a caller does not wait for each:
  // a call made while a step is in flight waits for it (and only then costs a promise hop).
  private busy = false
  private last: Promise<IteratorResult<ResearchEvent>> = Promise.resolve(DONE)

  constructor(private readonly control: RunControl) {}

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<ResearchEvent>> {
    this.last = this.busy ? this.last.then(this.serve, this.serve) : this.serve()
    return this.last
  }

  async return(): Promise<IteratorResult<ResearchEvent>> {
    if (this.phase === 'done') return DONE
    // The consumer left before the end (break out of `for await`): stop everything.
    this.control.abort(new DOMException('The consumer stopped reading the run', 'AbortError'))
    void this.generator?.return(undefined).catch(() => undefined)
    this.phase = 'done'
    // A deferred run left while it prepared still ends (aborted), so its lock is given back.
    const run = this.control.loader.ready ?? (await this.control.loader.load().catch(() => undefined))
    if (run) {
      // Nobody reads the events any more; the calls cut off still count in the result.
      for (const event of run.openCalls.drain()) run.fold.add(event)
      void this.control.ending.finish(run, 'aborted')
    }
    this.release()
    return DONE
  }

  private readonly serve = (): Promise<IteratorResult<ResearchEvent>> => {
    const queued = this.pending.shift()
    if (queued) return Promise.resolve(queued)
    if (this.phase === 'done') return Promise.resolve(DONE)
    const { loader } = this.control
    if (this.phase === 'start') {
      if (loader.ready) return Promise.resolve(this.begin(loader.ready))
      this.busy = true
      return loader.load().then(
        (run) => {
          this.busy = false
          return this.phase === 'done' ? DONE : this.begin(run)
        },
        (error: unknown) => {
          this.busy = false
          this.phase = 'done'
          throw error
        },
      )
    }
    this.busy = true
    return this.step(loader.ready as Prepared)
  }

  private readonly onAbort = () => this.rejectStep?.(abortError(this.control.signal))

  private release(): void {
    this.phase = 'done'
    for (const stop of this.stopWaiting) stop()
  }

  // Object.assign, not an object spread: V8 spreads these varied shapes ~10x slower.
  private stamp<T extends EventType>(event: { type: T } & EventPayloads[T]): IteratorResult<ResearchEvent> {
    const stamped = Object.assign({}, event) as unknown as Record<string, unknown>
    stamped.runId = this.control.runId
    stamped.seq = this.seq++
    stamped.time = Date.now()
    return { done: false, value: stamped as unknown as ResearchEvent }
  }

  /** A strategy's event, folded into the result and stamped (a `cost` event with the total so far). */
  private foldAndStamp(run: Prepared, event: StrategyEvent): IteratorResult<ResearchEvent> {
    run.fold.add(event)
    return event.type === 'cost'
      ? this.stamp({ type: 'cost', delta: event.delta, total: run.fold.cost })
      : this.stamp(event as { type: EventType } & EventPayloads[EventType])
  }

  private begin(run: Prepared): IteratorResult<ResearchEvent> {
    this.phase = 'running'
    const { restored, init } = run
    this.seq = restored?.seq ?? 0
    const callerSignal = init.input.signal
    const onCallerAbort = () => this.control.abort(callerSignal?.reason)
    if (callerSignal?.aborted) onCallerAbort()
    this.stopWaiting = [onAbortOf(callerSignal, onCallerAbort), onAbortOf(this.control.signal, this.onAbort)]
    return this.stamp({ type: 'run-start', question: init.question, strategy: init.strategy.name, ...(restored ? { resumed: { cost: restored.cost } } : {}) })
  }

  private step(run: Prepared): Promise<IteratorResult<ResearchEvent>> {
    const { signal } = this.control
    if (signal.aborted) return Promise.resolve(this.onThrow(run, abortError(signal)))
    try {
      this.generator ??= strategyEvents(run, signal)
    } catch (thrown) {
      return Promise.resolve(this.onThrow(run, thrown))
    }
    const running = this.generator
    return new Promise<Step>((resolve, reject) => {
      this.rejectStep = reject
      running.next().then(resolve, reject)
    }).then(
      (taken) => this.onStep(run, taken),
      (thrown) => this.onThrow(run, thrown),
    )
  }

  private onStep(run: Prepared, taken: Step): Served {
    if (taken.done) return this.onOutcome(run, taken.value)
    const event = taken.value
    if (event.type === 'checkpoint') {
      // Not an event for consumers: save it, let the strategy go on (unless the run was
      // aborted meanwhile), then take its next event.
      const saving = run.checkpoints ? run.checkpoints.step(event.state, this.seq, run.gathered(), event.ids) : Promise.resolve(undefined)
      return saving.then((warning) => {
        if (!this.control.signal.aborted) event.saved?.()
        return warning ? this.onStep(run, { done: false, value: warning }) : this.step(run)
      })
    }
    this.busy = false
    return this.foldAndStamp(run, event)
  }

  /** The strategy returned: its final checkpoint saved, the run ends as the outcome says. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a strategy's return type, as Strategy.run declares it
  private onOutcome(run: Prepared, outcome: StrategyOutcome | void): Served {
    const reason = this.control.signal.aborted ? 'aborted' : (outcome?.reason ?? 'answered')
    const request = reason === 'paused' ? requestOf(outcome) : undefined
    if (reason === 'paused' && !request) {
      this.busy = false
      return this.end(run, 'error', { message: 'the strategy paused without a request saying what it waits for', code: 'config' })
    }
    if (!run.checkpoints) {
      this.busy = false
      return this.end(run, reason, undefined, request)
    }
    return run.checkpoints.end(reason, run.fold.result(reason, undefined, request), this.seq + 1, run.gathered()).then(() => {
      this.busy = false
      return this.end(run, reason, undefined, request)
    })
  }

  private onThrow(run: Prepared, thrown: unknown): Served {
    this.busy = false
    void this.generator?.return(undefined).catch(() => undefined)
    return this.control.signal.aborted ? this.end(run, 'aborted') : this.end(run, 'error', describeWithCause(thrown))
  }

  /** Ends the run: its last events (`onEnd`'s warnings, then `run-end`) come once the run's end is done. */
  private end(run: Prepared, reason: RunEndReason, error?: ErrorInfo, request?: InterruptRequest): Served {
    for (const event of run.openCalls.drain()) this.pending.push(this.foldAndStamp(run, event))
    const finished = this.control.ending.finish(run, reason, error, request)
    this.release()
    this.busy = true
    // A run may leave work in flight (a search beside a branch that threw, a step cut off at the
    // iteration cap, a call a strategy started and never awaited): stop it before anyone sees
    // `run-end`, so every call's signal is aborted and nothing keeps running, or costing, after
    // the run is over.
    this.control.abort(new DOMException(`the run ended (${reason})`, 'AbortError'))
    const last = (warnings: WarningEvent[]): IteratorResult<ResearchEvent> => {
      this.busy = false
      const { cost, answer } = run.fold.result(reason)
      for (const warning of warnings) this.pending.push(this.stamp(warning))
      this.pending.push(
        this.stamp({
          type: 'run-end',
          reason,
          cost,
          ...(answer ? { answer } : {}),
          ...(error ? { error } : {}),
          ...(request ? { request } : {}),
        }),
      )
      return this.pending.shift() as IteratorResult<ResearchEvent>
    }
    return Array.isArray(finished) ? last(finished) : finished.then(last)
  }
}
