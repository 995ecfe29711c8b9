/**
 * The parsers of model output on 1 MB of adversarial input each (bench/parser-cases.ts): the
 * slowest shape per parser, median of 3. Target: well under 100 ms per parser.
 */
import { median, round } from './stats.js'
import { adversarialInputs, modelOutputParsers } from './parser-cases.js'

export async function run() {
  const inputs = Object.entries(adversarialInputs(1_000_000))
  const rows: Record<string, unknown>[] = []
  for (const [parser, parse] of Object.entries(modelOutputParsers)) {
    let worst = { shape: '', ms: 0 }
    for (const [shape, input] of inputs) {
      const samples = [0, 1, 2].map(() => {
        const started = performance.now()
        parse(input)
        return performance.now() - started
      })
      const ms = median(samples)
      if (ms > worst.ms) worst = { shape, ms }
    }
    rows.push({ parser, 'slowest shape': worst.shape, 'ms (median of 3)': round(worst.ms, 1), target: '< 100 ms', met: worst.ms < 100 })
  }
  return { name: 'parsers', rows }
}
