import type { JsonValue } from '../util/json-value.js'
import type { ErrorCode, ErrorInfo } from './laconic-error.js'

export type { ErrorInfo } from './laconic-error.js'
import type { Cost } from './run-cost.js'
import type { InterruptRequest, ReportOutline } from './interruption.js'
import type { RecalledFinding } from './long-term-memory.js'
import type { DocumentKind, DocumentWarningCode, SearchResult } from './providers.js'

/** An atomic fact in a notebook, tied to the sources it came from. */
export interface Fact {
  id: string
  text: string
  sources: string[]
  queryId?: string
}

/** A numbered source of the answer: `[index]` in the answer text refers to `url`. */
export interface Citation {
  index: number
  url: string
  title?: string
}

/**
 * Claim verification of the answer: off (`false`), `'annotate'` (`true`): each sentence that
 * cites a source is checked against the text that source showed, reported as `claim` events;
 * `'revise'`: the same, then the answer is rewritten once without its unsupported sentences.
 */
export type VerifyMode = boolean | 'annotate' | 'revise'

/**
 * What claim verification found for one sentence of the answer: `supported` (its cited sources
 * say it), `partial` (they say part of it), `unsupported` (they do not, or say otherwise),
 * `uncited` (it cites nothing), `unverifiable` (there was nothing to check it against, or the
 * judge gave no usable verdict).
 */
export type ClaimVerdict = 'supported' | 'partial' | 'unsupported' | 'uncited' | 'unverifiable'

/** One sentence of the answer, checked against the text of the sources it cites (`verify`). */
export interface Claim {
  /** The sentence's place among the answer's claims: 0, 1, 2, ... in the order they are written. */
  index: number
  /** The sentence exactly as it stands in the answer (citation markers included). */
  text: string
  /** The numbers it cites (`[n]` in the answer, the `index` of a `Citation`). */
  citations: number[]
  verdict: ClaimVerdict
  /** The passage of the cited text that matches the sentence best (bounded): what a reader checks it against. */
  evidence?: string
  /** The share of the sentence's terms (numbers, names, content words) found in the evidence, 0 to 1; 0 when uncited. */
  score: number
}

/** A structured report, made by strategies that write one (`deep`). */
export interface Report {
  title: string
  executiveSummary: string
  mainFindings: string[]
  conclusions: string[]
  limitations: string[]
  recommendations: string[]
  sourcesSummary: string
  /**
   * A long report's sections in order (the `report` strategy), each its Markdown text with the
   * answer's `[n]` citations; its `executiveSummary` is then the introduction and `conclusions`
   * holds the conclusion.
   */
  sections?: ReportSection[]
}

/** One section of a long report: its title and its text (Markdown, without its heading). */
export interface ReportSection {
  title: string
  text: string
}

/**
 * Why a run ended. `paused`: it stopped to wait for a decision (on its plan, or a tool call: the
 * `request` of its `run-end` and result) after saving a checkpoint; `agent.resume` with a
 * `decision` continues it. A paused run's `answer` is empty.
 */
export type RunEndReason = 'answered' | 'max-iterations' | 'paused' | 'aborted' | 'error'

/**
 * What a `warning` event's `code` says; docs/events.md lists each one. A failed search or
 * fetch carries its failure's `ErrorCode` (`network`, `http`, `rate-limit`, ...). The union
 * stays open (`ErrorCode` ends in `string & {}`): strategies users write warn with their own
 * codes through `ctx.warning`, and consumers should treat an unknown code as a plain warning.
 */
export type WarningCode =
  // the runtime
  | 'retry'
  | 'search-empty'
  | 'search-failed'
  | 'fetch-failed'
  | 'extraction-fallback'
  | 'checkpoint-locked'
  | 'checkpoint-failed'
  | 'recall-failed'
  | 'session-failed'
  | 'source-denied'
  // search providers: part of a search failed and the rest stands (a provider of combineSearch, a Wikipedia page summary)
  | 'search-partial'
  // the built-in strategies
  | 'budget'
  | 'max-iterations'
  | 'unparseable-output'
  | 'empty-output'
  | 'no-sources'
  | 'no-facts'
  | 'forced-search'
  | 'repeated-query'
  | 'empty-question'
  | 'repeated-question'
  | 'ungrounded-facts'
  | 'invented-source'
  | 'node-failed'
  | 'section-failed'
  | 'repeated-call'
  | 'tools-unsupported'
  | 'tool-source-failed'
  | 'answer-rejected'
  | 'answer-ungrounded'
  | 'approval-needed'
  | 'approval-unavailable'
  | 'approval-missing'
  | 'plan-rejected'
  | 'verifier-failed'
  | 'verifier-limit'
  | 'revision-failed'
  // documents (PDF, DOCX): a part left out, or the whole document unread
  | DocumentWarningCode
  // streams and workers
  | 'slow-subscriber'
  | 'resumed'
  | ErrorCode

