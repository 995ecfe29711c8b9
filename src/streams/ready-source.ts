import type { ResearchEvent } from '../core/contracts/events.js'

/** How a `ReadySource` ended: `failure` holds the stream's error if it failed. */
export interface SourceEnd {
  readonly failure?: { readonly error: unknown } | undefined
}

/**
 * A stream read without a promise per event, which is what `pipeSSE` writes from: `poll()`
 * takes what is ready now, and `onReady` is called when there may be more or the stream has
 * ended. A broadcast subscriber is one (its events are handed over as the run makes them, so
 * 1,000 clients of one run cost no promise, await or timer per client per event); any other
 * stream is read through an `IteratorSource`.
 */
export interface ReadySource {
  /** The next event ready now, or `undefined` when there is none yet. */
  poll(): ResearchEvent | undefined
  /** Set once nothing is left to poll and nothing more will come. */
  readonly ended: SourceEnd | undefined
  /**
   * Called when `poll` may return something new or `ended` may be set. It runs inside
   * whatever made the event ready (a broadcast's loop over its subscribers): schedule, never
   * write or throw there.
   */
  onReady: (() => void) | undefined
}

/**
 * Any async iterator as a `ReadySource`. It reads one event ahead: a consumer that takes each
 * event as it comes keeps it reading, one that stops taking (a full socket) stops the stream
 * there, which is its backpressure. It stops reading after `run-end`.
 */
export class IteratorSource implements ReadySource {
  onReady: (() => void) | undefined
  private ready: ResearchEvent | undefined
  private reading = false
  /** The iterator is finished (or reached `run-end`): nothing more will be read. */
  private end: SourceEnd | undefined

  constructor(private readonly iterator: AsyncIterator<ResearchEvent>) {
    this.read()
  }

  poll(): ResearchEvent | undefined {
    const event = this.ready
    this.ready = undefined
    if (event) this.read()
    return event
  }

  get ended(): SourceEnd | undefined {
    return this.ready ? undefined : this.end
  }

  private read(): void {
    if (this.reading || this.end || this.ready) return
    this.reading = true
    this.iterator.next().then(
      (step) => {
        this.reading = false
        if (step.done) this.end = {}
        else {
          this.ready = step.value
          // The consumer closes the stream after run-end: no `next()` may be left in flight then,
          // or an async generator would queue its `return()` behind it.
          if (step.value.type === 'run-end') this.end = {}
        }
        this.onReady?.()
      },
      (error: unknown) => {
        this.reading = false
        this.end = { failure: { error } }
        this.onReady?.()
      },
    )
  }
}
