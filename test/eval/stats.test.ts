import fc from 'fast-check'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openResults, parseResults } from '../../src/eval/results-file.js'
import { compareResults, type EvalRowResult, summarize } from '../../src/eval/index.js'
import { mcnemarExact, percentile, wilsonInterval } from '../../src/eval/stats.js'

const row = (config: string, id: string, correct: boolean, extra: Partial<EvalRowResult> = {}): EvalRowResult => ({
  config,
  id,
  question: `question ${id}`,
  answers: ['x'],
  answer: correct ? 'x' : 'y',
  reason: 'answered',
  grades: { exact: correct, f1: correct ? 1 : 0, contains: correct },
  correct,
  notAttempted: false,
  cost: 0.01,
  wallMs: 1000,
  llmCalls: 3,
  inputTokens: 100,
  outputTokens: 10,
  searches: 1,
  fetches: 0,
  citations: 1,
  ...extra,
})

describe('statistics', () => {
  it('Wilson interval: known values, and always a sub-interval of [0, 1] around the rate', () => {
    const [low, high] = wilsonInterval(8, 10)
    expect(low).toBeCloseTo(0.4902, 3)
    expect(high).toBeCloseTo(0.9433, 3)
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const k = Math.floor(share * n)
        const [lo, hi] = wilsonInterval(k, n)
        expect(lo).toBeGreaterThanOrEqual(0)
        expect(hi).toBeLessThanOrEqual(1)
        expect(lo).toBeLessThanOrEqual(k / n + 1e-12)
        expect(hi).toBeGreaterThanOrEqual(k / n - 1e-12)
      }),
    )
  })

  it("McNemar's exact test: the binomial tail, symmetric, 1 with nothing discordant", () => {
    expect(mcnemarExact(0, 0)).toBe(1)
    expect(mcnemarExact(0, 6)).toBeCloseTo(2 / 64, 10)
    expect(mcnemarExact(1, 9)).toBeCloseTo((2 * 11) / 1024, 10)
    expect(mcnemarExact(5, 5)).toBe(1)
    fc.assert(
      fc.property(fc.nat(300), fc.nat(300), (a, b) => {
        const p = mcnemarExact(a, b)
        expect(p).toBeGreaterThan(0)
        expect(p).toBeLessThanOrEqual(1)
        expect(p).toBeCloseTo(mcnemarExact(b, a), 12)
      }),
    )
  })

  it('nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3)
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10)
    expect(percentile([], 0.5)).toBeUndefined()
  })
})

describe('summaries and comparisons', () => {
  it('summarizes a configuration: accuracy, interval, dollars per correct, tags', () => {
    const rows = [row('a', '1', true, { tags: ['t'] }), row('a', '2', false, { tags: ['t', 'u'], cost: null }), row('a', '3', true)]
    const [summary] = summarize(rows)
    expect(summary).toMatchObject({ config: 'a', rows: 3, correct: 2, unknownCost: 1, byTag: { t: { rows: 2, correct: 1 }, u: { rows: 1, correct: 0 } } })
    expect(summary?.dollarsPerCorrect).toBeCloseTo(0.01)
    expect(summary?.accuracy).toBeCloseTo(2 / 3)
  })

  it('calls B better only when the discordant questions say so', () => {
    const a = Array.from({ length: 30 }, (_, n) => row('x', `q${n}`, n < 10))
    const b = Array.from({ length: 30 }, (_, n) => row('x', `q${n}`, n < 22))
    const [far] = compareResults(a, b)
    expect(far).toMatchObject({ onlyA: 0, onlyB: 12, both: 10, neither: 8, verdict: 'b-better' })
    expect(far?.differences).toHaveLength(12)
    const close = compareResults(
      a,
      Array.from({ length: 30 }, (_, n) => row('y', `q${n}`, n < 12)),
    )
    expect(close[0]).toMatchObject({ a: 'x', b: 'y', onlyB: 2, verdict: 'no-significant-difference' })
  })
})

describe('results.jsonl cut anywhere', () => {
  it('a file cut at any byte keeps its whole lines, and the next append makes a valid file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'laconic-torn-'))
    const text = `${JSON.stringify(row('a', '1', true))}\n${JSON.stringify(row('a', 'é2', false, { answer: 'ünïcode' }))}\n`
    const bytes = Buffer.from(text)
    for (let cut = 0; cut <= bytes.length; cut += 7) {
      const folder = join(dir, String(cut))
      const whole = parseResults(bytes.subarray(0, cut).toString('utf8')).rows.length
      await import('node:fs/promises').then((fs) => fs.mkdir(folder, { recursive: true }))
      await writeFile(join(folder, 'results.jsonl'), bytes.subarray(0, cut))
      const results = await openResults(folder)
      expect(results.rows).toHaveLength(whole)
      await results.append(row('a', '3', true))
      await results.close()
      const after = (await readFile(join(folder, 'results.jsonl'), 'utf8')).split('\n')
      expect(after.at(-1)).toBe('')
      expect(after.slice(0, -1).map((line) => JSON.parse(line).id)).toEqual([...['1', 'é2'].slice(0, whole), '3'])
    }
  })
})

describe('summaries do not depend on the order rows finished in', () => {
  it('gives the same figures for any order of the same rows', () => {
    const rows = Array.from({ length: 12 }, (_, n) =>
      row('a', `q${n}`, n % 3 !== 0, { cost: 0.1 + n * 0.0000137, grades: { exact: false, f1: n / 7, contains: n % 3 !== 0 } }),
    )
    const reference = summarize(rows)
    fc.assert(
      fc.property(fc.shuffledSubarray(rows, { minLength: rows.length, maxLength: rows.length }), (shuffled) => {
        expect(summarize(shuffled)).toEqual(reference)
      }),
    )
  })
})
