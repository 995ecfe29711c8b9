import type { ResearchEvent } from '../core/contracts/events.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { Subscriber } from './subscriber.js'
import type { EventStream } from './types.js'

/** Options of `broadcast()`: whether late subscribers replay the events they missed. */
export interface BroadcastOptions {
  /**
   * Keep every event so late subscribers replay from the start (or from a `seq`). Without
   * replay a subscriber sees only what happens after it subscribed.
   * @defaultValue true
   */
  replay?: boolean | undefined
  /**
   * Live events a subscriber may lag behind before it is cut off with a `warning`.
   * @defaultValue 1000
   */
  maxBuffer?: number | undefined
  /**
   * Let the run finish (and fill the replay history) when every subscriber has left, instead
   * of aborting it.
   * @defaultValue false
   */
  finishWithoutSubscribers?: boolean | undefined
  /**
   * How long the run waits for a new subscriber after the last one left before it is aborted:
   * room for an SSE client to reconnect and resume. Ignored with `finishWithoutSubscribers`.
   * @defaultValue 0
   */
  graceMs?: number | undefined
}

/** One subscriber's view of the run. `return()` (what `break` calls) leaves the broadcast. */
export interface Subscription extends AsyncIterableIterator<ResearchEvent> {
  return(): Promise<IteratorResult<ResearchEvent>>
}

/** One research stream shared by several readers: each `subscribe()` gets every event, in order. */
export interface Broadcast {
  /**
   * A new subscription, replaying from `fromSeq` (inclusive; default 0) when replay is on.
   * Iterate it once; `break` (its `return()`) leaves the broadcast.
   */
  subscribe(fromSeq?: number): Subscription
  /** Subscribers still receiving live events. */
  readonly subscriberCount: number
  /**
   * Settles once the run's stream is over (ended, aborted or failed) and the history is
   * complete; it never rejects. Servers use it to forget finished runs after a while.
   */
  readonly finished: Promise<void>
}

/**
 * One run, many consumers. The run is read as fast as it produces, whatever the subscribers
 * do: a slow one is cut off past its buffer, never stalling the run or the others. The run
 * starts with the first subscription and is aborted when the last subscriber leaves (after
 * `graceMs`), unless `finishWithoutSubscribers` is set. Being cut off is not leaving: the run
 * goes on, so the cut-off subscriber can resubscribe and catch up from the history.
 */
export function broadcast(run: EventStream, options: BroadcastOptions = {}): Broadcast {
  const replay = options.replay ?? true
  const maxBuffer = positiveInteger('maxBuffer', options.maxBuffer ?? 1000)
  const graceMs = options.graceMs ?? 0
  const history: ResearchEvent[] = []
  const subscribers = new Set<Subscriber>()
  const iterator = run[Symbol.asyncIterator]()
  let state: 'idle' | 'running' | 'done' = 'idle'
  let failure: { error: unknown } | undefined
  let stopRequested = false
  let graceTimer: ReturnType<typeof setTimeout> | undefined
  let markFinished!: () => void
  const finished = new Promise<void>((resolve) => (markFinished = resolve))

  const host = {
    history,
    leave(subscriber: Subscriber, how?: { cutOff: boolean }) {
      subscribers.delete(subscriber)
      // A subscriber cut off for lagging was told to resubscribe: the run goes on for it (its
      // history stays complete). Only a subscriber that chose to leave can end the run.
      if (how?.cutOff) return
      if (subscribers.size > 0 || state !== 'running' || options.finishWithoutSubscribers) return
      if (graceMs > 0) graceTimer ??= setTimeout(stop, graceMs)
      else stop()
    },
  }

  function stop(): void {
    graceTimer = undefined
    if (subscribers.size > 0 || state !== 'running') return
    const reason = new LaconicError('every subscriber of the broadcast left', { code: 'aborted' })
    // A run ends itself with `run-end {reason: 'aborted'}`, which completes the history; a
    // plain iterable has no abort, so the pump stops reading and closes it.
    if (run.abort) run.abort(reason)
    else stopRequested = true
  }

  async function pump(): Promise<void> {
    try {
      while (!stopRequested) {
        const step = await iterator.next()
        if (step.done) break
        if (replay) history.push(step.value)
        // No copy of the set per event: a subscriber cut off inside `push` deletes only itself,
        // which Set iteration allows, and nobody can subscribe synchronously from in here.
        for (const subscriber of subscribers) subscriber.push(step.value)
      }
      if (stopRequested) await iterator.return?.()
    } catch (error) {
      failure = { error }
    }
    state = 'done'
    for (const subscriber of subscribers) subscriber.finish(failure)
    subscribers.clear()
    markFinished()
  }

  return {
    subscribe(fromSeq = 0) {
      const subscriber = new Subscriber(host, nonNegativeInteger('fromSeq', fromSeq), maxBuffer)
      if (state === 'done') {
        subscriber.finish(failure)
        return subscriber
      }
      clearTimeout(graceTimer)
      graceTimer = undefined
      subscribers.add(subscriber)
      if (state === 'idle') {
        state = 'running'
        void pump()
      }
      return subscriber
    },
    get subscriberCount() {
      return subscribers.size
    },
    finished,
  }
}

function positiveInteger(name: string, value: number): number {
  if (Number.isSafeInteger(value) && value > 0) return value
  throw new LaconicError(`\`${name}\` must be a positive integer, got ${value}`, { code: 'config' })
}

function nonNegativeInteger(name: string, value: number): number {
  if (Number.isSafeInteger(value) && value >= 0) return value
  throw new LaconicError(`\`${name}\` must be a non-negative integer, got ${value}`, { code: 'config' })
}
