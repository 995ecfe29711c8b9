import type { EventOf, EventType, ResearchEvent } from '../core/contracts/events.js'

/**
 * Only the events of the given types, typed accordingly:
 * `for await (const e of filter(run, 'query', 'fact'))` gives `EventOf<'query' | 'fact'>`.
 * Stopping early stops (and so aborts) the source.
 */
export async function* filter<T extends EventType>(events: AsyncIterable<ResearchEvent>, ...types: T[]): AsyncGenerator<EventOf<T>> {
  const wanted: ReadonlySet<EventType> = new Set(types)
  for await (const event of events) {
    if (wanted.has(event.type)) yield event as EventOf<T>
  }
}
