/** A counting semaphore: at most `size` holders at once, waiters served first come first served. */
export function slots(size: number): { acquire(): Promise<void>; release(): void } {
  let free = size
  const waiting: (() => void)[] = []
  return {
    async acquire() {
      if (free > 0) {
        free--
        return
      }
      await new Promise<void>((resolve) => waiting.push(resolve))
    },
    release() {
      const next = waiting.shift()
      if (next) next()
      else free++
    },
  }
}

/** An async queue read once: `put` adds events, the reader gets them in order, and it ends after `close`. */
export function channel<E>(): AsyncIterable<E> & { put(items: readonly E[]): void; close(): void } {
  const items: E[] = []
  let closed = false
  let wake: (() => void) | undefined
  const poke = () => {
    wake?.()
    wake = undefined
  }
  return {
    put(more) {
      if (!more.length) return
      items.push(...more)
      poke()
    },
    close() {
      closed = true
      poke()
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (items.length) yield items.shift()!
        if (closed) return
        await new Promise<void>((resolve) => (wake = resolve))
      }
    },
  }
}
