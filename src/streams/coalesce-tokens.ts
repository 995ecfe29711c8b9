import type { EventOf, ResearchEvent } from '../core/contracts/events.js'
import { cancelSource } from './cancel-source.js'
import { raceTimer, TIMED_OUT } from './race-timer.js'
import type { EventStream } from './types.js'

/**
 * Merge `answer-token` events that arrive within `ms` of the first of a batch into one, for
 * UIs that repaint slowly. A batch is sent when `ms` have passed, when any other event
 * arrives (order is kept) or when the stream ends. The merged event carries the last token's
 * `seq` and `time`, so resuming after it never repeats a token; texts joined stay the answer.
 */
export async function* coalesceTokens(events: EventStream, ms: number): AsyncGenerator<ResearchEvent> {
  const iterator = events[Symbol.asyncIterator]()
  let batch: EventOf<'answer-token'> | undefined
  let deadline = 0
  let pending: Promise<IteratorResult<ResearchEvent>> | undefined
  let completed = false
  try {
    for (;;) {
      if (!pending) {
        pending = iterator.next()
        // Rejections are awaited below; this only stops an early-return from leaving one unhandled.
        pending.catch(() => {})
      }
      const step = batch ? await raceTimer(pending, Math.max(0, deadline - Date.now())) : await pending
      if (step === TIMED_OUT) {
        yield batch as EventOf<'answer-token'>
        batch = undefined
        continue
      }
      pending = undefined
      if (step.done) {
        completed = true
        if (batch) yield batch
        return
      }
      const event = step.value
      if (event.type !== 'answer-token') {
        if (batch) yield batch
        batch = undefined
        yield event
      } else if (batch) {
        batch = { ...event, text: batch.text + event.text }
      } else {
        batch = event
        deadline = Date.now() + ms
      }
    }
  } finally {
    // Stopped early (or the source failed): abort the run rather than leave it running.
    if (!completed) await cancelSource(events, iterator)
  }
}
