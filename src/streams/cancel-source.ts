import type { ResearchEvent } from '../core/contracts/events.js'
import type { EventStream } from './types.js'

/**
 * Stop a source the consumer no longer wants. `abort` goes first because an async generator
 * queues `return()` behind a pending `next()`: aborting is what makes that `next()` settle.
 */
export async function cancelSource(source: EventStream, iterator: AsyncIterator<ResearchEvent>, reason?: unknown): Promise<void> {
  source.abort?.(reason)
  try {
    await iterator.return?.()
  } catch {
    // The consumer is gone; an error while unwinding has nobody left to tell.
  }
}
