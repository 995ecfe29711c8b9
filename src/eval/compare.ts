/**
 * `laconic eval compare A B`: two result folders, question by question. A configuration is
 * called better only when McNemar's exact test on the questions the two disagree on says so
 * (p < 0.05); otherwise the difference is reported as what it is, noise until shown otherwise.
 */
import type { EvalRowResult } from './row-result.js'
import { mcnemarExact } from './stats.js'

/** One configuration of A against one of B, on the questions both answered. */
export interface Comparison {
  a: string
  b: string
  /** Questions both ran. */
  questions: number
  /** Right in A only, in B only, in both, in neither. */
  onlyA: number
  onlyB: number
  both: number
  neither: number
  accuracyA: number
  accuracyB: number
  /** McNemar's exact two-sided p-value on the discordant questions. */
  pValue: number
  verdict: 'a-better' | 'b-better' | 'no-significant-difference'
  /** The questions where one is right and the other is not. */
  differences: { id: string; question: string; a: { correct: boolean; answer: string }; b: { correct: boolean; answer: string } }[]
}

function byConfig(rows: readonly EvalRowResult[]): Map<string, Map<string, EvalRowResult>> {
  const out = new Map<string, Map<string, EvalRowResult>>()
  for (const row of rows) {
    const list = out.get(row.config) ?? new Map<string, EvalRowResult>()
    list.set(row.id, row)
    out.set(row.config, list)
  }
  return out
}

/**
 * Pairs the configurations of A and B by name; when each has a single configuration, those two
 * (whatever their names). Each pair is compared on the question ids both have.
 */
export function compareResults(a: readonly EvalRowResult[], b: readonly EvalRowResult[], alpha = 0.05): Comparison[] {
  const left = byConfig(a)
  const right = byConfig(b)
  const shared = [...left.keys()].filter((name) => right.has(name))
  const pairs: [string, string][] = shared.length
    ? shared.map((name) => [name, name])
    : left.size === 1 && right.size === 1
      ? [[[...left.keys()][0] as string, [...right.keys()][0] as string]]
      : []
  return pairs.map(([nameA, nameB]) => {
    const rowsA = left.get(nameA) as Map<string, EvalRowResult>
    const rowsB = right.get(nameB) as Map<string, EvalRowResult>
    const counts = { onlyA: 0, onlyB: 0, both: 0, neither: 0 }
    const differences: Comparison['differences'] = []
    for (const [id, rowA] of rowsA) {
      const rowB = rowsB.get(id)
      if (!rowB) continue
      if (rowA.correct && rowB.correct) counts.both++
      else if (!rowA.correct && !rowB.correct) counts.neither++
      else {
        if (rowA.correct) counts.onlyA++
        else counts.onlyB++
        differences.push({ id, question: rowA.question, a: { correct: rowA.correct, answer: rowA.answer }, b: { correct: rowB.correct, answer: rowB.answer } })
      }
    }
    const questions = counts.both + counts.neither + counts.onlyA + counts.onlyB
    const pValue = mcnemarExact(counts.onlyA, counts.onlyB)
    const verdict = pValue < alpha ? (counts.onlyA > counts.onlyB ? 'a-better' : 'b-better') : 'no-significant-difference'
    return {
      a: nameA,
      b: nameB,
      questions,
      ...counts,
      accuracyA: questions ? (counts.both + counts.onlyA) / questions : 0,
      accuracyB: questions ? (counts.both + counts.onlyB) / questions : 0,
      pValue,
      verdict,
      differences,
    }
  })
}

const oneLine = (text: string, max = 70) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** The comparison as the terminal shows it. */
export function comparisonText(comparisons: readonly Comparison[], labels: { a: string; b: string }): string {
  if (comparisons.length === 0) return `no configuration to compare: ${labels.a} and ${labels.b} share no configuration name (and do not hold one each)\n`
  const out: string[] = []
  for (const c of comparisons) {
    const name = c.a === c.b ? c.a : `${c.a} vs ${c.b}`
    out.push(`${name}: ${c.questions} questions in both`)
    out.push(`  accuracy  A ${(c.accuracyA * 100).toFixed(1)}%   B ${(c.accuracyB * 100).toFixed(1)}%`)
    out.push(`  right in A only: ${c.onlyA}   in B only: ${c.onlyB}   both: ${c.both}   neither: ${c.neither}`)
    const verdict =
      c.verdict === 'a-better' ? `A is better (${labels.a})` : c.verdict === 'b-better' ? `B is better (${labels.b})` : 'no significant difference'
    out.push(`  McNemar exact p = ${c.pValue < 0.001 ? c.pValue.toExponential(2) : c.pValue.toFixed(3)}: ${verdict}`)
    for (const d of c.differences) {
      out.push(`  ${d.a.correct ? 'A' : 'B'} right  ${d.id}: ${oneLine(d.question)}`)
      out.push(`      A: ${oneLine(d.a.answer || '(no answer)')}`)
      out.push(`      B: ${oneLine(d.b.answer || '(no answer)')}`)
    }
  }
  return `${out.join('\n')}\n`
}
