/** What `raceTimer` resolves to when the timer fired first. */
export const TIMED_OUT: unique symbol = Symbol('timed out')

/**
 * Wait for `promise`, but at most `ms`. The promise is not cancelled: callers keep it and
 * await it again (that is how a heartbeat or a token batch fires while a `next()` is pending).
 */
export async function raceTimer<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
