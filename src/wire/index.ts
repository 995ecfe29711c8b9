// The wire toolkit: bytes to lines and server-sent events, on Web-standard APIs only
// (and eventsource-parser). Adapters and streams both read their bodies with it.
export { chunksOf } from './byte-source.js'
export type { ByteSource } from './byte-source.js'
export { concatBytes } from './concat-bytes.js'
export { FrameTooLongError } from './frame-errors.js'
export { createLineSplitter, MAX_LINE_CHARS } from './line-splitter.js'
export type { LineSplitter, LineSplitterOptions } from './line-splitter.js'
export { readLines } from './read-lines.js'
export type { ReadLinesOptions } from './read-lines.js'
export { readSSE } from './read-sse.js'
export type { EventSourceMessage, ReadSSEOptions } from './read-sse.js'
