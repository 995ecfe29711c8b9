/**
 * The HTML report of an eval: one self-contained page (no script, no external resource, a CSP
 * that allows neither) with plain SVG charts: accuracy against cost per configuration, the
 * latency of every row, accuracy per tag; then the summary table and every row. All text from
 * the dataset, the answers and the configuration names is escaped.
 */
import type { EvalRowResult } from './row-result.js'
import { type ConfigSummary, summarize } from './summary.js'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string)

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22']
const color = (index: number) => COLORS[index % COLORS.length] as string
const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '0')

/** Ticks at round values covering [0, max]. */
function ticks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0]
  const raw = max / count
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude
  const out: number[] = []
  for (let value = 0; value <= max + step / 2; value += step) out.push(Number(value.toPrecision(12)))
  return out
}

function costLabel(dollars: number): string {
  if (dollars === 0) return '$0'
  return dollars >= 0.01 ? `$${dollars.toFixed(2)}` : `$${dollars.toPrecision(2)}`
}

/** Accuracy (with its 95% interval) against dollars per question, one point per configuration. */
function accuracyCostChart(summaries: readonly ConfigSummary[]): string {
  const width = 640
  const height = 360
  const left = 60
  const right = 180
  const top = 20
  const bottom = 50
  const perQuestion = summaries.map((s) => (s.rows ? s.dollars / s.rows : 0))
  const xTicks = ticks(Math.max(...perQuestion, 0) * 1.1 || 1e-6)
  const xMax = xTicks.at(-1) || 1
  const x = (dollars: number) => left + (dollars / xMax) * (width - left - right)
  const y = (rate: number) => top + (1 - rate) * (height - top - bottom)
  const parts: string[] = []
  for (const tick of ticks(1, 5)) {
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${fixed(y(tick))}" y2="${fixed(y(tick))}" class="grid"/>`)
    parts.push(`<text x="${left - 6}" y="${fixed(y(tick) + 4)}" text-anchor="end">${percent(tick)}</text>`)
  }
  for (const tick of xTicks) parts.push(`<text x="${fixed(x(tick))}" y="${height - bottom + 18}" text-anchor="middle">${escapeHtml(costLabel(tick))}</text>`)
  parts.push(`<text x="${(left + width - right) / 2}" y="${height - 8}" text-anchor="middle">dollars per question</text>`)
  parts.push(`<text transform="translate(14 ${(top + height - bottom) / 2}) rotate(-90)" text-anchor="middle">accuracy (95% CI)</text>`)
  summaries.forEach((s, index) => {
    const cx = x(perQuestion[index] ?? 0)
    parts.push(
      `<g class="config" data-config="${escapeHtml(s.config)}"><title>${escapeHtml(`${s.config}: ${percent(s.accuracy)} at ${costLabel(perQuestion[index] ?? 0)} per question`)}</title>`,
    )
    parts.push(
      `<line x1="${fixed(cx)}" x2="${fixed(cx)}" y1="${fixed(y(s.interval[0]))}" y2="${fixed(y(s.interval[1]))}" stroke="${color(index)}" stroke-width="2"/>`,
    )
    parts.push(`<circle cx="${fixed(cx)}" cy="${fixed(y(s.accuracy))}" r="6" fill="${color(index)}"/>`)
    parts.push(`<rect x="${width - right + 12}" y="${top + index * 18}" width="10" height="10" fill="${color(index)}"/>`)
    parts.push(`<text x="${width - right + 28}" y="${top + index * 18 + 9}">${escapeHtml(s.config)}</text></g>`)
  })
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="accuracy against cost">${parts.join('')}</svg>`
}

/** Every row's wall time, one line of dots per configuration, with p50 and p95 marked. */
function latencyChart(summaries: readonly ConfigSummary[], rows: readonly EvalRowResult[]): string {
  const width = 640
  const left = 160
  const right = 20
  const band = 28
  const top = 10
  const height = top + summaries.length * band + 40
  const most = Math.max(...rows.map((row) => row.wallMs), 1)
  const xTicks = ticks(most / 1000)
  const xMax = (xTicks.at(-1) || 1) * 1000
  const x = (ms: number) => left + (ms / xMax) * (width - left - right)
  const parts: string[] = []
  for (const tick of xTicks) {
    parts.push(`<line x1="${fixed(x(tick * 1000))}" x2="${fixed(x(tick * 1000))}" y1="${top}" y2="${height - 36}" class="grid"/>`)
    parts.push(`<text x="${fixed(x(tick * 1000))}" y="${height - 20}" text-anchor="middle">${tick}s</text>`)
  }
  summaries.forEach((s, index) => {
    const cy = top + index * band + band / 2
    parts.push(
      `<g class="config" data-config="${escapeHtml(s.config)}"><text x="${left - 8}" y="${fixed(cy + 4)}" text-anchor="end">${escapeHtml(s.config)}</text>`,
    )
    for (const row of rows)
      if (row.config === s.config) parts.push(`<circle cx="${fixed(x(row.wallMs))}" cy="${fixed(cy)}" r="3" fill="${color(index)}" fill-opacity="0.5"/>`)
    for (const [label, ms] of [
      ['p50', s.p50Ms],
      ['p95', s.p95Ms],
    ] as const) {
      parts.push(
        `<line x1="${fixed(x(ms))}" x2="${fixed(x(ms))}" y1="${fixed(cy - 9)}" y2="${fixed(cy + 9)}" stroke="#000" stroke-width="${label === 'p50' ? 2 : 1}"><title>${label} ${(ms / 1000).toFixed(2)}s</title></line>`,
      )
    }
    parts.push('</g>')
  })
  parts.push(`<text x="${(left + width - right) / 2}" y="${height - 4}" text-anchor="middle">wall time per question (bars: p50, p95)</text>`)
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="latency distribution">${parts.join('')}</svg>`
}

