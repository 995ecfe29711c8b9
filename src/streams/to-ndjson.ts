import type { ResearchEvent } from '../core/contracts/events.js'
import { cancelSource } from './cancel-source.js'
import type { EventStream } from './types.js'

/**
 * One JSON object per line (`application/x-ndjson`), for logs, files and pipes. JSON escapes
 * every line break inside strings, so a line is always exactly one event. Cancelling the
 * stream aborts the source.
 */
export function toNDJSON(events: EventStream): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const iterator = events[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const step: IteratorResult<ResearchEvent> = await iterator.next()
      if (step.done) controller.close()
      else controller.enqueue(encoder.encode(`${JSON.stringify(step.value)}\n`))
    },
    cancel: (reason) => cancelSource(events, iterator, reason),
  })
}
