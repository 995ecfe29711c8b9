/** Callbacks waiting for the current turn of the event loop to end. */
const due: (() => void)[] = []

// setImmediate runs right after this turn's I/O; a runtime without it (a browser, Deno) gets a
// zero-delay timer, which waits a little longer but batches the same way.
const nextTurn: (run: () => void) => unknown = typeof setImmediate === 'function' ? (run) => setImmediate(run) : (run) => setTimeout(run, 0)

/**
 * Run `callback` once the current turn of the event loop is over, after everything this turn
 * makes ready. Every callback due shares one timer: a broadcast event that 1,000 responses
 * write costs one timer, not 1,000.
 */
export function atEndOfTurn(callback: () => void): void {
  if (due.push(callback) === 1) nextTurn(runDue)
}

function runDue(): void {
  // Taken first: a callback scheduled while these run waits for the next turn.
  for (const callback of due.splice(0)) {
    try {
      callback()
    } catch (error) {
      // One failing callback must not strand the others; its error still surfaces, uncaught.
      queueMicrotask(() => {
        throw error
      })
    }
  }
}
