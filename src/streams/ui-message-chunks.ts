import type { Claim, Fact, Report, ResearchEvent, RunEndReason, WarningCode } from '../core/contracts/events.js'
import type { ErrorInfo } from '../core/contracts/laconic-error.js'
import type { RecalledFinding } from '../core/contracts/long-term-memory.js'
import type { SearchResult } from '../core/contracts/providers.js'
import type { Cost } from '../core/contracts/run-cost.js'
import type { ReportOutline } from '../core/contracts/interruption.js'
import { isFailure, isOwnWords, logMaskedError, type MaskedError, maskedText, type OnMaskedError } from './error-masking.js'

/**
 * The data parts a research run adds to an AI SDK `UIMessage`, by name (`data-plan`, …).
 * Use it as the data types of your message: `UIMessage<ResearchMessageMetadata, ResearchDataParts>`.
 */
// A type alias, not an interface: the AI SDK's data types need an implicit index signature.
export type ResearchDataParts = {
  /** One part per plan the strategy makes. */
  plan: { text: string; keyElements?: string[]; queries?: string[] }
  /**
   * One part per search (its id is the `queryId`), updated in place when its results arrive:
   * `results` is missing while the search runs, and empty with an `error` when it failed.
   */
  query: { queryId: string; query: string; parentId?: string; depth?: number; results?: SearchResult[]; cached?: boolean; error?: ErrorInfo }
  /** One part per fact (its id is the fact's id); a fact replaced by a later one gets `supersededBy`. */
  fact: { fact: Fact; supersedes?: string[]; supersededBy?: string }
  /** One part (id `cost`), updated in place: the run's cost so far, then its final cost. */
  cost: { total: Cost }
  warning: { message: string; code: WarningCode; queryId?: string }
  /** One part (id `recall`): the earlier findings long-term memory gave the run, each with its source. */
  recall: { findings: RecalledFinding[] }
  /** The structured report of strategies that write one (`deep`). */
  report: { report: Report }
  /** One part (id `outline`): the outline a long report (the `report` strategy) is written to, before any section streams. */
  outline: { outline: ReportOutline }
  /**
   * One part per section of a long report (id `section-<index>`), in outline order: where the
   * section stands in the answer's text part, as `text.slice(start, end)` (UTF-16 offsets, its
   * `## title` line first). `end` is missing while the section streams.
   */
  section: { index: number; title: string; start: number; end?: number }
  /**
   * One part per checked sentence of the answer (`verify`; its id is `claim-<index>`): the verdict,
   * the cited numbers and the passage it was checked against. Find the sentence by `text` in the
   * answer's text part.
   */
  claim: Claim
  /**
   * `verify: 'revise'` rewrote the answer (id `revision`): the message's second text part is the
   * rewrite (this `text`), the first the answer as first written. Show the last.
   */
  revision: { text: string }
  /** Progress only (transient): a page read. */
  page: { url: string; queryId?: string; chars: number; title?: string }
  /** Progress only (transient): the knowledge after a step. */
  knowledge: { knowledge: string; iteration: number }
  /** Progress only (transient): one model call done. */
  'llm-call': { role: string; model?: string; latencyMs: number; inputTokens: number; outputTokens: number }
}

/** What the stream puts in the message's metadata: the run at `start`, how it ended at `finish`. */
export interface ResearchMessageMetadata {
  runId: string
  strategy?: string
  /**
   * How the run ended. `error` also when it answered from nothing because calls failed (no
   * fact, no citation, and a search, page read or model call failed): the answer text is then
   * not a finding.
   */
  reason?: RunEndReason
  confidence?: number
  /** With `verify`: the share of the answer's cited sentences their sources support (as the result's `supportRate`). */
  supportRate?: number
  /** Why the run failed, with `reason: 'error'` (masked by the chat handler: a short message and the code). */
  error?: ErrorInfo
}

/** A `data-*` part: the research as it goes (plan, queries, facts, cost, …), keyed by part name. */
export type ResearchDataChunk = {
  [Name in keyof ResearchDataParts]: { type: `data-${Name}`; id?: string; data: ResearchDataParts[Name]; transient?: boolean }
}[keyof ResearchDataParts]

/** One chunk of the AI SDK UI message stream protocol, as a research run produces them. */
export type ResearchUIChunk =
  | { type: 'start'; messageMetadata: ResearchMessageMetadata }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'source-url'; sourceId: string; url: string; title?: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: Record<string, unknown>; dynamic: true }
  | { type: 'tool-output-available'; toolCallId: string; output: { summary: string; chars: number }; dynamic: true }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string; dynamic: true }
  | ResearchDataChunk
  | { type: 'error'; errorText: string }
  | { type: 'abort'; reason?: string }
  | { type: 'finish'; finishReason: 'stop' | 'length' | 'other' | 'error'; messageMetadata: ResearchMessageMetadata }

