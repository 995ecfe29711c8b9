import { context, trace, type Context, type Tracer, type TracerProvider } from '@opentelemetry/api'
import type { ResearchEvent } from '../core/contracts/events.js'
import { RunSpans } from './run-spans.js'

/** Options of `traceRun()`: the tracer (or its provider) and the names recorded on spans. */
export interface TraceRunOptions {
  /** The tracer to record with. Wins over `tracerProvider`. */
  readonly tracer?: Tracer | undefined
  /** Where to get a tracer (scope `laconic`) when `tracer` is not given. @defaultValue the global provider */
  readonly tracerProvider?: TracerProvider | undefined
  /** `gen_ai.agent.name`, and the root span's name `invoke_agent <agentName>`. @defaultValue 'laconic' */
  readonly agentName?: string | undefined
  /**
   * Record the question and search queries as span attributes. Off by default: they are user
   * input, and traces often travel further than logs. @defaultValue false
   */
  readonly captureContent?: boolean | undefined
  /** The context each run's root span starts in. @defaultValue the active context when `traceRun` is called */
  readonly context?: Context | undefined
}

/**
 * Traces a research run with OpenTelemetry while passing its events through unchanged:
 * `for await (const event of traceRun(run)) ...` sees exactly what `for await (const event of run)`
 * would. Each run (from its `run-start`) becomes an `invoke_agent` span with a child per model
 * call (`chat`), search and page read; warnings become span events. Closing the loop early
 * closes the source too (a `ResearchRun` aborts) and ends the open spans, marked incomplete.
 * With nothing else to do with the events, drain it: `for await (const _ of traceRun(run));`.
 */
export async function* traceRun(events: AsyncIterable<ResearchEvent>, options: TraceRunOptions = {}): AsyncGenerator<ResearchEvent, void, undefined> {
  const { tracerProvider = trace.getTracerProvider(), agentName = 'laconic', captureContent = false } = options
  const settings = {
    tracer: options.tracer ?? tracerProvider.getTracer('laconic'),
    parent: options.context ?? context.active(),
    agentName,
    captureContent,
  }
  // By run id, so a stream carrying several runs (a server's log, a session) traces each one.
  const runs = new Map<string, RunSpans>()
  let failure: { error: unknown } | undefined
  try {
    for await (const event of events) {
      let spans = runs.get(event.runId)
      if (event.type === 'run-start') {
        spans = new RunSpans(event, settings)
        runs.set(event.runId, spans)
      }
      if (spans?.record(event)) runs.delete(event.runId)
      yield event
    }
  } catch (error) {
    failure = { error }
    throw error
  } finally {
    for (const spans of runs.values()) spans.abandon(failure?.error)
  }
}
