/**
 * A run's outcome as markdown: deep's report sections, and the whole answer (or report) with its
 * numbered sources for `--output FILE.md`. Text from models and pages is kept printable.
 */
import type { Citation, Report } from '../../core/contracts/events.js'
import type { ResearchResult } from '../../core/contracts/result.js'
import { oneLine, printable } from './terminal-text.js'

const section = (heading: string, items: readonly string[]): string =>
  items.length === 0 ? '' : `\n## ${heading}\n\n${items.map((item) => `- ${oneLine(item, 2000)}`).join('\n')}\n`

/** The report's sections after its executive summary (which streams as the answer). */
export function reportSections(report: Report): string {
  return [
    section('Main findings', report.mainFindings),
    section('Conclusions', report.conclusions),
    section('Limitations', report.limitations),
    section('Recommendations', report.recommendations),
    report.sourcesSummary.trim() ? `\n## About the sources\n\n${printable(report.sourcesSummary.trim())}\n` : '',
  ].join('')
}

export function sourcesMarkdown(citations: readonly Citation[]): string {
  if (citations.length === 0) return ''
  const lines = citations.map((c) => `${c.index}. ${c.title ? `${oneLine(c.title, 200)} — ` : ''}<${printable(c.url).replace(/[<>\s]/g, encodeURIComponent)}>`)
  return `\n## Sources\n\n${lines.join('\n')}\n`
}

/** The file `--output` writes: the question, the answer or report, and the numbered sources. */
export function resultMarkdown(question: string, result: ResearchResult): string {
  const report = result.report
  const title = report?.title.trim() ? oneLine(report.title, 300) : oneLine(question, 300)
  const body = report ? `${printable(result.answer.trim())}\n${reportSections(report)}` : `${printable(result.answer.trim())}\n`
  const note = result.reason === 'max-iterations' ? '\n_Best effort: the research limit was reached before the question was fully covered._\n' : ''
  return `# ${title}\n\n${report ? `_Question: ${oneLine(question, 1000)}_\n\n` : ''}${body}${note}${sourcesMarkdown(result.citations)}`
}
