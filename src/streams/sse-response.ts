import { toSSE, type ToSSEOptions } from './to-sse.js'
import type { EventStream } from './types.js'

/** Options of `sseResponse()`: those of `toSSE()`, plus the status and headers of the `Response`. */
export interface SSEResponseInit extends ToSSEOptions {
  status?: number | undefined
  statusText?: string | undefined
  /** Extra headers; they win over the defaults. */
  headers?: HeadersInit | undefined
}

/** The headers every SSE response needs; `x-accel-buffering: no` stops nginx from buffering. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
}

/**
 * A Web `Response` streaming the run as SSE, usable as-is from Hono, Next.js route handlers,
 * Bun, Deno and Workers. When the client disconnects the runtime cancels the body, which
 * aborts the run (pass a `broadcast` subscription to keep it going for others).
 */
export function sseResponse(events: EventStream, init: SSEResponseInit = {}): Response {
  const headers = new Headers(SSE_HEADERS)
  for (const [name, value] of new Headers(init.headers)) headers.set(name, value)
  const responseInit: ResponseInit = { status: init.status ?? 200, headers }
  if (init.statusText !== undefined) responseInit.statusText = init.statusText
  return new Response(toSSE(events, init), responseInit)
}
