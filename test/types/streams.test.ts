/**
 * Type-level tests of the `laconic-research/streams` sub-path's wire helpers and their options:
 * SSE frames and responses, NDJSON and SSE readers, logging and metrics.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import type {
  SSEServerResponse,
  RunMetrics,
  logEvents,
  pipeSSE,
  sseResponse,
  toUIMessageStream,
  toUIMessageStreamResponse,
  broadcast,
  fromNDJSON,
  fromSSE,
  toSSE,
} from '../../src/streams/index.js'

type EventStream = Parameters<typeof toSSE>[0]
type SSEResponseInit = NonNullable<Parameters<typeof sseResponse>[1]>
type UIMessageStreamResponseInit = NonNullable<Parameters<typeof toUIMessageStreamResponse>[1]>
type EventLogger = Parameters<typeof logEvents>[1]
type LogFunction = EventLogger['info']
type BroadcastOptions = NonNullable<Parameters<typeof broadcast>[1]>
type FromNDJSONOptions = NonNullable<Parameters<typeof fromNDJSON>[1]>
type FromSSEOptions = NonNullable<Parameters<typeof fromSSE>[1]>
type PipeSSEOptions = NonNullable<Parameters<typeof pipeSSE>[2]>
type ToSSEOptions = NonNullable<Parameters<typeof toSSE>[1]>

describe('SSE', () => {
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
    expectTypeOf<ReturnType<typeof toUIMessageStream>>().toExtend<ReadableStream<{ type: string }>>()
    expectTypeOf<typeof toUIMessageStreamResponse>().parameters.toEqualTypeOf<[events: EventStream, init?: UIMessageStreamResponseInit]>()
    expectTypeOf<UIMessageStreamResponseInit['status']>().toEqualTypeOf<number | undefined>()
  })
})

describe('logging and metrics', () => {
  it('logs events to any logger, and measures latency in histograms', () => {
    type Histogram = RunMetrics['llmLatencyMs']
    expectTypeOf<typeof logEvents>().parameters.toEqualTypeOf<[events: AsyncIterable<ResearchEvent>, logger: EventLogger]>()
    expectTypeOf<EventLogger['info']>().toEqualTypeOf<LogFunction>()
    expectTypeOf<LogFunction>().parameters.toEqualTypeOf<[fields: Record<string, unknown>, message: string]>()
    expectTypeOf<Histogram['counts']>().toEqualTypeOf<number[]>()
    expectTypeOf<Histogram['sum']>().toEqualTypeOf<number>()
  })
})
