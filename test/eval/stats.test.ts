import fc from 'fast-check'
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compareResults, type EvalRowResult, readResults, summarize } from '../../src/eval/index.js'
import { answering, evalRows } from './eval-rows.js'

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

/** The 95% Wilson interval `summarize` gives `correct` right answers of `rows`. */
const wilsonInterval = (correct: number, rows: number) =>
  summarize(Array.from({ length: rows }, (_, n) => row('a', `q${n}`, n < correct)))[0]?.interval ?? [Number.NaN, Number.NaN]

/** The p-value `compareResults` gives two runs where `onlyA` questions only A got right and `onlyB` only B. */
const mcnemarExact = (onlyA: number, onlyB: number) => {
  const ids = Array.from({ length: onlyA + onlyB + 1 }, (_, n) => `q${n}`)
  const a = ids.map((id, n) => row('a', id, n < onlyA))
  const b = ids.map((id, n) => row('b', id, n >= onlyA && n < onlyA + onlyB))
  const [comparison] = compareResults(a, b)
  expect(comparison).toMatchObject({ onlyA, onlyB })
  return comparison?.pValue ?? Number.NaN
}

/** The median and 95th percentile of the wall times `summarize` gives rows that took `ms`. */
const latency = (ms: readonly number[]) => {
  const [summary] = summarize(ms.map((wallMs, n) => row('a', `q${n}`, true, { wallMs })))
  return { p50: summary?.p50Ms, p95: summary?.p95Ms }
}

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
    expect(latency([5, 1, 3, 2, 4]).p50).toBe(3)
    expect(latency([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).p95).toBe(10)
    // No rows, no configuration to give a percentile of.
    expect(summarize([])).toEqual([])
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
    const dataset = ['1', 'é2', '3'].map((id) => ({ id, question: `question ${id}`, answers: ['x'] }))
    for (let cut = 0; cut <= bytes.length; cut += 7) {
      const folder = join(dir, String(cut))
      await mkdir(folder, { recursive: true })
      await writeFile(join(folder, 'results.jsonl'), bytes.subarray(0, cut))
      // Whole lines only: as many rows as the cut kept newlines.
      const whole = (await readResults(folder)).length
      expect(whole).toBe(bytes.subarray(0, cut).toString('latin1').split('\n').length - 1)
      // An eval over the folder runs only the rows not there yet, each appended as a whole line.
      const { rows } = await evalRows(
        dataset.map((entry) => ({ ...entry })),
        answering('x'),
        { out: folder, config: 'a' },
      )
      expect(rows.map((ran) => ran.id)).toEqual(['1', 'é2', '3'].slice(whole))
      const after = (await readFile(join(folder, 'results.jsonl'), 'utf8')).split('\n')
      expect(after.at(-1)).toBe('')
      expect(after.slice(0, -1).map((line) => JSON.parse(line).id)).toEqual(['1', 'é2', '3'])
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
