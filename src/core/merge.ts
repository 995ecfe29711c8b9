/**
 * Interleaves several async event sources into one stream, in arrival order, while each
 * source keeps its own order. Sources may be added while the merge is being read (a node
 * that discovers neighbours adds their exploration), so concurrency stays as wide as the work.
 */
export interface Merge<E> extends AsyncIterable<E> {
  add(source: AsyncIterable<E>): void
}

type Settled<E> = { key: number; result: IteratorResult<E, unknown> } | { key: number; error: unknown }

export function createMerge<E>(): Merge<E> {
  const active = new Map<number, { iterator: AsyncIterator<E, unknown>; next: Promise<Settled<E>> }>()
  let nextKey = 0

  const pull = (key: number, iterator: AsyncIterator<E, unknown>): void => {
    const next = iterator.next().then(
      (result): Settled<E> => ({ key, result }),
      (error: unknown): Settled<E> => ({ key, error }),
    )
    active.set(key, { iterator, next })
  }

  return {
    add(source) {
      pull(nextKey++, source[Symbol.asyncIterator]())
    },
    async *[Symbol.asyncIterator]() {
      try {
        while (active.size > 0) {
          const settled = await Promise.race([...active.values()].map((a) => a.next))
          const entry = active.get(settled.key)
          if (!entry) continue
          if ('error' in settled) {
            active.delete(settled.key)
            throw settled.error
          }
          if (settled.result.done) {
            active.delete(settled.key)
            continue
          }
          pull(settled.key, entry.iterator)
          yield settled.result.value
        }
      } finally {
        // The reader left early or a source failed: stop every source still running.
        for (const { iterator } of active.values()) void iterator.return?.().catch(() => undefined)
        active.clear()
      }
    },
  }
}

/** Merges a fixed set of sources. */
export function merge<E>(...sources: AsyncIterable<E>[]): AsyncIterable<E> {
  const m = createMerge<E>()
  for (const source of sources) m.add(source)
  return m
}
