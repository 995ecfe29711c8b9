import type { ResearchEvent } from '../contracts/events.js'
import { LaconicError } from '../contracts/laconic-error.js'
import type { ResearchResult } from '../contracts/result.js'
import { type DeferredRunInit, type RunInit, RunLoader } from './prepared-run.js'
import { RunEnding } from './run-ending.js'
import { type RunControl, RunEvents } from './run-events.js'
import { type RunIterator, RunRelay } from './run-relay.js'

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
  const abort = (reason?: unknown) => {
    if (!signal.aborted) controller.abort(reason ?? new DOMException('The run was aborted', 'AbortError'))
  }
  const ending = new RunEnding()
  const loader = new RunLoader(start, runId, signal, (error) => ending.failed(error))
  const control: RunControl = { runId, signal, abort, loader, ending }

  let started = false
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
    return new RunEvents(control)
  }
  const startInBackground = () => {
    if (started) return
    relay = new RunRelay(iterate())
  }

  return {
    runId,
    // A real promise (its own `then` starts the run first), so `await run.result` alone drives it.
    result: lazyPromise(ending.result, startInBackground),
    abort,
    [Symbol.asyncIterator]: iterate,
    toReadableStream: () => readableStreamOf(iterate),
  }
}

/** The run's events as a Web stream: the first pull starts reading the run, cancelling it stops the run. */
function readableStreamOf(iterate: () => RunIterator): ReadableStream<ResearchEvent> {
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
}
