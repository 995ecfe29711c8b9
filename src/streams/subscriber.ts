import type { EventOf, ResearchEvent } from '../core/index.js'

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
 */
export class Subscriber implements AsyncIterableIterator<ResearchEvent> {
  private replayIndex: number
  private readonly replayEnd: number
  private readonly queue: ResearchEvent[] = []
  private readonly waiters: Waiter[] = []
  /** No live event will be added any more: the run ended, or this subscriber left or was cut off. */
  private ended = false
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
    if (this.ended) return this.settle()
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  /** Leave the broadcast (what `break` in `for await` does). */
  return(): Promise<IteratorResult<ResearchEvent>> {
    if (!this.ended) this.host.leave(this)
    this.ended = true
    this.failure = undefined
    this.queue.length = 0
    this.replayIndex = this.replayEnd
    for (const waiter of this.waiters.splice(0)) waiter.resolve({ done: true, value: undefined })
    return Promise.resolve({ done: true, value: undefined })
  }

  /** Offer a live event. */
  push(event: ResearchEvent): void {
    if (this.ended || event.seq < this.fromSeq) return
    const waiter = this.waiters.shift()
    if (waiter) {
      waiter.resolve({ done: false, value: event })
      return
    }
    if (this.queue.length < this.maxBuffer) {
      this.queue.push(event)
      return
    }
    this.queue.push(this.cutOffWarning(this.queue.at(-1) ?? event))
    this.ended = true
    this.host.leave(this, { cutOff: true })
  }

  /** The run is over: deliver what is queued, then end (or throw the run's error once). */
  finish(failure?: { error: unknown }): void {
    if (this.ended) return
    this.ended = true
    this.failure = failure
    for (const waiter of this.waiters.splice(0)) {
      this.settle().then(waiter.resolve, waiter.reject)
    }
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
