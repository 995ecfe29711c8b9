/**
 * Attribute names. The `gen_ai.*` ones follow the OpenTelemetry GenAI semantic conventions
 * (status: Development — names may still change upstream); `laconic.*` ones carry what the
 * conventions have no name for.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  agentName: 'gen_ai.agent.name',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
} as const

/** Stable OpenTelemetry attributes used outside the GenAI namespace. */
export const ERROR_TYPE = 'error.type'
export const URL_FULL = 'url.full'

export const LACONIC = {
  runId: 'laconic.run_id',
  strategy: 'laconic.strategy',
  questionLength: 'laconic.question.length',
  /** Only with `captureContent: true`. */
  question: 'laconic.question',
  reason: 'laconic.reason',
  /** Set when the stream stopped before `run-end` (the consumer broke out early). */
  incomplete: 'laconic.incomplete',
  costUsd: 'laconic.cost.usd',
  llmCalls: 'laconic.llm_calls',
  searches: 'laconic.searches',
  fetches: 'laconic.fetches',
  /** Tokens the run embedded (a knowledge base's queries, long-term memory's recall): not in `gen_ai.usage.input_tokens`. */
  embeddingTokens: 'laconic.embedding_tokens',
  role: 'laconic.role',
  queryId: 'laconic.query_id',
  parentQueryId: 'laconic.query.parent_id',
  queryDepth: 'laconic.query.depth',
  /** Only with `captureContent: true`. */
  query: 'laconic.query',
  resultCount: 'laconic.search.results',
  cached: 'laconic.search.cached',
  /** Results the run's `sources` rules removed (the `result` event's `sourcesFiltered`), when any. */
  sourcesFiltered: 'laconic.search.sources_filtered',
  pageChars: 'laconic.page.chars',
  warningCode: 'laconic.warning.code',
  warningMessage: 'laconic.warning.message',
  /** With `verify`, on the root span: the claims checked, and those of each verdict (`laconic.claims.unsupported`, ...). */
  claims: 'laconic.claims',
  /** With `verify`, on the root span: supported claims over those citing a source. */
  supportRate: 'laconic.support_rate',
  claimIndex: 'laconic.claim.index',
  claimVerdict: 'laconic.claim.verdict',
  claimScore: 'laconic.claim.score',
  claimCitations: 'laconic.claim.citations',
  /** Only with `captureContent: true`. */
  claimText: 'laconic.claim.text',
  /** Only with `captureContent: true`. */
  claimEvidence: 'laconic.claim.evidence',
} as const

/** The span event name of a `claim` (one per checked sentence, on the root span). */
export const CLAIM_EVENT = 'laconic.claim'

/** The span event name of a `warning`. */
export const WARNING_EVENT = 'laconic.warning'
