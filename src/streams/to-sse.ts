import type { ResearchEvent } from '../core/index.js'
import { cancelSource } from './cancel-source.js'
import { raceTimer, TIMED_OUT } from './race-timer.js'
import { encodeSSEComment, encodeSSEFrame } from './sse-frame.js'
import type { EventStream } from './types.js'

export interface ToSSEOptions {
  /**
   * A comment line is sent after this many quiet milliseconds, so proxies and load balancers
   * do not close an idle connection while a model thinks. `0` turns heartbeats off.
   * @defaultValue 15000
   */
  heartbeatMs?: number | undefined
  /**
   * The `retry:` hint sent first: how long a client waits before reconnecting.
   * @defaultValue 3000
   */
  retryMs?: number | undefined
}

/** The event name of the frame sent after `run-end`: the stream is complete, do not reconnect. */
export const SSE_END_EVENT = 'end'

/** The wire text of one event: `id` is its `seq`, so `Last-Event-ID` says where to resume. */
export function encodeEventFrame(event: ResearchEvent): string {
  return encodeSSEFrame({ id: String(event.seq), event: event.type, data: JSON.stringify(event) })
}

const END_FRAME = encodeSSEFrame({ event: SSE_END_EVENT, data: '[DONE]' })

/**
 * Encode a run as Server-Sent Events: a `retry:` hint, one frame per event, heartbeat
 * comments while the run is quiet, and an `end` frame after `run-end`. A stream that stops
 * without `run-end` (a cut-off broadcast subscriber, a failed source) closes without the
 * `end` frame, which tells clients to reconnect. Cancelling the stream aborts the source.
 */
export function toSSE(events: EventStream, options: ToSSEOptions = {}): ReadableStream<Uint8Array> {
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const encoder = new TextEncoder()
  const iterator = events[Symbol.asyncIterator]()
  // The `next()` still in flight when a heartbeat fired; the following pull awaits it again.
  let pending: Promise<IteratorResult<ResearchEvent>> | undefined
  let finished = false

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(encodeSSEFrame({ retry: options.retryMs ?? 3_000 })))
    },
    async pull(controller) {
      if (!pending) {
        pending = iterator.next()
        // A rejection lands while no pull awaits it when the reader is slow; the next pull reports it.
        pending.catch(() => {})
      }
      const step = heartbeatMs > 0 ? await raceTimer(pending, heartbeatMs) : await pending
      if (finished) return
      if (step === TIMED_OUT) {
        controller.enqueue(encoder.encode(encodeSSEComment('heartbeat')))
        return
      }
      pending = undefined
      if (step.done) {
        finished = true
        controller.close()
        return
      }
      controller.enqueue(encoder.encode(encodeEventFrame(step.value)))
      if (step.value.type === 'run-end') {
        finished = true
        controller.enqueue(encoder.encode(END_FRAME))
        controller.close()
        await iterator.return?.()
      }
    },
    async cancel(reason) {
      finished = true
      await cancelSource(events, iterator, reason)
    },
  })
}
