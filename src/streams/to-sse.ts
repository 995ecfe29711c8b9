import type { ResearchEvent } from '../core/index.js'
import { cancelSource } from './cancel-source.js'
import { END_FRAME_BYTES, eventFrameBytes, HEARTBEAT_BYTES, retryFrameBytes } from './event-frame.js'
import { quietTimer, type QuietTimer } from './quiet-timer.js'
import type { EventStream } from './types.js'

export { encodeEventFrame, SSE_END_EVENT } from './event-frame.js'

/** Options of `toSSE()`: heartbeats on a quiet stream, and the reconnection delay sent to clients. */
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

const HEARTBEAT: unique symbol = Symbol('heartbeat')

/**
 * Encode a run as Server-Sent Events: a `retry:` hint, one frame per event, heartbeat
 * comments while the run is quiet, and an `end` frame after `run-end`. A stream that stops
 * without `run-end` (a cut-off broadcast subscriber, a failed source) closes without the
 * `end` frame, which tells clients to reconnect. Cancelling the stream aborts the source.
 */
export function toSSE(events: EventStream, options: ToSSEOptions = {}): ReadableStream<Uint8Array> {
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const iterator = events[Symbol.asyncIterator]()
  // The `next()` still in flight when a heartbeat fired; the following pull awaits it again.
  let pending: Promise<IteratorResult<ResearchEvent>> | undefined
  let finished = false
  // Set while a pull waits for the source: the heartbeat timer resolves it.
  let wakePull: ((heartbeat: typeof HEARTBEAT) => void) | undefined
  let heartbeat: QuietTimer | undefined

  function finish(): void {
    finished = true
    heartbeat?.stop()
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(retryFrameBytes(options.retryMs ?? 3_000))
      if (heartbeatMs > 0) heartbeat = quietTimer(heartbeatMs, () => wakePull?.(HEARTBEAT))
    },
    async pull(controller) {
      if (!pending) {
        pending = iterator.next()
        // A rejection lands while no pull awaits it when the reader is slow; the next pull reports it.
        pending.catch(() => {})
      }
      let step: IteratorResult<ResearchEvent> | typeof HEARTBEAT
      try {
        step = heartbeat ? await Promise.race([pending, new Promise<typeof HEARTBEAT>((wake) => (wakePull = wake))]) : await pending
      } catch (error) {
        finish()
        throw error
      } finally {
        wakePull = undefined
      }
      if (finished) return
      heartbeat?.touch()
      if (step === HEARTBEAT) {
        controller.enqueue(HEARTBEAT_BYTES.slice())
        return
      }
      pending = undefined
      if (step.done) {
        finish()
        controller.close()
        return
      }
      // The cached bytes are shared with every other stream of this event; a reader owns its chunks.
      controller.enqueue(eventFrameBytes(step.value).slice())
      if (step.value.type === 'run-end') {
        finish()
        controller.enqueue(END_FRAME_BYTES.slice())
        controller.close()
        await iterator.return?.()
      }
    },
    async cancel(reason) {
      finish()
      await cancelSource(events, iterator, reason)
    },
  })
}