const ANSWER_ID = 'answer'
/** The text part of an answer rewritten without its unsupported claims. */
const REVISION_ID = 'revision'

/** The AI SDK's finish reason for each way a run ends (an aborted run sends `abort` instead). */
const FINISH_REASONS = { answered: 'stop', 'max-iterations': 'length', paused: 'other', error: 'error' } as const satisfies Record<
  Exclude<RunEndReason, 'aborted'>,
  string
>

/** How the chunks show failures: masked or as they are, and where masked ones go. */
export interface UIChunkOptions {
  /**
   * Replace every failure's text (the run's error, failed searches and tool calls, warnings
   * that carry an error's text) with a short message and its `code`; the full text goes to `onError`.
   * @defaultValue false (the chat handler turns it on)
   */
  maskErrors?: boolean | undefined
  /** Where masked failures go. @defaultValue one `console.error` line each */
  onError?: OnMaskedError | undefined
}

/**
 * Turns research events into UI message chunks, one event at a time. It keeps what the
 * protocol needs across events: whether the answer's text part is open (it opens with the first
 * answer token and closes at the answer), and the facts, so a superseded one can be marked.
 * It also keeps the first failure, so an answer from nothing because calls failed ends `error`
 * instead of reading like an honest "nothing found".
 */
export class UIChunkMapper {
  private readonly maskErrors: boolean
  private readonly onError: OnMaskedError
  private firstFailure: ErrorInfo | undefined
  private citations = 0
  private started = false
  private textOpen = false
  /** The id of the text part streaming (the answer, or its revision). */
  private textId = ANSWER_ID
  /** Claims by verdict, for the message's `supportRate`. */
  private readonly claims = new Map<number, Claim['verdict']>()
  private readonly facts = new Map<string, Fact>()
  private readonly queries = new Map<string, ResearchDataParts['query']>()
  private metadata: ResearchMessageMetadata | undefined
  /** The reasoning part open now, and how many were opened (their ids). */
  private reasoning: { id: string; role: string } | undefined
  private reasoningParts = 0
  private readonly toolCalls = new Set<string>()
  /** Characters of the answer's text part so far: where a report's sections start and end in it. */
  private answerChars = 0
  /** The report's sections streamed so far, by index (their titles and starts, for their end). */
  private readonly sections = new Map<number, ResearchDataParts['section']>()

  constructor(options: UIChunkOptions = {}) {
    this.maskErrors = options.maskErrors ?? false
    this.onError = options.onError ?? logMaskedError
  }

