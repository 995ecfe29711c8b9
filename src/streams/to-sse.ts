import { cancelSource } from './cancel-source.js'
import { END_FRAME_BYTES, eventFrameBytes, HEARTBEAT_BYTES, retryFrameBytes } from './event-frame.js'
import { quietTimer, type QuietTimer } from './quiet-timer.js'
import { IteratorSource, type ReadySource } from './ready-source.js'
import { Subscriber } from './subscriber.js'
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

/**
 * Encode a run as Server-Sent Events: a `retry:` hint, one frame per event, heartbeat
 * comments while the run is quiet, and an `end` frame after `run-end`. A stream that stops
 * without `run-end` (a cut-off broadcast subscriber, a failed source) closes without the
 * `end` frame, which tells clients to reconnect. Cancelling the stream aborts the source.
 * A broadcast subscription is read as `pipeSSE` reads it, without a promise per event; each
 * pull hands over every event that is ready.
 */
export function toSSE(events: EventStream, options: ToSSEOptions = {}): ReadableStream<Uint8Array> {
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const iterator = events[Symbol.asyncIterator]()
  let source: ReadySource | undefined
  // Set while a pull waits for the source: called when it may have something, or a heartbeat is due.
  let wake: (() => void) | undefined
  let heartbeatDue = false
  let finished = false
  let heartbeat: QuietTimer | undefined

  function finish(): void {
    finished = true
    heartbeat?.stop()
    if (source) source.onReady = undefined
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(retryFrameBytes(options.retryMs ?? 3_000))
      source = iterator instanceof Subscriber ? iterator : new IteratorSource(iterator)
      source.onReady = () => wake?.()
      if (heartbeatMs > 0) {
        heartbeat = quietTimer(heartbeatMs, () => {
          // Only a pull that is waiting sends one: a reader that is behind has data coming anyway.
          if (!wake) return
          heartbeatDue = true
          wake()
        })
      }
    },
    async pull(controller) {
      const ready = source as ReadySource
      while (!finished) {
        let sent = false
        for (let event = ready.poll(); event !== undefined; event = ready.poll()) {
          // The cached bytes are shared with every other stream of this event; a reader owns its chunks.
          controller.enqueue(eventFrameBytes(event).slice())
          sent = true
          if (event.type === 'run-end') {
            finish()
            controller.enqueue(END_FRAME_BYTES.slice())
            controller.close()
            await iterator.return?.()
            return
          }
        }
        if (sent) {
          heartbeat?.touch()
          return
        }
        // Only once the reader has taken everything: an error discards the chunks still queued.
        const ended = ready.ended
        if (ended) {
          finish()
          if (ended.failure) throw ended.failure.error
          controller.close()
          return
        }
        if (heartbeatDue) {
          heartbeatDue = false
          controller.enqueue(HEARTBEAT_BYTES.slice())
          return
        }
        await new Promise<void>((resolve) => (wake = resolve))
        wake = undefined
      }
    },
    async cancel(reason) {
      finish()
      await cancelSource(events, iterator, reason)
    },
  })
}
