/**
 * A research run in the Vercel AI SDK's UI message stream protocol, so a `useChat` front end
 * shows it live with no parsing of its own: the answer as a text part, citations as
 * `source-url` parts, the plan, searches, facts and cost as `data-*` parts. No dependency on
 * `ai`: the protocol is JSON chunks, sent as Server-Sent Events ending with `data: [DONE]`.
 */
import type { ResearchEvent } from '../core/contracts/events.js'
import { describeError } from '../core/contracts/laconic-error.js'
import { cancelSource } from './cancel-source.js'
import { quietTimer, type QuietTimer } from './quiet-timer.js'
import type { EventStream } from './types.js'
import { UIChunkMapper, type ResearchUIChunk, type UIChunkOptions } from './ui-message-chunks.js'

export type { ResearchDataChunk, ResearchDataParts, ResearchMessageMetadata, ResearchUIChunk, UIChunkOptions } from './ui-message-chunks.js'

/** The headers of a UI message stream response; `x-vercel-ai-ui-message-stream` names the protocol version. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
}

/** Options of `toUIMessageStreamResponse()`: the status and headers of the `Response`, and heartbeats on a quiet stream. */
export interface UIMessageStreamResponseInit extends UIChunkOptions {
  status?: number | undefined
  statusText?: string | undefined
  /** Extra headers; they win over the defaults. */
  headers?: HeadersInit | undefined
  /**
   * A comment line is sent after this many quiet milliseconds, so proxies do not close an
   * idle connection while a model thinks. `0` turns it off.
   * @defaultValue 15000
   */
  heartbeatMs?: number | undefined
}

/**
 * The run as UI message chunks (objects): merge it into `createUIMessageStream`'s writer, or
 * hand it to `createUIMessageStreamResponse`. The stream ends after the run's end (`finish`,
 * or `error` then `finish`, or `abort`); cancelling it aborts the run. `maskErrors` hides
 * failures' own text from the client (see `UIChunkOptions`).
 */
export function toUIMessageStream(events: EventStream, options: UIChunkOptions = {}): ReadableStream<ResearchUIChunk> {
  const iterator = events[Symbol.asyncIterator]()
  const mapper = new UIChunkMapper(options)
  return new ReadableStream<ResearchUIChunk>(
    {
      async pull(controller) {
        for (;;) {
          let step: IteratorResult<ResearchEvent>
          try {
            step = await iterator.next()
          } catch (error) {
            for (const chunk of mapper.fail(describeError(error))) controller.enqueue(chunk)
            controller.close()
            return
          }
          if (step.done) {
            // A source that stops before `run-end` (a cut-off subscriber) did not finish the run.
            for (const chunk of mapper.fail({ message: 'the run stopped sending events before its end', code: 'incomplete' })) controller.enqueue(chunk)
            controller.close()
            return
          }
          const chunks = mapper.map(step.value)
          for (const chunk of chunks) controller.enqueue(chunk)
          if (step.value.type === 'run-end') {
            controller.close()
            await iterator.return?.()
            return
          }
          if (chunks.length > 0) return
        }
      },
      cancel: (reason) => cancelSource(events, iterator, reason),
    },
    // Pull only when read: the run starts when someone listens, as it does everywhere else.
    { highWaterMark: 0 },
  )
}

/**
 * A Web `Response` streaming the run in the UI message stream protocol, with its headers:
 * return it from a Next.js route handler, Hono, Bun or Deno for `useChat`'s default transport.
 * When the client goes away the runtime cancels the body, which aborts the run.
 */
export function toUIMessageStreamResponse(events: EventStream, init: UIMessageStreamResponseInit = {}): Response {
  const headers = new Headers(UI_MESSAGE_STREAM_HEADERS)
  for (const [name, value] of new Headers(init.headers)) headers.set(name, value)
  const responseInit: ResponseInit = { status: init.status ?? 200, headers }
  if (init.statusText !== undefined) responseInit.statusText = init.statusText
  const chunks = toUIMessageStream(events, { maskErrors: init.maskErrors, onError: init.onError })
  return new Response(encodeUIMessageStream(chunks, init.heartbeatMs ?? 15_000), responseInit)
}

const encoder = new TextEncoder()
const DONE = 'data: [DONE]\n\n'
const HEARTBEAT = ': keep-alive\n\n'

/** Each chunk as one SSE `data:` line (JSON has no raw line breaks), then `[DONE]`. */
function encodeUIMessageStream(chunks: ReadableStream<ResearchUIChunk>, heartbeatMs: number): ReadableStream<Uint8Array> {
  const reader = chunks.getReader()
  let heartbeat: QuietTimer | undefined
  let finished = false
  const finish = () => {
    finished = true
    heartbeat?.stop()
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (heartbeatMs > 0) {
        heartbeat = quietTimer(heartbeatMs, () => {
          // Only into an empty queue: a client that reads nothing is not sent more and more.
          if (!finished && (controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(HEARTBEAT))
        })
      }
    },
    async pull(controller) {
      const { done, value } = await reader.read()
      heartbeat?.touch()
      if (done) {
        finish()
        controller.enqueue(encoder.encode(DONE))
        controller.close()
        return
      }
      controller.enqueue(encoder.encode(`data: ${JSON.stringify(value)}\n\n`))
    },
    async cancel(reason) {
      finish()
      await reader.cancel(reason)
    },
  })
}