/** Accuracy per tag: a bar per configuration in each tag's group. */
function tagChart(summaries: readonly ConfigSummary[]): string {
  const tags = [...new Set(summaries.flatMap((s) => Object.keys(s.byTag)))].sort()
  if (tags.length === 0) return '<p>No row has tags.</p>'
  const width = 640
  const left = 160
  const right = 60
  const bar = 12
  const group = summaries.length * bar + 12
  const height = tags.length * group + 40
  const x = (rate: number) => left + rate * (width - left - right)
  const parts: string[] = []
  for (const tick of ticks(1, 4)) {
    parts.push(`<line x1="${fixed(x(tick))}" x2="${fixed(x(tick))}" y1="0" y2="${height - 30}" class="grid"/>`)
    parts.push(`<text x="${fixed(x(tick))}" y="${height - 14}" text-anchor="middle">${percent(tick)}</text>`)
  }
  tags.forEach((tag, tagIndex) => {
    const y0 = tagIndex * group + 6
    parts.push(`<text x="${left - 8}" y="${fixed(y0 + (summaries.length * bar) / 2 + 4)}" text-anchor="end">${escapeHtml(tag)}</text>`)
    summaries.forEach((s, index) => {
      const entry = Object.hasOwn(s.byTag, tag) ? s.byTag[tag] : undefined
      if (!entry) return
      const rate = entry.rows ? entry.correct / entry.rows : 0
      const label = `${s.config} · ${tag}: ${entry.correct}/${entry.rows}`
      parts.push(
        `<rect x="${left}" y="${y0 + index * bar}" width="${fixed(x(rate) - left)}" height="${bar - 2}" fill="${color(index)}" data-config="${escapeHtml(s.config)}"><title>${escapeHtml(label)}</title></rect>`,
      )
      parts.push(`<text x="${fixed(x(rate) + 4)}" y="${y0 + index * bar + 9}" class="small">${entry.correct}/${entry.rows}</text>`)
    })
  })
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="accuracy per tag">${parts.join('')}</svg>`
}

function summaryTable(summaries: readonly ConfigSummary[]): string {
  const head = [
    'configuration',
    'questions',
    'accuracy',
    '95% CI',
    'F1',
    'exact',
    'not attempted',
    'dollars',
    '$ per correct',
    'p50',
    'p95',
    'evidence recall',
    'support rate',
  ]
  const body = summaries.map((s) =>
    [
      s.config,
      String(s.rows),
      percent(s.accuracy),
      `${percent(s.interval[0])} – ${percent(s.interval[1])}`,
      s.f1.toFixed(3),
      percent(s.exact),
      percent(s.notAttempted),
      `${costLabel(s.dollars)}${s.unknownCost ? ' (lower bound)' : ''}`,
      s.dollarsPerCorrect === null ? '–' : costLabel(s.dollarsPerCorrect),
      `${(s.p50Ms / 1000).toFixed(2)}s`,
      `${(s.p95Ms / 1000).toFixed(2)}s`,
      s.evidenceRecall === undefined ? '–' : percent(s.evidenceRecall),
      s.supportRate === undefined ? '–' : percent(s.supportRate),
    ]
      .map((cell) => `<td>${escapeHtml(cell)}</td>`)
      .join(''),
  )
  return `<table class="summary"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${body.map((row) => `<tr>${row}</tr>`).join('')}</tbody></table>`
}

function rowsTable(rows: readonly EvalRowResult[]): string {
  const body = rows.map((row) =>
    [
      row.config,
      row.id,
      row.question,
      row.answers.join(' | '),
      row.answer.length > 600 ? `${row.answer.slice(0, 599)}…` : row.answer,
      row.correct ? 'correct' : row.notAttempted ? 'not attempted' : 'incorrect',
      row.grades.f1.toFixed(2),
      row.cost === null ? 'unknown' : costLabel(row.cost),
      `${(row.wallMs / 1000).toFixed(2)}s`,
    ]
      .map((cell) => `<td>${escapeHtml(cell)}</td>`)
      .join(''),
  )
  const head = ['configuration', 'id', 'question', 'accepted answers', 'answer', 'grade', 'F1', 'cost', 'time']
  return `<table class="rows"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${body.map((row) => `<tr>${row}</tr>`).join('')}</tbody></table>`
}

/** The report page of an output folder's rows: self-contained (no script, no external resource), every text escaped. */
export function htmlReport(rows: readonly EvalRowResult[], options: { title?: string } = {}): string {
  const summaries = summarize(rows)
  const title = options.title ?? 'laconic eval'
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
svg text.small { font-size: 9px; }
svg .grid { stroke: #ddd; stroke-width: 1; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
table.rows td:nth-child(3), table.rows td:nth-child(5) { max-width: 28rem; overflow-wrap: anywhere; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${rows.length} rows, ${summaries.length} configuration${summaries.length === 1 ? '' : 's'}.</p>
<h2>Summary</h2>
${summaryTable(summaries)}
<h2>Accuracy against cost</h2>
${accuracyCostChart(summaries)}
<h2>Latency</h2>
${latencyChart(summaries, rows)}
<h2>Accuracy per tag</h2>
${tagChart(summaries)}
<h2>Every row</h2>
${rowsTable(rows)}
</body>
</html>
`
}
