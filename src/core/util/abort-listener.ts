/**
 * Waiting on an AbortSignal with one real listener per signal, however many runs, calls and
 * timers of the package wait on it: a signal shared by a dozen concurrent runs (a server's
 * shutdown signal, a caller's) or by a run's dozen concurrent requests would otherwise collect
 * a listener each, and Node warns past ten (`MaxListenersExceededWarning`).
 */
const waiters = new WeakMap<AbortSignal, Set<() => void>>()

/**
 * Call `callback` when `signal` aborts (not if it already has: check `signal.aborted` first).
 * Returns the function that stops waiting.
 */
export function onAbort(signal: AbortSignal | undefined, callback: () => void): () => void {
  if (!signal || signal.aborted) return () => {}
  let callbacks = waiters.get(signal)
  if (!callbacks) {
    const registered = new Set<() => void>()
    callbacks = registered
    waiters.set(signal, registered)
    signal.addEventListener(
      'abort',
      () => {
        waiters.delete(signal)
        for (const waiting of [...registered]) waiting()
      },
      { once: true },
    )
  }
  // A wrapper per call, so the same function registered twice is two waits.
  const entry = () => callback()
  callbacks.add(entry)
  const registered = callbacks
  return () => {
    registered.delete(entry)
  }
}
