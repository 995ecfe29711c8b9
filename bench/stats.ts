/** Small statistics shared by the benchmarks: pure functions, checked in test/bench/smoke.test.ts. */

/** What every benchmark module exports. */
export interface BenchResult {
  name: string
  rows: Record<string, unknown>[]
}

/**
 * The p-th percentile (0–100) by the nearest-rank method: always one of the samples, so a p99
 * of 100 samples is the 99th smallest, not an interpolation. NaN for no samples.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length)
  return sorted[Math.max(0, rank - 1)] as number
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50)
}

/** Rounds for a table: `digits` decimals. */
export function round(value: number, digits = 2): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

/** Heap in use after two forced collections (needs `node --expose-gc`), in bytes; NaN without it. */
export function heapAfterGC(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) return Number.NaN
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

export function megabytes(bytes: number): number {
  return round(bytes / 1024 / 1024, 1)
}

/** The largest sample, without spreading (a spread of 100k+ numbers overflows the stack). */
export function max(samples: readonly number[]): number {
  let top = Number.NEGATIVE_INFINITY
  for (const sample of samples) if (sample > top) top = sample
  return samples.length === 0 ? Number.NaN : top
}

export function mean(samples: readonly number[]): number {
  let sum = 0
  for (const sample of samples) sum += sample
  return samples.length === 0 ? Number.NaN : sum / samples.length
}

/**
 * One line per row and reading that has a target (`met`, or another boolean column named
 * `met…` such as `metFromIteration2`): met or not, the row's label (its text columns) and the
 * target, so a whole run's verdict fits on one screen. A row that states its target in other
 * columns (`targetMs`, `pass`) is a miss: the summary cannot judge it, and it would not show.
 */
export function targetLines(name: string, rows: readonly Record<string, unknown>[]): string[] {
  return rows.flatMap((row) => {
    const label = Object.entries(row)
      .filter(([key, value]) => typeof value === 'string' && key !== 'target')
      .map(([, value]) => value)
      .join(', ')
    const misnamed = Object.keys(row).filter((key) => /^target./.test(key) || /^(pass|passed|ok)$/i.test(key))
    if (misnamed.length > 0) {
      return [`MISS  ${name}${label ? ` (${label})` : ''}: the row gives its target as ${misnamed.join(' and ')}; name them target and met`]
    }
    if (row.target === undefined || row.target === '') return []
    return Object.entries(row)
      .filter(([key, value]) => key.startsWith('met') && typeof value === 'boolean')
      .map(([key, met]) => `${met ? 'met ' : 'MISS'}  ${name}${label ? ` (${label})` : ''}${key === 'met' ? '' : ` [${key}]`}: target ${String(row.target)}`)
  })
}
