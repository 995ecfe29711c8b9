/**
 * The seams a user implements: a model, a search engine, a page fetcher.
 * Everything is streaming-first and abortable through a Web-standard AbortSignal.
 */

import type { UsageReporter } from './provider-usage.js'

/** A JSON Schema object, passed through to backends that support structured output. */
export type JsonSchema = { readonly [key: string]: unknown }

/** Told to the caller before a provider retries a failed request (the runtime turns it into a `warning`). */
export interface RetryInfo {
  /** Which attempt failed (1 = the first request). */
  attempt: number
  /** How long the provider will wait before the next attempt. */
  delayMs: number
  /** Why it retries, safe to show (never contains a secret). */
  reason: string
  status?: number
}

/** What a model is asked: a system prompt, one user turn, and optional tools, output format and limits. */
export interface LLMRequest {
  system?: string
  /** One user turn: strategies build compact single-turn prompts. */
  prompt: string
  /**
   * How many characters at the start of `prompt` stay the same across calls of this role: a
   * backend with explicit prompt caching (Anthropic) marks a cache breakpoint there. Strategies'
   * model calls set it to what the role's previous prompt shared (whole lines).
   */
  cachePrefix?: number
  /** Ask for JSON where the backend supports it; a schema asks for structured output. */
  json?: boolean | JsonSchema
  maxTokens?: number
  temperature?: number
  signal?: AbortSignal
  /** Called before each retry of this request. */
  onRetry?: (info: RetryInfo) => void
  /** Tools the model may call; their calls stream as `tool-call-delta` then `tool-call` chunks. */
  tools?: readonly ToolSpec[]
  /** Whether and which tool the model must call. @defaultValue the backend's own (`'auto'` where it has one) */
  toolChoice?: ToolChoice
  /** The turns after `prompt` in a tool-calling conversation: the model's calls and their results. */
  turns?: readonly ChatTurn[]
}

/** A tool as a model sees it: a name, what it does, and its arguments as a JSON Schema object. */
export interface ToolSpec {
  name: string
  description: string
  parameters: JsonSchema
}

/** Let the model choose, make it call some tool, forbid tools, or make it call the named one. */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string }

/** One call a model made. `args` is the JSON text it wrote, which may not be valid JSON. */
export interface ToolCall {
  /** The provider's id for the call; its result names it. */
  id: string
  name: string
  /** The arguments' JSON text, as the model wrote it. */
  args: string
}

/** A turn that follows the user prompt: what the model said and called, a tool's result, or more from the user. */
export type ChatTurn =
  | { role: 'assistant'; text: string; toolCalls: readonly ToolCall[] }
  | { role: 'tool'; callId: string; name: string; content: string; isError?: boolean }
  | { role: 'user'; text: string }

/** A piece of a model's streamed reply: text, reasoning, usage, or a tool call. */
export type LLMChunk =
  | { type: 'text'; text: string }
  /** Reasoning a backend delivers out of band; never part of the answer. */
  | { type: 'reasoning'; text: string }
  /**
   * What the call consumed, as the backend reported it. A count the backend did not report is
   * absent (the run then estimates it), never 0. `cachedInputTokens` and `cacheWriteTokens` are
   * parts of `inputTokens`; `cost` is in dollars.
   */
  | {
      type: 'usage'
      inputTokens?: number
      outputTokens?: number
      cachedInputTokens?: number
      cacheWriteTokens?: number
      cost?: number
    }
  /**
   * A piece of a tool call as it streams: the call's `id` and `name` (known from its first
   * piece on), and the next piece of its JSON arguments. Calls in parallel differ by `index`.
   */
  | { type: 'tool-call-delta'; index: number; id: string; name: string; argsDelta: string }
  /** A tool call, complete: sent once per call, after its deltas. */
  | ({ type: 'tool-call' } & ToolCall)

/** A language model: `stream(request)` yields its reply in chunks. Implement it to plug in any model. */
export interface LLMProvider {
  readonly model?: string
  /**
   * True when the model runs on this machine (Ollama, or a server on a loopback address): a
   * model missing from the price table then costs 0 rather than an unknown amount.
   */
  readonly local?: boolean
  stream(req: LLMRequest): AsyncIterable<LLMChunk>
}

/** One search hit: title, URL and snippet, with a score when the engine gives one and a work's facts when a scholarly source does. */
export interface SearchResult {
  title: string
  url: string
  snippet: string
  score?: number
  /**
   * Set by a cache (`cached()`) on each result it served without calling the provider. Data,
   * not a hidden mark, so it survives a wrapper that copies the array or the results. The run
   * reports a search as cached, and charges nothing for it, when it returned results and every
   * one is marked (an empty list has nothing to carry the mark, so it counts as a search).
   */
  cached?: true
  /**
   * When the source was published, as an ISO date (`2024-03-01`, or `2024-03`, `2024`), where the
   * engine says: a run's `sources.after`/`before` compare it (or else `meta.year`).
   */
  published?: string
  /**
   * What a scholarly or reference source knows about the work behind the result (`arxiv()`,
   * `openAlex()`, `semanticScholar()`, `pubmed()`, `wikipedia()`): each field only when the
   * source gives it. `combineSearch()` merges results with the same DOI or arXiv id by it.
   */
  meta?: {
    authors?: string[]
    /** The year of publication. */
    year?: number
    /** The journal, conference or archive section. */
    venue?: string
    /** Lower-case, without `https://doi.org/`, e.g. `10.1145/3395363.3397376`. */
    doi?: string
    /** Without its version, e.g. `2202.12139` or `cond-mat/0603029`. */
    arxivId?: string
    /** An open-access PDF of the work; `httpFetch()` reads it with page citations. */
    pdfUrl?: string
  }
}

