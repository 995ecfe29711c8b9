import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import type { HrTime } from '@opentelemetry/api'
import type { ResearchEvent } from '../../src/index.js'

/** A tracer provider that keeps every ended span in memory. */
export function memoryTracing(): { provider: BasicTracerProvider; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { provider, spans: () => exporter.getFinishedSpans() }
}

export const ms = (time: HrTime): number => time[0] * 1000 + time[1] / 1e6

/** Passes a stream through, keeping what it yielded, to compare with what a consumer saw downstream. */
export function recorded(events: AsyncIterable<ResearchEvent>): { stream: AsyncGenerator<ResearchEvent>; seen: ResearchEvent[] } {
  const seen: ResearchEvent[] = []
  async function* stream(): AsyncGenerator<ResearchEvent> {
    for await (const event of events) {
      seen.push(event)
      yield event
    }
  }
  return { stream: stream(), seen }
}

export async function drain<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const event of events) out.push(event)
  return out
}

export function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name)
  if (found.length !== 1) throw new Error(`expected one span named ${name}, got ${found.length}`)
  return found[0]!
}
