// `laconic-research/streams`: a run's events on the wire (SSE, NDJSON, the AI SDK's UI message
// stream) and back, and the helpers over an event stream (broadcast, filter, metrics, logging).
// Options are each function's own parameters.
export { toSSE } from './to-sse.js'
export { sseResponse } from './sse-response.js'
export { pipeSSE, type SSEServerResponse } from './pipe-sse.js'
export { fromSSE } from './from-sse.js'
export { toNDJSON } from './to-ndjson.js'
export { fromNDJSON } from './from-ndjson.js'
export { parseResearchEvent } from './parse-event.js'
export { broadcast, type Broadcast } from './broadcast.js'
export { filter } from './filter.js'
export { coalesceTokens } from './coalesce-tokens.js'
export { logEvents } from './log-events.js'
export { collectMetrics, type RunMetrics } from './collect-metrics.js'
export { toUIMessageStream, toUIMessageStreamResponse } from './ui-message-stream.js'
export type { MaskedError } from './error-masking.js'
export type { ResearchUIMessage } from './research-ui-message.js'
export { researchDataSchemas, researchMetadataSchema } from './research-schemas.js'