/**
 * Per-call options of `SearchProvider.search()`: cancellation, how many results, a callback told
 * about each retry, and one told what the search spent on calls of its own.
 */
export interface SearchOptions {
  signal?: AbortSignal
  limit?: number
  onRetry?: (info: RetryInfo) => void
  /**
   * Told what the search spent on model or embedding calls of its own (a knowledge base embeds
   * the query and may ask a model to rerank): a run passes one, and counts what it is told in
   * the run's cost. A provider that wraps another passes it on.
   */
  onUsage?: UsageReporter
  /**
   * Told about a problem the search worked around rather than failed on (the files of a local
   * corpus it could not read): a run passes one, and turns each into a `warning` event of the
   * search's query. A provider that wraps another passes it on.
   */
  onWarning?: (warning: PageWarning) => void
  /**
   * The run's rules for which sources count (`sources`): a provider whose API can filter by
   * domain or date puts them in its request and calls `onSourcesApplied` with what it applied.
   * The run filters the results by them either way; a provider that applied the dates spares
   * its undated results from `strictDates`. A provider that wraps another passes both on.
   */
  sources?: SourceFilter
  onSourcesApplied?: (parts: readonly SourceFilterPart[]) => void
}

/**
 * Rules for which sources a run uses. `allow`: only these domains (and their subdomains);
 * `deny`: never these (deny wins). `after`/`before`: ISO dates (`2024-01-31`, or a year `2024`)
 * bounding when a source was published, both inclusive. A source whose date is unknown is kept
 * unless `strictDates`.
 */
export interface SourceFilter {
  allow?: readonly string[]
  deny?: readonly string[]
  after?: string
  before?: string
  strictDates?: boolean
}

/** What a search provider applied of a run's `SourceFilter` in its own request. */
export type SourceFilterPart = 'domains' | 'dates'

/** A web (or corpus) search: `search(query)` returns results. Implement it to plug in any search engine. */
export interface SearchProvider {
  search(query: string, opts?: SearchOptions): Promise<SearchResult[]>
  /** Dollars per search call, when the provider knows it (the agent's `searchCost` wins). */
  readonly searchCost?: number
}

/** A page as a `FetchProvider` returns it: its URL, title and plain text (and pages, for a document). */
export interface FetchedPage {
  url: string
  title?: string
  text: string
  /** Set by a cache (`cached()`) on a page it served without fetching: the run charges no fetch for it. */
  cached?: true
  /**
   * Set when `text` is a fallback rather than the page's readable text, saying why (its
   * extraction ran out of time, or the page has too many elements to look for its article):
   * the run warns with code `extraction-fallback`.
   */
  fallback?: string
  /** Set when the page is a document rather than a web page: which format it was read from. */
  kind?: DocumentKind
  /** Pages in the document (PDF), all of them, read or not. */
  pages?: number
  /**
   * Where each page read starts in `text` (PDF): page n is `text.slice(pageStarts[n - 1],
   * pageStarts[n])` (`documentPages` splits it). Strategies cite a page as `url#page=n`.
   */
  pageStarts?: readonly number[]
  /** What was left out or could not be read (a scanned page, pages past a limit): each one becomes a `warning`. */
  warnings?: readonly PageWarning[]
  /**
   * When the page says it was published, as an ISO date (`2019-03-29`, or `2019-03`, `2019`):
   * from its JSON-LD `datePublished`, its publication-date meta tags, microdata, or a `<time
   * datetime>` in its article; a PDF's `CreationDate`. A run's `sources.after`/`before` compare it.
   */
  published?: string
}

/** A document format a fetch provider reads besides web pages. */
export type DocumentKind = 'pdf' | 'docx'

/** What can go wrong reading a document: each is a `warning` code (docs/events.md). */
export type DocumentWarningCode =
  | 'document-encrypted'
  | 'document-unreadable'
  | 'document-no-text'
  | 'document-unmapped'
  | 'document-limit'
  | 'document-truncated'
  | 'document-too-large'
  | 'missing-dependency'

/** A problem reading part of a page (or a search's file), as the run reports it: a `warning` with this code. */
export interface PageWarning {
  /** A document's code, or a code of a fetch provider's own. */
  code: DocumentWarningCode | (string & {})
  message: string
}

/** Per-call options of `FetchProvider.fetch()`: cancellation, and a callback told about each retry. */
export interface FetchOptions {
  signal?: AbortSignal
  onRetry?: (info: RetryInfo) => void
}

/** Reads a page: `fetch(url)` returns its title and text. Implement it to plug in any reader. */
export interface FetchProvider {
  fetch(url: string, opts?: FetchOptions): Promise<FetchedPage>
}
