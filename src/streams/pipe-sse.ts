import type { ResearchEvent } from '../core/index.js'
import { concatBytes } from '../wire/index.js'
import { cancelSource } from './cancel-source.js'
import { END_FRAME_BYTES, eventFrameBytes, HEARTBEAT_BYTES, retryFrameBytes } from './event-frame.js'
import { quietTimer } from './quiet-timer.js'
import { SSE_HEADERS } from './sse-response.js'
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

/** What a wait for the next event resolves to when something other than the event came first. */
const HEARTBEAT: unique symbol = Symbol('heartbeat')
const HUNG_UP: unique symbol = Symbol('hung up')
const NOT_YET: unique symbol = Symbol('not settled yet')

/** Resolves once the event loop has turned (a timer's turn): what the source had ready by then is ready now. */
function afterThisTurn(): Promise<typeof NOT_YET> {
  return new Promise((resolve) => setTimeout(resolve, 0, NOT_YET))
}

type Step = IteratorResult<ResearchEvent> | typeof HEARTBEAT | typeof HUNG_UP

/**
 * Stream a run to a Node `ServerResponse` as SSE, respecting socket backpressure. Resolves
 * when the response has ended. A client that disconnects cancels the stream, which aborts
 * the run unless `events` is a `broadcast` subscription (then only this subscriber leaves).
 *
 * The bytes are `toSSE`'s, written without a `ReadableStream` in between: under a broadcast
 * this runs once per client per event, so every frame costs one encoding in total (shared),
 * and frames that are already waiting (a client that fell behind) go out in one write. The
 * response head goes out at once; the events the run makes in its first turn of the event loop
 * then go out together, so a broadcast starting for 1,000 clients costs each client one write
 * for its first events, not one per event.
 */
export async function pipeSSE(events: EventStream, res: SSEServerResponse, options: PipeSSEOptions = {}): Promise<void> {
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const iterator = events[Symbol.asyncIterator]()
  const batch: Uint8Array[] = []
  let closed = false
  let finished = false
  let wakeStep: ((step: typeof HEARTBEAT | typeof HUNG_UP) => void) | undefined
  let wakeDrain: (() => void) | undefined
  const heartbeat = heartbeatMs > 0 ? quietTimer(heartbeatMs, () => wakeStep?.(HEARTBEAT)) : undefined

  res.on('close', () => {
    closed = true
    wakeStep?.(HUNG_UP)
    wakeDrain?.()
    if (!finished) void cancelSource(events, iterator, new Error('the client disconnected'))
  })
  // The head goes out now, while the client is connecting, rather than with the first event:
  // a broadcast starting for 1,000 clients would otherwise hold its first events behind
  // 1,000 head writes (and a client's EventSource opens at once).
  res.writeHead(200, { ...SSE_HEADERS, ...options.headers })
  res.write(retryFrameBytes(options.retryMs ?? 3_000))

  /** Write what is batched; resolves false once the client is gone. */
  async function flush(): Promise<boolean> {
    if (closed) return false
    if (batch.length === 0) return true
    const chunk = concatBytes(batch)
    batch.length = 0
    heartbeat?.touch()
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        wakeDrain = resolve
        res.once('drain', resolve)
      })
      wakeDrain = undefined
    }
    return !closed
  }

  /** The settled `next()`, or a heartbeat or hang-up that came first; `next` stays valid. */
  function waitFor(next: Promise<IteratorResult<ResearchEvent>>): Promise<Step> {
    return new Promise<Step>((resolve, reject) => {
      wakeStep = resolve
      next.then(resolve, reject)
    }).finally(() => (wakeStep = undefined))
  }

  try {
    // Settled once this turn is over; from then on a race against it is a peek.
    const startTurn = afterThisTurn()
    while (!closed) {
      const next = iterator.next()
      // Peek: an already-settled `next()` wins this race, so events already waiting for this
      // client join the batch instead of costing a socket write each (and, in the first turn,
      // events the run makes meanwhile join the head).
      let step: Step | typeof NOT_YET = await Promise.race([next, startTurn])
      while (step === NOT_YET || step === HEARTBEAT) {
        if (step === HEARTBEAT) batch.push(HEARTBEAT_BYTES)
        if (!(await flush())) return
        step = await waitFor(next)
      }
      if (step === HUNG_UP || step.done) break
      batch.push(eventFrameBytes(step.value))
      if (step.value.type === 'run-end') {
        finished = true
        batch.push(END_FRAME_BYTES)
        await flush()
        await iterator.return?.()
        break
      }
    }
    finished = true
  } finally {
    finished = true
    heartbeat?.stop()
    if (!closed) {
      // Frames read before the source failed or ended still belong to the client.
      if (batch.length > 0) res.write(concatBytes(batch))
      res.end()
    }
  }
}
