export interface QuietTimer {
  /** Something was just sent: the quiet period starts again. Only records the time. */
  touch(): void
  stop(): void
}

/**
 * Calls `onQuiet` after `ms` without a `touch()`, then again every `ms` of continued quiet.
 * One timer per stream: `touch()` does not reset it (a busy stream would create and clear a
 * timer per event, thousands per second under a broadcast); when the timer fires early it
 * re-arms for the time still missing.
 */
export function quietTimer(ms: number, onQuiet: () => void): QuietTimer {
  let lastActivity = performance.now()
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(check, ms)

  function check(): void {
    const quietFor = performance.now() - lastActivity
    if (quietFor >= ms) {
      lastActivity = performance.now()
      onQuiet()
    }
    if (timer !== undefined) timer = setTimeout(check, Math.max(1, ms - (performance.now() - lastActivity)))
  }

  return {
    touch() {
      lastActivity = performance.now()
    },
    stop() {
      clearTimeout(timer)
      timer = undefined
    },
  }
}
