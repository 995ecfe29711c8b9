import type { ResearchEvent } from '../core/contracts/events.js'
import { concatBytes } from '../wire/index.js'
import { cancelSource } from './cancel-source.js'
import { atEndOfTurn } from './end-of-turn.js'
import { END_FRAME_BYTES, eventFrameBytes, HEARTBEAT_BYTES, retryFrameBytes } from './event-frame.js'
import { quietTimer } from './quiet-timer.js'
import { IteratorSource, type ReadySource } from './ready-source.js'
import { SSE_HEADERS } from './sse-response.js'
import { Subscriber } from './subscriber.js'
import type { ToSSEOptions } from './to-sse.js'
import type { EventStream } from './types.js'

/**
 * The part of Node's `ServerResponse` that `pipeSSE` uses, typed structurally so this module
 * loads in runtimes without `node:http`. Express and Fastify's `reply.raw` fit too.
 */
export interface SSEServerResponse {
  writeHead(statusCode: number, headers: Record<string, string>): unknown
  /** Returns false when the socket buffer is full; `drain` says when to write again. */
  write(chunk: Uint8Array): boolean
  end(): unknown
  on(event: 'close', listener: () => void): unknown
  once(event: 'drain', listener: () => void): unknown
}

/** Options of `pipeSSE()`: those of `toSSE()`, plus the status and headers written to the response. */
export interface PipeSSEOptions extends ToSSEOptions {
  /** Extra response headers; they win over the SSE defaults. */
  headers?: Record<string, string> | undefined
}

/**
 * The most frames one write carries: a burst (a replay, a run that makes many events at once)
 * goes out in writes of this many, and a full socket stops it between two of them.
 */
export const MAX_BATCH = 64

/**
 * Stream a run to a Node `ServerResponse` as SSE, respecting socket backpressure. Resolves
 * when the response has ended. A client that disconnects cancels the stream, which aborts
 * the run unless `events` is a `broadcast` subscription (then only this subscriber leaves).
 *
 * The bytes are `toSSE`'s, written without a `ReadableStream` in between: under a broadcast
 * this runs once per client per event, so every frame costs one encoding in total (shared).
 * The response head goes out at once. Events are taken as they come and written once the turn
 * of the event loop that made them is over, all in one write: the run's first events go out
 * together, and so do frames that waited for a full socket to drain. While the socket is full
 * nothing is taken: a broadcast subscriber is then cut off past its `maxBuffer`, and any other
 * stream stops one event ahead. A broadcast subscription is read without a promise per event
 * and its clients' writes share one timer, so a broadcast to 1,000 clients costs per event
 * little more than the 1,000 socket writes.
 */
export function pipeSSE(events: EventStream, res: SSEServerResponse, options: PipeSSEOptions = {}): Promise<void> {
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const iterator = events[Symbol.asyncIterator]()
  /** Events taken from the source, not yet written. */
  const taken: ResearchEvent[] = []
  let runEnded = false
  let closed = false
  let finished = false
  let draining = false
  let flushDue = false
  let settle!: { resolve: () => void; reject: (error: unknown) => void }
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))

  res.on('close', () => {
    closed = true
    if (finished) return
    stop()
    void cancelSource(events, iterator, new Error('the client disconnected'))
    settle.resolve()
  })
  // The head goes out now, while the client is connecting, rather than with the first event:
  // a broadcast starting for 1,000 clients would otherwise hold its first events behind
  // 1,000 head writes (and a client's EventSource opens at once).
  res.writeHead(200, { ...SSE_HEADERS, ...options.headers })
  res.write(retryFrameBytes(options.retryMs ?? 3_000))

  const source: ReadySource = iterator instanceof Subscriber ? iterator : new IteratorSource(iterator)
  const heartbeat = heartbeatMs > 0 ? quietTimer(heartbeatMs, () => guarded(() => !draining && write(HEARTBEAT_BYTES))) : undefined

  function stop(): void {
    finished = true
    source.onReady = undefined
    heartbeat?.stop()
  }

  /** Take what the source has ready, unless the socket is full; write it at the end of this turn. */
  function take(): void {
    if (finished || draining || runEnded) return
    for (let event = source.poll(); event !== undefined; event = source.poll()) {
      taken.push(event)
      if (event.type === 'run-end') {
        runEnded = true
        break
      }
      if (taken.length === MAX_BATCH) {
        flush()
        if (finished || draining) return
      }
    }
    if (!flushDue && (taken.length > 0 || source.ended)) {
      flushDue = true
      atEndOfTurn(flushGuarded)
    }
  }

  function write(chunk: Uint8Array): void {
    heartbeat?.touch()
    if (res.write(chunk)) return
    draining = true
    res.once('drain', () => {
      draining = false
      guarded(take)
    })
  }

  /** What was taken goes out in one write; then the response ends if the stream did. */
  function flush(): void {
    flushDue = false
    if (finished) return
    if (taken.length > 0) {
      const frames = taken.map(eventFrameBytes)
      taken.length = 0
      if (runEnded) frames.push(END_FRAME_BYTES)
      write(concatBytes(frames))
    }
    if (runEnded) {
      end()
      // The stream is complete: close it (a broadcast subscriber leaves) before resolving.
      Promise.resolve(iterator.return?.()).then(() => settle.resolve(), settle.reject)
      return
    }
    // Without run-end (a cut-off subscriber, a failed run): no `end` frame, so clients reconnect.
    const ended = source.ended
    if (!ended) return
    end()
    if (ended.failure) settle.reject(ended.failure.error)
    else settle.resolve()
  }

  function end(): void {
    stop()
    if (!closed) res.end()
  }

  /** A write or an encoding that throws ends this response with that error, not the others'. */
  function guarded(work: () => unknown): void {
    try {
      work()
    } catch (error) {
      if (finished) throw error
      end()
      void cancelSource(events, iterator, error)
      settle.reject(error)
    }
  }

  const flushGuarded = () => guarded(flush)
  source.onReady = () => guarded(take)
  guarded(take)
  return done
}
