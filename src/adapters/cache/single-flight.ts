/**
 * Identical concurrent requests share one upstream call. The shared call has its own
 * signal that aborts only when every caller waiting on it has aborted, so one caller
 * giving up never fails the others.
 */
import { onAbort } from '../../core/util/abort-listener.js'
import { abortError } from '../../core/contracts/laconic-error.js'

interface Flight {
  promise: Promise<unknown>
  controller: AbortController
  waiters: number
}

export interface SingleFlight {
  /** Join the call running under `key`, or start it with `start(signal)`. `joined` says which. */
  run<T>(key: string, signal: AbortSignal | undefined, start: (signal: AbortSignal) => Promise<T>): { joined: boolean; result: Promise<T> }
}

export function createSingleFlight(): SingleFlight {
  const flights = new Map<string, Flight>()

  function wait<T>(flight: Flight, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) return flight.promise as Promise<T>
    if (signal.aborted) {
      leave(flight)
      return Promise.reject(abortError(signal))
    }
    return new Promise<T>((resolve, reject) => {
      const stopWaiting = onAbort(signal, () => {
        leave(flight)
        reject(abortError(signal))
      })
      flight.promise.then(
        (value) => {
          stopWaiting()
          resolve(value as T)
        },
        (error: unknown) => {
          stopWaiting()
          reject(error)
        },
      )
    })
  }

  function leave(flight: Flight): void {
    flight.waiters -= 1
    if (flight.waiters === 0) flight.controller.abort(new DOMException('every caller aborted', 'AbortError'))
  }

  return {
    run<T>(key: string, signal: AbortSignal | undefined, start: (signal: AbortSignal) => Promise<T>) {
      const running = flights.get(key)
      // A flight every caller abandoned is already aborting: start afresh instead of joining it.
      if (running && !running.controller.signal.aborted) {
        running.waiters += 1
        return { joined: true, result: wait<T>(running, signal) }
      }
      const flight: Flight = { controller: new AbortController(), waiters: 1, promise: Promise.resolve() }
      flights.set(key, flight)
      flight.promise = (async () => {
        try {
          return await start(flight.controller.signal)
        } finally {
          if (flights.get(key) === flight) flights.delete(key)
        }
      })()
      // The shared promise may settle with nobody left to observe it.
      flight.promise.catch(() => {})
      return { joined: false, result: wait<T>(flight, signal) }
    },
  }
}
