import type { ResearchEvent } from '../contracts/events.js'

/** The run's events, as the runtime serves them; `return()` stops the run. */
export interface RunIterator extends AsyncIterableIterator<ResearchEvent> {
  return(): Promise<IteratorResult<ResearchEvent>>
}

const DONE: IteratorResult<ResearchEvent> = { done: true, value: undefined }

/**
 * Reads `source` to its end at once (a run started by awaiting its result), keeping each event
 * until a reader comes: `attach()` gives the one reader the events so far, then the rest as they
 * come. So awaiting `run.result` and then streaming the run (a route that logs the result and
 * returns the response) reads the run once, not twice. The reader leaving (`return()`) stops the
 * run, as it would had it been the first reader.
 */
export class RunRelay {
  private readonly kept: IteratorResult<ResearchEvent>[] = []
  private failure: { error: unknown } | undefined
  private ended = false
  private waiting: (() => void)[] = []
  attached = false

  constructor(private readonly source: RunIterator) {
    void this.drive()
  }

  private async drive(): Promise<void> {
    try {
      for (;;) {
        const step = await this.source.next()
        if (step.done) break
        this.kept.push(step)
        this.wake()
      }
    } catch (error) {
      // A run that failed to prepare: its result rejects; a reader's next() throws the same.
      this.failure = { error }
    }
    this.ended = true
    this.wake()
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve()
  }

  /** The one reader of the run's events. */
  attach(): RunIterator {
    this.attached = true
    const next = async (): Promise<IteratorResult<ResearchEvent>> => {
      for (;;) {
        const kept = this.kept.shift()
        if (kept) return kept
        if (this.failure) throw this.failure.error
        if (this.ended) return DONE
        await new Promise<void>((resolve) => this.waiting.push(resolve))
      }
    }
    const iterator: RunIterator = {
      [Symbol.asyncIterator]: () => iterator,
      next,
      return: async () => {
        this.kept.length = 0
        await this.source.return()
        return DONE
      },
    }
    return iterator
  }
}
