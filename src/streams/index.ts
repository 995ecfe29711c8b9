export type { EventStream } from './types.js'
export { toSSE, encodeEventFrame, SSE_END_EVENT, type ToSSEOptions } from './to-sse.js'
export { encodeSSEFrame, encodeSSEComment, type SSEFrame } from './sse-frame.js'
export { sseResponse, SSE_HEADERS, type SSEResponseInit } from './sse-response.js'
export { pipeSSE, type PipeSSEOptions, type SSEServerResponse } from './pipe-sse.js'
export { fromSSE, type FromSSEOptions, type SSESource } from './from-sse.js'
export { toNDJSON } from './to-ndjson.js'
export { fromNDJSON, type FromNDJSONOptions } from './from-ndjson.js'
export { parseResearchEvent, isResearchEvent } from './parse-event.js'
export { broadcast, type Broadcast, type BroadcastOptions, type Subscription } from './broadcast.js'
export { filter } from './filter.js'
export { coalesceTokens } from './coalesce-tokens.js'
export { logEvents, type EventLogger, type LogFunction } from './log-events.js'
export { collectMetrics, type RunMetrics } from './collect-metrics.js'
export type { Histogram } from './histogram.js'
export {
  toUIMessageStream,
  toUIMessageStreamResponse,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageStreamResponseInit,
  type ResearchUIChunk,
  type ResearchDataChunk,
  type ResearchDataParts,
  type ResearchMessageMetadata,
} from './ui-message-stream.js'
export type { UIChunkOptions } from './ui-message-chunks.js'
export type { MaskedError, OnMaskedError } from './error-masking.js'
export type {
  ResearchUIMessage,
  ResearchUIMessagePart,
  ResearchDataUIPart,
  ResearchToolUIPart,
  ResearchMessageDataParts,
} from './research-ui-message.js'
export { researchDataSchemas, researchMetadataSchema, type ResearchDataSchemas } from './research-schemas.js'
export type { ResearchSchema, SchemaIssue, SchemaResult } from './standard-schema.js'
