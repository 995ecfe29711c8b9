import { LaconicError } from './errors.js'
import type { ResearchEvent } from './events.js'
import { lazyPromise, type ResearchRun } from './run.js'
import type { ResearchResult } from './strategy.js'

/**
 * A run that has to be prepared asynchronously first (`agent.resume` loads its checkpoint and
 * takes its lock). Until it is read or its result awaited, nothing is loaded. When preparing
 * fails (a corrupt checkpoint, a lock held elsewhere), reading it throws that error and its
 * result rejects with it: no event is made up for a run that never started.
 */
export function deferredRun(runId: string, prepare: (onEnd: (result: ResearchResult) => void) => Promise<ResearchRun>): ResearchRun {
  let settle!: (result: ResearchResult) => void
  let fail!: (error: unknown) => void
  const settled = new Promise<ResearchResult>((resolve, reject) => {
    settle = resolve
    fail = reject
  })
  // Not an unhandled rejection when nobody awaits the result of a run that failed to load.
  settled.catch(() => undefined)
  let prepared: Promise<ResearchRun> | undefined
  let abortReason: { reason?: unknown } | undefined
  let started = false

  const load = () => {
    prepared ??= prepare(settle).then(
      (run) => {
        if (abortReason) run.abort(abortReason.reason)
        return run
      },
      (error: unknown) => {
        fail(error)
        throw error
      },
    )
    return prepared
  }

  const iterate = (): AsyncIterableIterator<ResearchEvent> & { return(): Promise<IteratorResult<ResearchEvent>> } => {
    if (started) {
      throw new LaconicError('a research run can be read only once', {
        code: 'config',
        hint: 'use broadcast(run) from laconic-research/streams to share one run among several consumers',
      })
    }
    started = true
    let inner: AsyncIterator<ResearchEvent> | undefined
    let left = false
    return {
      [Symbol.asyncIterator]() {
        return this
      },
      async next() {
        if (left) return { done: true, value: undefined }
        const run = await load()
        if (left) return { done: true, value: undefined }
        inner ??= run[Symbol.asyncIterator]()
        return inner.next()
      },
      async return() {
        left = true
        // Left before the run was loaded: it still ends (aborted), so its lock is given back.
        if (!inner && prepared) {
          const run = await prepared.catch(() => undefined)
          inner ??= run?.[Symbol.asyncIterator]()
        }
        await inner?.return?.()
        return { done: true, value: undefined }
      },
    }
  }

  const startInBackground = () => {
    if (started) return
    const events = iterate()
    void (async () => {
      try {
        for await (const _ of events);
      } catch {
        // The failure rejects the result.
      }
    })()
  }

  const result = lazyPromise(settled, startInBackground)

  return {
    runId,
    result,
    abort(reason?: unknown) {
      abortReason ??= { reason }
      void prepared?.then(
        (run) => run.abort(reason),
        () => undefined,
      )
    },
    [Symbol.asyncIterator]: iterate,
    toReadableStream() {
      let iterator: ReturnType<typeof iterate> | undefined
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