  map(event: ResearchEvent): ResearchUIChunk[] {
    const out: ResearchUIChunk[] = []
    if (!this.started) {
      this.started = true
      this.metadata = { runId: event.runId, ...(event.type === 'run-start' ? { strategy: event.strategy } : {}) }
      out.push({ type: 'start', messageMetadata: this.metadata })
    }
    switch (event.type) {
      case 'recall':
        out.push({ type: 'data-recall', id: 'recall', data: { findings: event.findings } })
        break
      case 'plan':
        out.push({ type: 'data-plan', data: pick(event, ['text', 'keyElements', 'queries']) })
        break
      case 'query': {
        const data = pick(event, ['queryId', 'query', 'parentId', 'depth'])
        this.queries.set(event.queryId, data)
        out.push({ type: 'data-query', id: event.queryId, data })
        break
      }
      case 'result': {
        const known = this.queries.get(event.queryId) ?? { queryId: event.queryId, query: '' }
        const data: ResearchDataParts['query'] = { ...known, ...pick(event, ['results', 'cached']) }
        if (event.error) {
          this.firstFailure ??= event.error
          data.error = { code: event.error.code, message: this.shown('search', event.error) }
        }
        out.push({ type: 'data-query', id: event.queryId, data })
        break
      }
      case 'fact':
        this.addFact(event, out)
        break
      case 'cost':
        out.push({ type: 'data-cost', id: 'cost', data: { total: event.total } })
        break
      case 'warning':
        if (isFailure(event.code)) this.firstFailure ??= { message: event.message, code: event.code }
        out.push({
          type: 'data-warning',
          data: { ...pick(event, ['code', 'queryId']), message: isOwnWords(event.code) ? event.message : this.shown('warning', event) },
        })
        break
      case 'page':
        out.push({ type: 'data-page', data: pick(event, ['url', 'queryId', 'chars', 'title']), transient: true })
        break
      case 'knowledge-update':
        out.push({ type: 'data-knowledge', data: pick(event, ['knowledge', 'iteration']), transient: true })
        break
      case 'reasoning-token':
        this.addReasoning(event, out)
        break
      case 'tool-call':
        // A tool the strategy runs (react): a dynamic tool part, as useChat shows any tool call.
        this.toolCalls.add(event.callId)
        out.push({ type: 'tool-input-available', toolCallId: event.callId, toolName: event.name, input: withoutPrototypeKeys(event.args), dynamic: true })
        break
      case 'tool-result':
        // The AI SDK refuses an output for a call it has not seen; a stream joined mid-run may start with one.
        if (!this.toolCalls.has(event.callId)) break
        out.push(
          event.ok
            ? { type: 'tool-output-available', toolCallId: event.callId, output: { summary: event.summary, chars: event.chars }, dynamic: true }
            : { type: 'tool-output-error', toolCallId: event.callId, errorText: this.shown('tool', { message: event.summary, code: 'error' }), dynamic: true },
        )
        break
      case 'llm-call':
        // The call whose reasoning was streaming has finished.
        this.closeReasoning(out)
        out.push({ type: 'data-llm-call', data: pick(event, ['role', 'model', 'latencyMs', 'inputTokens', 'outputTokens']), transient: true })
        break
      case 'answer-token':
        if (!event.text) break
        if (event.revised) this.openRevision(out)
        this.openText(out)
        out.push({ type: 'text-delta', id: this.textId, delta: event.text })
        if (this.textId === ANSWER_ID) this.answerChars += event.text.length
        break
      case 'outline':
        out.push({ type: 'data-outline', id: 'outline', data: { outline: event.outline } })
        break
      case 'section-start': {
        const data = { index: event.index, title: event.title, start: this.answerChars }
        this.sections.set(event.index, data)
        out.push({ type: 'data-section', id: `section-${event.index}`, data })
        break
      }
      case 'section-end': {
        const started = this.sections.get(event.index)
        // A stream joined mid-section has no start to end.
        if (started) out.push({ type: 'data-section', id: `section-${event.index}`, data: { ...started, end: this.answerChars } })
        break
      }
      case 'claim':
        this.addClaim(event, out)
        break
      case 'answer':
        if (event.revised) this.addRevision(event, out)
        else this.addAnswer(event, out)
        break
      case 'run-end': {
        this.closeReasoning(out)
        this.closeText(out)
        // An answer with no fact and no citation, given after a call failed, is not a finding.
        const fromNothing = event.reason === 'answered' && this.facts.size === 0 && this.citations === 0 ? this.firstFailure : undefined
        if (fromNothing) {
          out.push(...this.end('error', { message: `nothing was found to answer from because a call failed: ${fromNothing.message}`, code: fromNothing.code }))
        } else out.push(...this.end(event.reason, event.error))
        break
      }
      default:
        break
    }
    return out
  }

  /** A fact, and the facts it supersedes marked so. */
  private addFact(event: EventOf<'fact'>, out: ResearchUIChunk[]): void {
    for (const id of event.supersedes ?? []) {
      const old = this.facts.get(id)
      this.facts.delete(id)
      if (old) out.push({ type: 'data-fact', id, data: { fact: old, supersededBy: event.fact.id } })
    }
    this.facts.set(event.fact.id, event.fact)
    out.push({ type: 'data-fact', id: event.fact.id, data: pick(event, ['fact', 'supersedes']) })
  }

  /** One reasoning part per stretch of one role's thinking: another role's starts a new part. */
  private addReasoning(event: EventOf<'reasoning-token'>, out: ResearchUIChunk[]): void {
    if (!event.text) return
    if (this.reasoning?.role !== event.role) {
      this.closeReasoning(out)
      this.reasoning = { id: `reasoning-${++this.reasoningParts}`, role: event.role }
      out.push({ type: 'reasoning-start', id: this.reasoning.id })
    }
    out.push({ type: 'reasoning-delta', id: this.reasoning.id, delta: event.text })
  }

  /** A checked claim, and the message's `supportRate` over the claims so far. */
  private addClaim(event: EventOf<'claim'>, out: ResearchUIChunk[]): void {
    this.claims.set(event.index, event.verdict)
    const { index, text, citations, verdict, evidence, score } = event
    out.push({
      type: 'data-claim',
      id: `claim-${index}`,
      data: { index, text, citations, verdict, ...(evidence !== undefined ? { evidence } : {}), score },
    })
    const cited = [...this.claims.values()].filter((v) => v !== 'uncited')
    if (cited.length && this.metadata) this.metadata = { ...this.metadata, supportRate: cited.filter((v) => v === 'supported').length / cited.length }
  }

  /** The revised answer: its own text part (one delta when no tokens streamed), then its data part. */
  private addRevision(event: EventOf<'answer'>, out: ResearchUIChunk[]): void {
    this.openRevision(out)
    if (!this.textOpen && event.text) {
      this.openText(out)
      out.push({ type: 'text-delta', id: this.textId, delta: event.text })
    }
    this.closeText(out)
    out.push({ type: 'data-revision', id: REVISION_ID, data: { text: event.text } })
  }

