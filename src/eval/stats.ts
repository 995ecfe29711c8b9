/** The statistics an eval report needs: Wilson intervals, percentiles, McNemar's exact test. */

const Z95 = 1.959963984540054

/** The 95% Wilson score interval of `successes` out of `trials`; [0, 1] with no trials. */
export function wilsonInterval(successes: number, trials: number): [number, number] {
  if (trials <= 0) return [0, 1]
  const p = successes / trials
  const z2 = Z95 * Z95
  const denominator = 1 + z2 / trials
  const center = (p + z2 / (2 * trials)) / denominator
  const half = (Z95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator
  return [Math.max(0, center - half), Math.min(1, center + half)]
}

/** The nearest-rank percentile (`q` in [0, 1]) of `values`; undefined when there are none. */
export function percentile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)))
  return sorted[rank - 1]
}

function logChoose(n: number, k: number): number {
  let sum = 0
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i)
  return sum
}

/**
 * McNemar's test on the discordant pairs (`onlyA`: A right and B wrong; `onlyB`: the reverse),
 * exact: the two-sided binomial p-value of the smaller count under p = 1/2. 1 with no discordant pair.
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB
  if (n === 0) return 1
  const k = Math.min(onlyA, onlyB)
  const terms: number[] = []
  for (let i = 0; i <= k; i++) terms.push(logChoose(n, i) - n * Math.LN2)
  const most = Math.max(...terms)
  const tail = Math.exp(most) * terms.reduce((sum, term) => sum + Math.exp(term - most), 0)
  return Math.min(1, 2 * tail)
}
