import type { ErrorInfo, RunEndReason } from '../contracts/events.js'
import type { InterruptRequest } from '../contracts/interruption.js'
import { describeError } from '../contracts/laconic-error.js'
import type { ResearchResult } from '../contracts/result.js'
import type { Prepared, WarningEvent } from './prepared-run.js'
import { rememberRun } from './run-memory.js'

/**
 * The end of a run, once, and the result it settles: long-term memory's write, the checkpoint
 * lock given back and `onEnd` called. The result settles after the lock and `onEnd`, so a caller
 * who awaited it can resume the run at once, or read what `onEnd` saved.
 */
export class RunEnding {
  private resolve!: (result: ResearchResult) => void
  private reject!: (error: unknown) => void
  /** What the run gives back; it settles when the run ends, or rejects when it never started. */
  readonly result = new Promise<ResearchResult>((resolve, reject) => {
    this.resolve = resolve
    this.reject = reject
  })
  private finishing: Promise<WarningEvent[]> | undefined

  constructor() {
    // Not an unhandled rejection when nobody awaits the result of a run that failed to prepare.
    this.result.catch(() => undefined)
  }

  /** A run that never started (preparing it failed): its result rejects with why. */
  failed(error: unknown): void {
    this.reject(error)
  }

  /**
   * Ends the run once and resolves to the warnings to emit before `run-end`: at once when
   * nothing is to wait for (no promise hop between an abort and `run-end`), else a promise.
   */
  finish(run: Prepared, reason: RunEndReason, error?: ErrorInfo, request?: InterruptRequest): WarningEvent[] | Promise<WarningEvent[]> {
    if (this.finishing) return this.finishing
    const result = run.fold.result(reason, error, request)
    // A resumed finished run only replays its end: it was written when it first ended.
    if (run.memory && run.restored?.status !== 'final') {
      rememberRun(run.memory, { runId: run.runId, question: run.init.question, result }, run.init.options.pricing)
    }
    const released = run.checkpoints?.release()
    const onEnd = run.init.onEnd
    if (!released && !onEnd) {
      this.finishing = Promise.resolve([])
      this.resolve(result)
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
    this.finishing = Promise.all([released, notices]).then(([, warnings]) => {
      this.resolve(result)
      return warnings ?? []
    })
    return this.finishing
  }
}
