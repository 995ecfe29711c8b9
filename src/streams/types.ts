import type { ResearchEvent } from '../core/contracts/events.js'

/**
 * What every stream helper consumes: any async iterable of events. A `ResearchRun` fits, and
 * so does a `broadcast` subscription or a plain async generator. When the consumer goes away
 * (a client disconnects, a reader cancels), helpers call `abort` if there is one, then the
 * iterator's `return()`, so an abandoned run stops spending money.
 */
export type EventStream = AsyncIterable<ResearchEvent> & { abort?: ((reason?: unknown) => void) | undefined }