  /** The answer: its text closed, its citations as sources, its report and confidence. */
  private addAnswer(event: EventOf<'answer'>, out: ResearchUIChunk[]): void {
    // A strategy that streamed no tokens still gets its answer shown, as one delta.
    if (!this.textOpen && event.text) {
      this.openText(out)
      out.push({ type: 'text-delta', id: ANSWER_ID, delta: event.text })
      this.answerChars += event.text.length
    }
    this.closeText(out)
    this.citations += event.citations.length
    for (const citation of event.citations) {
      out.push({ type: 'source-url', sourceId: String(citation.index), url: citation.url, ...(citation.title ? { title: citation.title } : {}) })
    }
    if (event.report) out.push({ type: 'data-report', data: { report: event.report } })
    if (event.confidence !== undefined && this.metadata) this.metadata = { ...this.metadata, confidence: event.confidence }
  }

  /** The chunks that end a stream whose source failed before its `run-end`. */
  fail(error: ErrorInfo): ResearchUIChunk[] {
    const out: ResearchUIChunk[] = []
    if (!this.started) {
      this.started = true
      this.metadata = { runId: '' }
      out.push({ type: 'start', messageMetadata: this.metadata })
    }
    this.closeReasoning(out)
    this.closeText(out)
    out.push(...this.end('error', error))
    return out
  }

  private end(reason: RunEndReason, error: ErrorInfo | undefined): ResearchUIChunk[] {
    if (reason === 'aborted') return [{ type: 'abort', ...(error && !this.maskErrors ? { reason: error.message } : {}) }]
    const metadata: ResearchMessageMetadata = { ...(this.metadata ?? { runId: '' }), reason }
    const out: ResearchUIChunk[] = []
    if (reason === 'error') {
      const shown = { code: error?.code ?? 'error', message: error ? this.shown('run', error) : 'the research run failed' }
      metadata.error = shown
      out.push({ type: 'error', errorText: shown.message })
    }
    out.push({ type: 'finish', finishReason: FINISH_REASONS[reason], messageMetadata: metadata })
    return out
  }

  /** The text a client may see of a failure: its own, or, masked, a short one (the full one goes to `onError`). */
  private shown(kind: MaskedError['kind'], error: ErrorInfo): string {
    if (!this.maskErrors) return error.message
    this.onError({ kind, code: error.code, message: error.message, runId: this.metadata?.runId || undefined })
    return maskedText(kind, error.code)
  }

  private closeReasoning(out: ResearchUIChunk[]): void {
    if (!this.reasoning) return
    out.push({ type: 'reasoning-end', id: this.reasoning.id })
    this.reasoning = undefined
  }

  private openText(out: ResearchUIChunk[]): void {
    if (this.textOpen) return
    this.textOpen = true
    out.push({ type: 'text-start', id: this.textId })
  }

  private closeText(out: ResearchUIChunk[]): void {
    if (!this.textOpen) return
    this.textOpen = false
    out.push({ type: 'text-end', id: this.textId })
  }

  /** The revision streams as a text part of its own, after the answer's. */
  private openRevision(out: ResearchUIChunk[]): void {
    if (this.textId === REVISION_ID) return
    this.closeText(out)
    this.textId = REVISION_ID
  }
}

/** The research event of one type. */
type EventOf<T extends ResearchEvent['type']> = Extract<ResearchEvent, { type: T }>

/**
 * The model's tool arguments without the keys the AI SDK client refuses: it reads every chunk
 * with a prototype-poisoning guard, which rejects the whole chunk (and so the chat's stream) when
 * any object has a `__proto__` key, or a `constructor` object has a `prototype` key. A model may
 * write either: the tool part shows the rest of the call, and the `tool-call` event keeps it whole.
 */
function withoutPrototypeKeys(args: Record<string, unknown>): Record<string, unknown> {
  const copy = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => copy(item))
    if (value === null || typeof value !== 'object') return value
    const out: Record<string, unknown> = {}
    for (const [name, item] of Object.entries(value)) {
      if (name === '__proto__' || (key === 'constructor' && name === 'prototype')) continue
      out[name] = copy(item, name)
    }
    return out
  }
  return copy(args) as Record<string, unknown>
}

/** The named fields of an event that are set: the protocol's parts carry no `undefined`s. */
function pick<E extends object, K extends keyof E>(event: E, keys: readonly K[]): Pick<E, K> {
  const out: Partial<Pick<E, K>> = {}
  for (const key of keys) if (event[key] !== undefined) out[key] = event[key]
  return out as Pick<E, K>
}
