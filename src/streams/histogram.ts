/** Upper bounds in milliseconds, Prometheus-style; the last bucket is everything above. */
export const LATENCY_BUCKETS_MS: readonly number[] = [50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000]

/** Latency observations in cumulative buckets (Prometheus-style), with their count, sum, minimum and maximum. */
export interface Histogram {
  /** Bucket upper bounds (inclusive), ascending. */
  bounds: number[]
  /** `counts[i]` observations fell at or below `bounds[i]` (cumulative); `count` is the total. */
  counts: number[]
  count: number
  sum: number
  min: number | undefined
  max: number | undefined
}

export function emptyHistogram(bounds: readonly number[] = LATENCY_BUCKETS_MS): Histogram {
  return { bounds: [...bounds], counts: bounds.map(() => 0), count: 0, sum: 0, min: undefined, max: undefined }
}

/** Record one observation; non-finite or negative values are ignored (they are not latencies). */
export function observe(histogram: Histogram, value: number): void {
  if (!Number.isFinite(value) || value < 0) return
  histogram.bounds.forEach((bound, i) => {
    if (value <= bound) histogram.counts[i] = (histogram.counts[i] ?? 0) + 1
  })
  histogram.count += 1
  histogram.sum += value
  histogram.min = histogram.min === undefined ? value : Math.min(histogram.min, value)
  histogram.max = histogram.max === undefined ? value : Math.max(histogram.max, value)
}
