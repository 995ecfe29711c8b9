import type { ResearchEvent } from '../core/contracts/events.js'
import { abortError, fromWireError, LaconicError } from '../core/contracts/laconic-error.js'
import { sleep } from '../core/run/abortable-sleep.js'
import { readSSE } from '../wire/index.js'
import { parseResearchEvent } from './parse-event.js'
import { SSE_END_EVENT } from './to-sse.js'

/** An SSE body to read once, or a URL to connect (and reconnect) to. */
export type SSESource = Response | ReadableStream<Uint8Array> | string | URL

/** Options of `fromSSE()`: where to resume, how to stop, and the `fetch` and reconnection to use. */
export interface FromSSEOptions {
  /**
   * Resume after this event: sent as `Last-Event-ID` (its UTF-8 bytes, as browsers send it), and
   * events up to this `seq` are dropped. It cannot hold CR, LF or NUL, as no SSE id can.
   */
  lastEventId?: string | undefined
  /** Stops reading and reconnecting; the iteration then throws a LaconicError with code `aborted`. */
  signal?: AbortSignal | undefined
  /** @defaultValue globalThis.fetch */
  fetch?: typeof globalThis.fetch | undefined
  /** Extra request headers for a URL source (authorization, ...). */
  headers?: HeadersInit | undefined
  /**
   * Wait before reconnecting, until the server sends its own `retry:` hint.
   * @defaultValue 3000
   */
  retryMs?: number | undefined
  /**
   * Reconnections in a row that bring no new event before giving up.
   * @defaultValue 5
   */
  maxRetries?: number | undefined
  /** Called with the data of a frame that is not a research event (it is skipped). */
  onInvalid?: ((data: string) => void) | undefined
}

/**
 * Typed events back from an SSE stream written by `toSSE`. From a URL it reconnects with
 * `Last-Event-ID` whenever the connection drops before `run-end`, and drops events it has
 * already seen (`seq` at or below the last one), so a server that replays (`broadcast`) gives
 * every event exactly once, in order. A `Response` or a `ReadableStream` is read once.
 */
export async function* fromSSE(source: SSESource, options: FromSSEOptions = {}): AsyncGenerator<ResearchEvent> {
  const { signal } = options
  if (options.lastEventId !== undefined && /[\r\n\0]/.test(options.lastEventId)) {
    throw new LaconicError('fromSSE: `lastEventId` cannot hold a line break or NUL', {
      code: 'config',
      hint: "pass the id of an event the stream sent (its `id:` field, or the event's seq)",
    })
  }
  let lastEventId = options.lastEventId
  let lastSeq = seqOf(lastEventId)
  let retryMs = options.retryMs ?? 3_000
  const maxRetries = options.maxRetries ?? 5
  let fruitless = 0

  for (;;) {
    if (signal?.aborted) throw abortError(signal)
    const body = isURL(source) ? await connect(source, lastEventId, options) : bodyOf(source)
    if (body === 'stop') return
    if (body !== 'retry') {
      let progressed = false
      try {
        // A body that ends mid-frame did not send that frame: drop the partial frame.
        for await (const message of readSSE(body, { signal, onRetry: (ms) => (retryMs = ms), unterminated: 'drop' })) {
          if (message.event === SSE_END_EVENT) return
          const event = parseResearchEvent(message.data)
          if (!event) {
            options.onInvalid?.(message.data)
            continue
          }
          if (lastSeq !== undefined && event.seq <= lastSeq) continue
          lastSeq = event.seq
          lastEventId = message.id ?? String(event.seq)
          progressed = true
          yield event
          if (event.type === 'run-end') return
        }
      } catch (caught) {
        const error = fromWireError(caught)
        // A connection that breaks mid-body is what reconnecting is for; a single body is not.
        if (signal?.aborted) throw abortError(signal)
        // An oversized event is the server's doing: reconnecting would only fetch it again.
        if (!isURL(source) || (error instanceof LaconicError && error.code === 'bad-response')) throw error
      }
      if (signal?.aborted) throw abortError(signal)
      if (!isURL(source)) return
      if (progressed) fruitless = 0
    }
    fruitless += 1
    if (fruitless > maxRetries) {
      throw new LaconicError(`the event stream at ${String(source)} kept closing before run-end`, {
        code: 'network',
        hint: `gave up after ${maxRetries} reconnections without a new event; check the server, or raise maxRetries`,
      })
    }
    await sleep(retryMs, signal)
  }
}

function isURL(source: SSESource): source is string | URL {
  return typeof source === 'string' || source instanceof URL
}

function bodyOf(source: Response | ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  if (source instanceof ReadableStream) return source
  assertEventStream(source, source.url)
  return source.body ?? new ReadableStream({ start: (controller) => controller.close() })
}

/** A body to read, `retry` for a failure worth reconnecting after, `stop` for HTTP 204. */
async function connect(url: string | URL, lastEventId: string | undefined, options: FromSSEOptions): Promise<ReadableStream<Uint8Array> | 'retry' | 'stop'> {
  const headers = new Headers(options.headers)
  headers.set('accept', 'text/event-stream')
  if (lastEventId !== undefined) headers.set('last-event-id', headerBytes(lastEventId))
  let response: Response
  try {
    response = await (options.fetch ?? globalThis.fetch)(url, { headers, signal: options.signal ?? null, cache: 'no-store' })
  } catch {
    if (options.signal?.aborted) throw abortError(options.signal)
    return 'retry' // a refused or reset connection: reconnect after the delay
  }
  // The SSE spec's own rule: 204 means "do not reconnect".
  if (response.status === 204) return 'stop'
  if (response.status === 429 || response.status >= 500) {
    await response.body?.cancel()
    return 'retry'
  }
  assertEventStream(response, String(url))
  return response.body ?? 'retry'
}

function assertEventStream(response: Response, url: string): void {
  if (!response.ok) {
    void response.body?.cancel()
    const code = response.status === 401 || response.status === 403 ? 'auth' : response.status === 404 ? 'not-found' : 'http'
    throw new LaconicError(`the event stream at ${url} answered HTTP ${response.status}`, {
      code,
      hint: 'check the URL and any authorization headers passed in `headers`',
    })
  }
  const type = response.headers.get('content-type') ?? ''
  if (type !== '' && !type.toLowerCase().startsWith('text/event-stream')) {
    void response.body?.cancel()
    throw new LaconicError(`expected text/event-stream from ${url}, got ${type}`, {
      code: 'bad-response',
      hint: 'point fromSSE at an endpoint that serves toSSE/sseResponse/pipeSSE output',
    })
  }
}

/**
 * A header value for any string: its UTF-8 bytes, each as one character (a `Headers` value is a
 * byte string, so `…` as itself is a TypeError). That is what browsers send as `Last-Event-ID`:
 * the HTML standard sets the header to the last event ID encoded as UTF-8, and a server reading
 * headers as Latin-1 (Node's) gets those bytes back to decode.
 */
function headerBytes(value: string): string {
  // Printable ASCII, the usual id (a seq): its own bytes.
  if (!/[^ -~]/.test(value)) return value
  let bytes = ''
  for (const byte of new TextEncoder().encode(value)) bytes += String.fromCharCode(byte)
  return bytes
}

function seqOf(id: string | undefined): number | undefined {
  if (id === undefined || !/^\d+$/.test(id.trim())) return undefined
  const seq = Number(id)
  return Number.isSafeInteger(seq) ? seq : undefined
}
