/** Per-configuration figures of an eval's rows: accuracy with its interval, F1, cost, latency, per tag. */
import type { EvalRowResult } from './row-result.js'
import { percentile, wilsonInterval } from './stats.js'

/** One configuration's figures. Rates are in [0, 1]; dollars are the runs' (graders' apart). */
export interface ConfigSummary {
  config: string
  rows: number
  correct: number
  accuracy: number
  /** The 95% Wilson interval of the accuracy. */
  interval: [number, number]
  /** Mean token F1. */
  f1: number
  exact: number
  notAttempted: number
  /** Dollars of the rows whose cost is known. */
  dollars: number
  /** Rows with a model call of unknown price: `dollars` is then a lower bound. */
  unknownCost: number
  /** Dollars per correct answer; `null` with none correct. */
  dollarsPerCorrect: number | null
  graderDollars: number
  p50Ms: number
  p95Ms: number
  /** Mean evidence recall over the rows that carry evidence. */
  evidenceRecall?: number
  /** Mean support rate over the rows that report one. */
  supportRate?: number
  byTag: Record<string, { rows: number; correct: number }>
}

const mean = (values: readonly number[]) => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0)

/** The figures of each configuration, by configuration name (the same whatever order the rows finished in). */
export function summarize(rows: readonly EvalRowResult[]): ConfigSummary[] {
  const byConfig = new Map<string, EvalRowResult[]>()
  for (const row of rows) {
    const list = byConfig.get(row.config) ?? []
    list.push(row)
    byConfig.set(row.config, list)
  }
  return [...byConfig]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([config, unordered]) => {
      // In id order: rows are appended as they finish, and sums of dollars must not depend on that order.
      const list = [...unordered].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      const correct = list.filter((row) => row.correct).length
      const dollars = list.reduce((sum, row) => sum + (row.cost ?? 0), 0)
      const latencies = list.map((row) => row.wallMs)
      const recalls = list.flatMap((row) => (row.evidenceRecall !== undefined ? [row.evidenceRecall] : []))
      const support = list.flatMap((row) => (row.supportRate !== undefined ? [row.supportRate] : []))
      const byTag: Record<string, { rows: number; correct: number }> = {}
      for (const row of list) {
        for (const tag of row.tags ?? []) {
          const entry = Object.hasOwn(byTag, tag) ? (byTag[tag] as { rows: number; correct: number }) : { rows: 0, correct: 0 }
          entry.rows++
          if (row.correct) entry.correct++
          Object.defineProperty(byTag, tag, { value: entry, enumerable: true, writable: true, configurable: true })
        }
      }
      return {
        config,
        rows: list.length,
        correct,
        accuracy: list.length ? correct / list.length : 0,
        interval: wilsonInterval(correct, list.length),
        f1: mean(list.map((row) => row.grades.f1)),
        exact: mean(list.map((row) => (row.grades.exact ? 1 : 0))),
        notAttempted: mean(list.map((row) => (row.notAttempted ? 1 : 0))),
        dollars,
        unknownCost: list.filter((row) => row.cost === null).length,
        dollarsPerCorrect: correct > 0 ? dollars / correct : null,
        graderDollars: list.reduce((sum, row) => sum + (row.graderCost ?? 0), 0),
        p50Ms: percentile(latencies, 0.5) ?? 0,
        p95Ms: percentile(latencies, 0.95) ?? 0,
        ...(recalls.length ? { evidenceRecall: mean(recalls) } : {}),
        ...(support.length ? { supportRate: mean(support) } : {}),
        byTag,
      }
    })
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`
const money = (dollars: number) => (dollars >= 0.01 || dollars === 0 ? `$${dollars.toFixed(2)}` : `$${dollars.toPrecision(2)}`)
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`

/** The terminal summary: a line per configuration. */
export function summaryText(summaries: readonly ConfigSummary[]): string {
  const header = ['config', 'n', 'accuracy (95% CI)', 'F1', 'not att.', '$ total', '$/correct', 'p50', 'p95', 'evidence']
  const lines = summaries.map((s) => [
    s.config,
    String(s.rows),
    `${percent(s.accuracy)} (${percent(s.interval[0])}–${percent(s.interval[1])})`,
    s.f1.toFixed(3),
    percent(s.notAttempted),
    `${money(s.dollars)}${s.unknownCost ? '+' : ''}`,
    s.dollarsPerCorrect === null ? '–' : money(s.dollarsPerCorrect),
    seconds(s.p50Ms),
    seconds(s.p95Ms),
    s.evidenceRecall === undefined ? '–' : percent(s.evidenceRecall),
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)))
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()
  const notes = summaries.some((s) => s.unknownCost) ? '\n+ some model calls had no known price: the dollars are a lower bound' : ''
  return `${[format(header), ...lines.map(format)].join('\n')}${notes}\n`
}
