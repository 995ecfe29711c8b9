/**
 * Type-level tests of the `laconic-research/streams` sub-path's wire helpers and their options:
 * SSE frames and responses, NDJSON and SSE readers, logging and metrics.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import type {
  BroadcastOptions,
  EventLogger,
  EventStream,
  FromNDJSONOptions,
  FromSSEOptions,
  Histogram,
  LogFunction,
  PipeSSEOptions,
  SSEFrame,
  SSEResponseInit,
  SSEServerResponse,
  ToSSEOptions,
  UIMessageStreamResponseInit,
  encodeEventFrame,
  encodeSSEComment,
  encodeSSEFrame,
  logEvents,
  pipeSSE,
  sseResponse,
  toUIMessageStream,
  toUIMessageStreamResponse,
} from '../../src/streams/index.js'
import type { ResearchUIChunk } from '../../src/streams/index.js'
import type * as streams from '../../src/streams/index.js'

describe('SSE', () => {
  it('encodes frames, comments and events as text', () => {
    expectTypeOf<typeof encodeSSEFrame>().parameters.toEqualTypeOf<[frame: SSEFrame]>()
    expectTypeOf<typeof encodeSSEFrame>().returns.toEqualTypeOf<string>()
    expectTypeOf<typeof encodeSSEComment>().parameters.toEqualTypeOf<[text: string]>()
    expectTypeOf<typeof encodeEventFrame>().parameters.toEqualTypeOf<[event: ResearchEvent]>()
    expectTypeOf<SSEFrame['retry']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<typeof streams.SSE_END_EVENT>().toEqualTypeOf<'end'>()
    expectTypeOf<typeof streams.SSE_HEADERS>().toEqualTypeOf<Readonly<Record<string, string>>>()
  })

  it('serves a stream as a Response or onto a Node response', () => {
    expectTypeOf<typeof sseResponse>().parameters.toEqualTypeOf<[events: EventStream, init?: SSEResponseInit]>()
    expectTypeOf<ReturnType<typeof sseResponse>>().toEqualTypeOf<Response>()
    expectTypeOf<typeof pipeSSE>().parameters.toEqualTypeOf<[events: EventStream, res: SSEServerResponse, options?: PipeSSEOptions]>()
    expectTypeOf<ReturnType<typeof pipeSSE>>().toEqualTypeOf<Promise<void>>()
    expectTypeOf<SSEResponseInit>().toExtend<ToSSEOptions>()
    expectTypeOf<PipeSSEOptions>().toExtend<ToSSEOptions>()
    expectTypeOf<ToSSEOptions['heartbeatMs']>().toEqualTypeOf<number | undefined>()
  })

  it('reads SSE and NDJSON back, reporting what is not an event', () => {
    expectTypeOf<FromSSEOptions['lastEventId']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<FromSSEOptions['onInvalid']>().toEqualTypeOf<((data: string) => void) | undefined>()
    expectTypeOf<FromNDJSONOptions['onInvalid']>().toEqualTypeOf<((line: string) => void) | undefined>()
    expectTypeOf<BroadcastOptions['replay']>().toEqualTypeOf<boolean | undefined>()
  })
})

describe('AI SDK UI message stream', () => {
  it('turns events into UI chunks and a Response', () => {
    expectTypeOf<ReturnType<typeof toUIMessageStream>>().toEqualTypeOf<ReadableStream<ResearchUIChunk>>()
    expectTypeOf<typeof toUIMessageStreamResponse>().parameters.toEqualTypeOf<[events: EventStream, init?: UIMessageStreamResponseInit]>()
    expectTypeOf<UIMessageStreamResponseInit['status']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<typeof streams.UI_MESSAGE_STREAM_HEADERS>().toEqualTypeOf<Readonly<Record<string, string>>>()
  })
})

describe('logging and metrics', () => {
  it('logs events to any logger, and measures latency in histograms', () => {
    expectTypeOf<typeof logEvents>().parameters.toEqualTypeOf<[events: AsyncIterable<ResearchEvent>, logger: EventLogger]>()
    expectTypeOf<EventLogger['info']>().toEqualTypeOf<LogFunction>()
    expectTypeOf<LogFunction>().parameters.toEqualTypeOf<[fields: Record<string, unknown>, message: string]>()
    expectTypeOf<Histogram['counts']>().toEqualTypeOf<number[]>()
    expectTypeOf<Histogram['sum']>().toEqualTypeOf<number>()
  })
})
