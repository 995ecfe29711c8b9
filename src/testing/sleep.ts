/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    if (ms <= 0) return resolve()
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Counts calls in flight and remembers the peak, for concurrency tests. */
export class InFlight {
  current = 0
  peak = 0
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.current++
    this.peak = Math.max(this.peak, this.current)
    try {
      return await work()
    } finally {
      this.current--
    }
  }
}
