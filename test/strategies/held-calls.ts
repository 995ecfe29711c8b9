/**
 * Calls that wait until the test releases them, so a concurrency test sets the order of
 * events itself instead of hoping a delay overlaps them.
 */
export function heldCalls() {
  const releases: (() => void)[] = []
  const waiters: { count: number; resolve: () => void }[] = []
  return {
    /** Waits here until `release(i)` for this call's index (its order of arrival). */
    hold(): Promise<void> {
      const held = new Promise<void>((resolve) => releases.push(resolve))
      for (const waiter of waiters.filter((w) => w.count <= releases.length)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
      return held
    },
    /** Settles once `count` calls have arrived. */
    arrived(count: number): Promise<void> {
      if (releases.length >= count) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ count, resolve }))
    },
    release(index: number): void {
      const release = releases[index]
      if (!release) throw new Error(`call ${index} has not arrived`)
      release()
    },
    get count() {
      return releases.length
    },
  }
}
