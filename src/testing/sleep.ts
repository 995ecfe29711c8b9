export { sleep } from '../core/run/abortable-sleep.js'

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