/** The payloads, keyed by event type. One union that every consumer switches on. */
export interface EventPayloads {
  /** `resumed`: this run continues a checkpoint; `cost` is what was spent before it. */
  'run-start': { question: string; strategy: string; resumed?: { cost: Cost } }
  /** Long-term memory's earlier findings for this question (the agent's `memory`), given to the strategy as prior knowledge: not this run's facts. */
  recall: { findings: RecalledFinding[] }
  plan: { text: string; keyElements?: string[]; queries?: string[] }
  query: { queryId: string; query: string; parentId?: string; depth?: number }
  /**
   * Every query gets one: the results, or none and the `error` that stopped the search.
   * `sourcesFiltered`: how many results the run's `sources` rules removed (the sources-filtered figure), when any.
   */
  result: { queryId: string; results: SearchResult[]; cached?: boolean; error?: ErrorInfo; sourcesFiltered?: number }
  /** A page was read; a document also says its format and page count ("reading paper.pdf, 12 pages"). */
  page: { url: string; queryId?: string; chars: number; title?: string; kind?: DocumentKind; pages?: number }
  fact: { fact: Fact; supersedes?: string[] }
  'knowledge-update': { knowledge: string; iteration: number }
  'llm-call': { role: string; model?: string; latencyMs: number; inputTokens: number; outputTokens: number }
  cost: { delta: Cost; total: Cost }
  /** Reasoning a model produced on the way (out-of-band or a think block): show it as "thinking", never as the answer. */
  'reasoning-token': { role: string; text: string }
  /** A tool call the `react` strategy runs: its arguments as the model wrote them (`raw` when not a JSON object), sensitive fields redacted. */
  'tool-call': { callId: string; name: string; args: Record<string, unknown> }
  /** The result of a `tool-call`: whether it ran, a one-line summary, and the characters the model sees. */
  'tool-result': { callId: string; ok: boolean; summary: string; chars: number }
  /**
   * `revised`: a piece of the answer rewritten without its unsupported claims (`verify: 'revise'`), after the first `answer`.
   * `section`: the index of the report section this piece belongs to (the `report` strategy), between its `section-start` and `section-end`.
   */
  'answer-token': { text: string; revised?: true; section?: number }
  /** The outline a long report (the `report` strategy) is written to, before any section streams. */
  outline: { outline: ReportOutline }
  /** A report section starts streaming; sections stream in outline order, `index` from 0. */
  'section-start': { index: number; title: string }
  /** A report section has streamed all its `answer-token`s. */
  'section-end': { index: number }
  /** `revised`: the rewritten answer (`verify: 'revise'`), which replaces the first one; the first stays in the result as `draft`. */
  answer: { text: string; citations: Citation[]; report?: Report; confidence?: number; revised?: true }
  /** A sentence of the answer checked against its cited sources (`verify`); claims settle in any order. */
  claim: Claim
  warning: { message: string; code: WarningCode; queryId?: string }
  /** `request`: what a `paused` run waits for. */
  'run-end': { reason: RunEndReason; answer?: string; cost: Cost; error?: ErrorInfo; request?: InterruptRequest }
}

/** The `type` of a research event, e.g. `'run-start'`, `'fact'`, `'run-end'`. */
export type EventType = keyof EventPayloads

/** What every research event carries: its run, its position in the run, and when it happened. */
export interface EventStamp {
  runId: string
  /** 0, 1, 2, ... within a run. */
  seq: number
  /** Milliseconds since the epoch. */
  time: number
}

/** One event of a research run, as consumers see it. */
export type ResearchEvent = { [T in EventType]: { type: T } & EventPayloads[T] & EventStamp }[EventType]

/** The event of one type, e.g. `EventOf<'fact'>`. */
export type EventOf<T extends EventType> = Extract<ResearchEvent, { type: T }>

/**
 * What a strategy yields: an event before the runtime stamps it. The runtime adds
 * `run-start`/`run-end` itself and computes `cost.total`, so strategies yield cost deltas only.
 */
export type StrategyEvent =
  | { [T in Exclude<EventType, 'run-start' | 'run-end' | 'cost'>]: { type: T } & EventPayloads[T] }[Exclude<EventType, 'run-start' | 'run-end' | 'cost'>]
  | { type: 'cost'; delta: Cost }
  /**
   * A step ended (made by `ctx.checkpoint`; never shown to consumers): the runtime saves `state`
   * with the id counters as they were when it was made, then calls `saved`.
   */
  | { type: 'checkpoint'; state: JsonValue; ids?: { [prefix: string]: number }; saved?: () => void }

/** Every research event type, to check a `type` against or list them. */
export const EVENT_TYPES: readonly EventType[] = [
  'run-start',
  'recall',
  'plan',
  'query',
  'result',
  'page',
  'fact',
  'knowledge-update',
  'llm-call',
  'cost',
  'reasoning-token',
  'tool-call',
  'tool-result',
  'answer-token',
  'outline',
  'section-start',
  'section-end',
  'answer',
  'claim',
  'warning',
  'run-end',
]
