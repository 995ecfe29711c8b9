import { SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api'
import type { ClaimVerdict, EventOf, ResearchEvent } from '../core/contracts/events.js'
import { redactUrl } from '../core/util/urls.js'
import { CLAIM_EVENT, ERROR_TYPE, GEN_AI, LACONIC, URL_FULL, WARNING_EVENT } from './attributes.js'

export interface RunSpanSettings {
  tracer: Tracer
  /** The context the run's root span starts in. */
  parent: Context
  agentName: string
  captureContent: boolean
}

interface OpenSearch {
  span: Span
  query: string
}

/** Event times are epoch milliseconds; a `Date` keeps OpenTelemetry from reading them as `performance.now()` offsets. */
const at = (ms: number): Date => new Date(ms)

/**
 * The spans of one run: a root `invoke_agent` span from `run-start` to `run-end`, with a child
 * per model call, search and page read. Times come from the events (the producer's clock), so a
 * trace replayed from SSE or NDJSON keeps the run's real timing.
 */
export class RunSpans {
  private readonly root: Span
  private readonly rootContext: Context
  private readonly searches = new Map<string, OpenSearch>()
  private lastTime: number
  /** Claims by verdict (`verify`), for the root span's attributes at the end. */
  private readonly claims = new Map<ClaimVerdict, number>()

  constructor(
    start: EventOf<'run-start'>,
    private readonly settings: RunSpanSettings,
  ) {
    this.root = settings.tracer.startSpan(
      `invoke_agent ${settings.agentName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: at(start.time),
        attributes: {
          [GEN_AI.operationName]: 'invoke_agent',
          [GEN_AI.agentName]: settings.agentName,
          [LACONIC.runId]: start.runId,
          [LACONIC.strategy]: start.strategy,
          [LACONIC.questionLength]: start.question.length,
          ...(settings.captureContent ? { [LACONIC.question]: start.question } : {}),
        },
      },
      settings.parent,
    )
    this.rootContext = trace.setSpan(settings.parent, this.root)
    this.lastTime = start.time
  }

  /** Records one event; true once the run has ended (its `run-end` was seen). */
  record(event: ResearchEvent): boolean {
    this.lastTime = event.time
    switch (event.type) {
      case 'llm-call':
        this.modelCall(event)
        return false
      case 'query':
        this.searchStarted(event)
        return false
      case 'result':
        this.searchFinished(event)
        return false
      case 'page':
        this.pageRead(event)
        return false
      case 'warning':
        this.warning(event)
        return false
      case 'claim':
        this.claim(event)
        return false
      case 'run-end':
        this.end(event)
        return true
      default:
        return false
    }
  }

  /** Ends every span at the last event seen, for a stream that stopped before `run-end`. */
  abandon(error?: unknown): void {
    this.root.setAttribute(LACONIC.incomplete, true)
    if (error !== undefined) {
      this.root.recordException(error instanceof Error ? error : String(error), at(this.lastTime))
      this.root.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
    }
    this.closeSearches()
    this.root.end(at(this.lastTime))
  }

  private child(name: string, kind: SpanKind, startTime: number, attributes: Record<string, string | number | boolean>): Span {
    return this.settings.tracer.startSpan(name, { kind, startTime: at(startTime), attributes }, this.rootContext)
  }

  private modelCall(event: EventOf<'llm-call'>): void {
    // The event arrives when the call finished; it started `latencyMs` earlier.
    const span = this.child(event.model ? `chat ${event.model}` : 'chat', SpanKind.CLIENT, event.time - event.latencyMs, {
      [GEN_AI.operationName]: 'chat',
      ...(event.model ? { [GEN_AI.requestModel]: event.model } : {}),
      [GEN_AI.inputTokens]: event.inputTokens,
      [GEN_AI.outputTokens]: event.outputTokens,
      [LACONIC.role]: event.role,
    })
    span.end(at(event.time))
  }

  private searchStarted(event: EventOf<'query'>): void {
    const span = this.child('execute_tool search', SpanKind.CLIENT, event.time, {
      [GEN_AI.operationName]: 'execute_tool',
      [GEN_AI.toolName]: 'search',
      [GEN_AI.toolType]: 'extension',
      [LACONIC.queryId]: event.queryId,
      ...(event.parentId !== undefined ? { [LACONIC.parentQueryId]: event.parentId } : {}),
      ...(event.depth !== undefined ? { [LACONIC.queryDepth]: event.depth } : {}),
      ...(this.settings.captureContent ? { [LACONIC.query]: event.query } : {}),
    })
    this.searches.set(event.queryId, { span, query: event.query })
  }

  private searchFinished(event: EventOf<'result'>): void {
    const open = this.searches.get(event.queryId)
    if (!open) return
    if (event.error) {
      open.span.setAttribute(ERROR_TYPE, event.error.code)
      open.span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message })
    } else {
      open.span.setAttribute(LACONIC.resultCount, event.results.length)
    }
    if (event.cached) open.span.setAttribute(LACONIC.cached, true)
    if (event.sourcesFiltered) open.span.setAttribute(LACONIC.sourcesFiltered, event.sourcesFiltered)
    open.span.end(at(event.time))
    this.searches.delete(event.queryId)
  }

  private pageRead(event: EventOf<'page'>): void {
    // A `page` event marks the end of a read and carries no start, so the span is a point in time.
    const url = redactUrl(event.url)
    const span = this.child('execute_tool fetch', SpanKind.CLIENT, event.time, {
      [GEN_AI.operationName]: 'execute_tool',
      [GEN_AI.toolName]: 'fetch',
      [GEN_AI.toolType]: 'extension',
      [LACONIC.pageChars]: event.chars,
      ...(url !== undefined ? { [URL_FULL]: url } : {}),
      ...(event.queryId !== undefined ? { [LACONIC.queryId]: event.queryId } : {}),
    })
    span.end(at(event.time))
  }

  private warning(event: EventOf<'warning'>): void {
    const attributes = { [LACONIC.warningCode]: event.code, [LACONIC.warningMessage]: event.message }
    this.root.addEvent(WARNING_EVENT, attributes, at(event.time))
  }

  private claim(event: EventOf<'claim'>): void {
    this.claims.set(event.verdict, (this.claims.get(event.verdict) ?? 0) + 1)
    const attributes = {
      [LACONIC.claimIndex]: event.index,
      [LACONIC.claimVerdict]: event.verdict,
      [LACONIC.claimScore]: event.score,
      [LACONIC.claimCitations]: event.citations.length,
      ...(this.settings.captureContent ? { [LACONIC.claimText]: event.text, ...(event.evidence ? { [LACONIC.claimEvidence]: event.evidence } : {}) } : {}),
    }
    this.root.addEvent(CLAIM_EVENT, attributes, at(event.time))
  }

  /** The claim counts by verdict and the support rate, when the run checked any. */
  private claimAttributes(): Record<string, number> {
    if (this.claims.size === 0) return {}
    const total = [...this.claims.values()].reduce((sum, n) => sum + n, 0)
    const cited = total - (this.claims.get('uncited') ?? 0)
    const attributes: Record<string, number> = { [LACONIC.claims]: total }
    for (const [verdict, n] of this.claims) attributes[`${LACONIC.claims}.${verdict}`] = n
    if (cited > 0) attributes[LACONIC.supportRate] = (this.claims.get('supported') ?? 0) / cited
    return attributes
  }

  private end(event: EventOf<'run-end'>): void {
    const { cost } = event
    this.root.setAttributes({
      [LACONIC.reason]: event.reason,
      [LACONIC.costUsd]: cost.total,
      [GEN_AI.inputTokens]: cost.inputTokens,
      [GEN_AI.outputTokens]: cost.outputTokens,
      [LACONIC.llmCalls]: cost.llmCalls,
      [LACONIC.searches]: cost.searches,
      [LACONIC.fetches]: cost.fetches,
      [LACONIC.embeddingTokens]: cost.embeddingTokens ?? 0,
      ...this.claimAttributes(),
    })
    if (event.reason === 'error') {
      this.root.setAttribute(ERROR_TYPE, event.error?.code ?? '_OTHER')
      this.root.setStatus({ code: SpanStatusCode.ERROR, message: event.error?.message ?? 'the run failed' })
    }
    this.closeSearches()
    this.root.end(at(event.time))
  }

  /** Searches still open when the run stops were cut short (an abort, an error): they end with it. */
  private closeSearches(): void {
    for (const { span } of this.searches.values()) span.end(at(this.lastTime))
    this.searches.clear()
  }
}
