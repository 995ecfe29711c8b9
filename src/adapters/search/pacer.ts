/**
 * Polite pacing for scraped endpoints: requests through one pacer start at least
 * `intervalMs` apart, in the order they asked. Waiting is abortable.
 */
import { sleep as abortableSleep } from '../http/index.js'

/** Spaces out requests: each `wait()` resolves when its caller may start. */
export interface Pacer {
  /** Resolves when the caller may send its request; rejects with an `aborted` error if `signal` fires first. */
  wait(signal?: AbortSignal): Promise<void>
}

/** Options of `createPacer()`: the gap between two requests, and the clock and sleep (injectable for tests). */
export interface PacerOptions {
  /** Minimum gap between two request starts. @defaultValue 1000 */
  readonly intervalMs?: number
  /** Clock, injectable for tests. @defaultValue Date.now */
  readonly now?: () => number
  /** Abortable delay, injectable for tests. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

/** Creates a `Pacer` whose requests start at least `intervalMs` apart, in the order they asked. */
export function createPacer({ intervalMs = 1000, now = Date.now, sleep = abortableSleep }: PacerOptions = {}): Pacer {
  let nextSlot = Number.NEGATIVE_INFINITY
  return {
    async wait(signal) {
      const slot = Math.max(now(), nextSlot)
      nextSlot = slot + intervalMs
      const delay = slot - now()
      if (delay > 0 || signal?.aborted) await sleep(Math.max(0, delay), signal)
    },
  }
}

/** One pacer per process for DuckDuckGo, shared by every `duckduckgo()` instance. */
export const duckDuckGoPacer: Pacer = createPacer()
