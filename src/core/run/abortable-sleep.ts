import { onAbort } from '../util/abort-listener.js'
import { abortError } from '../contracts/laconic-error.js'

/** Waits `ms`, or rejects with the `aborted` error as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal))
    // No wait asked: do not pay a timer tick (callers sleep per token with a delay of 0).
    if (ms <= 0) return resolve()
    const timer = setTimeout(() => {
      stopWaiting()
      resolve()
    }, ms)
    const stopWaiting = onAbort(signal, () => {
      clearTimeout(timer)
      reject(abortError(signal))
    })
  })
}
