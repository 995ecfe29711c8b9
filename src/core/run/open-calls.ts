import type { StrategyEvent } from '../contracts/events.js'

/** A model call that has streamed output and not yet been counted, or usage a provider reported and the run not yet yielded. */
interface OpenCall {
  /** Its `llm-call` and `cost` events, from what it streamed (or reported) so far. */
  account(): StrategyEvent[]
}

/**
 * The run's model calls that have streamed output but not finished (and the usage providers
 * reported during a search or recall still in flight). A call is counted when it
 * finishes, or when it fails while the run goes on; a call cut off by the run's end (an abort,
 * or a call left in flight) is counted by the runtime just before `run-end`, from what it had
 * streamed: a provider bills the tokens it sent, whether or not the call finished.
 */
export class OpenCalls {
  private readonly calls = new Set<OpenCall>()

  /** Tracks a call from its first output on. */
  add(call: OpenCall): void {
    this.calls.add(call)
  }

  /** Stops tracking a call; false when it was not tracked (it was never open, or the runtime took it). */
  remove(call: OpenCall): boolean {
    return this.calls.delete(call)
  }

  /** The events of every call still open, which are then no longer tracked. */
  drain(): StrategyEvent[] {
    const events = [...this.calls].flatMap((call) => call.account())
    this.calls.clear()
    return events
  }
}
