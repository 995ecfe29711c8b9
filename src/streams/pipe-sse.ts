import { SSE_HEADERS } from './sse-response.js'
import { toSSE, type ToSSEOptions } from './to-sse.js'
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

export interface PipeSSEOptions extends ToSSEOptions {
  /** Extra response headers; they win over the SSE defaults. */
  headers?: Record<string, string> | undefined
}

/**
 * Stream a run to a Node `ServerResponse` as SSE, respecting socket backpressure. Resolves
 * when the response has ended. A client that disconnects cancels the stream, which aborts
 * the run unless `events` is a `broadcast` subscription (then only this subscriber leaves).
 */
export async function pipeSSE(events: EventStream, res: SSEServerResponse, options: PipeSSEOptions = {}): Promise<void> {
  const reader = toSSE(events, options).getReader()
  let closed = false
  let wakeOnClose: (() => void) | undefined
  res.on('close', () => {
    closed = true
    wakeOnClose?.()
    void reader.cancel(new Error('the client disconnected')).catch(() => {})
  })
  res.writeHead(200, { ...SSE_HEADERS, ...options.headers })
  try {
    while (!closed) {
      const { done, value } = await reader.read()
      if (done || closed) break
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          wakeOnClose = resolve
          res.once('drain', resolve)
        })
      }
    }
  } finally {
    if (!closed) res.end()
  }
}
