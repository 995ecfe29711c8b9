/**
 * Interleaves several async event sources into one stream, in arrival order, while each
 * source keeps its own order. Sources may be added while the merge is being read (a node
 * that discovers neighbours adds their exploration), so concurrency stays as wide as the work.
 */
export interface Merge<E> extends AsyncIterable<E> {
  add(source: AsyncIterable<E>): void
}

type Settled<E> = { key: number; result: IteratorResult<E, unknown> } | { key: number; error: unknown }

/** Creates an empty `Merge`: `add()` sources, then iterate it for their events in arrival order. */
export function createMerge<E>(): Merge<E> {
  const running = new Map<number, AsyncIterator<E, unknown>>()
  // Steps that settled, in arrival order. A queue and one wake-up, not a race over every
  // pending source per event: racing would pile a reaction per event onto a slow source.
  const settled: Settled<E>[] = []
  let wake: (() => void) | undefined
  let nextKey = 0

  const arrive = (step: Settled<E>): void => {
    settled.push(step)
    wake?.()
    wake = undefined
  }
  const pull = (key: number, iterator: AsyncIterator<E, unknown>): void => {
    iterator.next().then(
      (result) => arrive({ key, result }),
      (error: unknown) => arrive({ key, error }),
    )
  }

  return {
    add(source) {
      const key = nextKey++
      const iterator = source[Symbol.asyncIterator]()
      running.set(key, iterator)
      pull(key, iterator)
    },
    async *[Symbol.asyncIterator]() {
      try {
        while (running.size > 0) {
          if (settled.length === 0) await new Promise<void>((resolve) => (wake = resolve))
          const step = settled.shift()!
          const iterator = running.get(step.key)
          if (!iterator) continue
          if ('error' in step) {
            running.delete(step.key)
            throw step.error
          }
          if (step.result.done) {
            running.delete(step.key)
            continue
          }
          pull(step.key, iterator)
          yield step.result.value
        }
      } finally {
        // The reader left early or a source failed: stop every source still running.
        for (const iterator of running.values()) void iterator.return?.().catch(() => undefined)
        running.clear()
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
