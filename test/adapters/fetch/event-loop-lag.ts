/**
 * The longest the event loop stayed blocked while `work` ran: a 10 ms interval notes how late
 * each tick fires. Not a timing assertion on the work itself: a blocked loop shows as one tick
 * seconds late, a free one as ticks a few milliseconds late even on a busy machine.
 */
export async function maxEventLoopLag<T>(work: () => Promise<T>): Promise<{ lagMs: number; result: T }> {
  const intervalMs = 10
  let last = performance.now()
  let lagMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    lagMs = Math.max(lagMs, now - last - intervalMs)
    last = now
  }, intervalMs)
  try {
    const result = await work()
    // The tick that the last blocking stretch delayed, if any, is counted too.
    const now = performance.now()
    lagMs = Math.max(lagMs, now - last - intervalMs)
    return { lagMs, result }
  } finally {
    clearInterval(timer)
  }
}
