import type { EventOf, ResearchEvent } from '../core/contracts/events.js'
import type { ReadySource, SourceEnd } from './ready-source.js'

interface Waiter {
  resolve(result: IteratorResult<ResearchEvent>): void
  reject(error: unknown): void
}

/** What a subscriber needs from its broadcast. */
export interface SubscriberHost {
  readonly history: readonly ResearchEvent[]
  /** `cutOff`: the broadcast dropped it for lagging; it did not choose to leave. */
  leave(subscriber: Subscriber, how?: { cutOff: boolean }): void
}

/**
 * One subscription of a broadcast: it replays the history it was given (read in place, not
 * copied), then the live events queued for it. The live queue is bounded: past `maxBuffer`
 * the subscriber is cut off with a `slow-subscriber` warning, so it never holds the run back.
 *
 * Read it either as an async iterator (`next()`) or, as `pipeSSE` does, as a `ReadySource`
 * (`onReady` + `poll()`), which costs no promise per event.
 */
export class Subscriber implements AsyncIterableIterator<ResearchEvent>, ReadySource {
  onReady: (() => void) | undefined
  private replayIndex: number
  private readonly replayEnd: number
  private readonly queue: ResearchEvent[] = []
  private readonly waiters: Waiter[] = []
  /** No live event will be added any more: the run ended, or this subscriber left or was cut off. */
  private closed = false
  private failure: { error: unknown } | undefined

  constructor(
    private readonly host: SubscriberHost,
    private readonly fromSeq: number,
    private readonly maxBuffer: number,
  ) {
    const start = host.history.findIndex((event) => event.seq >= fromSeq)
    this.replayEnd = host.history.length
    this.replayIndex = start === -1 ? this.replayEnd : start
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<ResearchEvent>> {
    const event = this.take()
    if (event) return Promise.resolve({ done: false, value: event })
    if (this.closed) return this.settle()
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  /** Leave the broadcast (what `break` in `for await` does). */
  return(): Promise<IteratorResult<ResearchEvent>> {
    if (!this.closed) this.host.leave(this)
    this.closed = true
    this.failure = undefined
    this.queue.length = 0
    this.replayIndex = this.replayEnd
    for (const waiter of this.waiters.splice(0)) waiter.resolve({ done: true, value: undefined })
    return Promise.resolve({ done: true, value: undefined })
  }

  /** The next event ready now, without a promise (the `ReadySource` way to read). */
  poll(): ResearchEvent | undefined {
    return this.take()
  }

  /** Set once everything was taken and nothing more will come (the `ReadySource` way to read). */
  get ended(): SourceEnd | undefined {
    if (!this.closed || this.replayIndex < this.replayEnd || this.queue.length > 0) return undefined
    return this.failure ? { failure: this.failure } : {}
  }

  /** Offer a live event. */
  push(event: ResearchEvent): void {
    if (this.closed || event.seq < this.fromSeq) return
    const waiter = this.waiters.shift()
    if (waiter) {
      waiter.resolve({ done: false, value: event })
      return
    }
    if (this.queue.length < this.maxBuffer) {
      this.queue.push(event)
    } else {
      this.queue.push(this.cutOffWarning(this.queue.at(-1) ?? event))
      this.closed = true
      this.host.leave(this, { cutOff: true })
    }
    this.onReady?.()
  }

  /** The run is over: deliver what is queued, then end (or throw the run's error once). */
  finish(failure?: { error: unknown }): void {
    if (this.closed) return
    this.closed = true
    this.failure = failure
    for (const waiter of this.waiters.splice(0)) {
      this.settle().then(waiter.resolve, waiter.reject)
    }
    this.onReady?.()
  }

  private take(): ResearchEvent | undefined {
    if (this.replayIndex < this.replayEnd) return this.host.history[this.replayIndex++]
    return this.queue.shift()
  }

  private settle(): Promise<IteratorResult<ResearchEvent>> {
    const failure = this.failure
    this.failure = undefined
    return failure ? Promise.reject(failure.error) : Promise.resolve({ done: true, value: undefined })
  }

  // It carries the seq of the last event this subscriber got, so `subscribe(seq + 1)` (or an
  // SSE client's Last-Event-ID) resumes exactly where it stopped; fromSSE drops it as seen.
  private cutOffWarning(last: ResearchEvent): EventOf<'warning'> {
    return {
      type: 'warning',
      code: 'slow-subscriber',
      message: `this subscriber fell more than ${this.maxBuffer} events behind and was cut off; resubscribe from seq ${last.seq + 1} to catch up`,
      runId: last.runId,
      seq: last.seq,
      time: Date.now(),
    }
  }
}
