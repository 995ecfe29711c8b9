import type { Citation, Report } from '../core/contracts/events.js'

/** What an export reads of a run's result: its answer, its citations and its report (a `report` or `deep` run's). */
export interface ExportableResult {
  answer: string
  citations: readonly Citation[]
  report?: Report | undefined
}

/** A block of the document: a heading (none for a plain answer) and its Markdown text. */
export interface Block {
  heading?: string
  text: string
}

/** One shape for every format: a title, blocks in reading order, and the references. */
export interface ExportDocument {
  title: string
  blocks: Block[]
  references: Citation[]
}

const bullets = (items: readonly string[]) => items.map((item) => `- ${item}`).join('\n')

/**
 * The document of a result: a long report (`report.sections`) reads introduction, sections,
 * conclusion; deep's report its summary and lists; any other answer is one block. References are
 * the result's citations, by number.
 */
export function documentOf(result: ExportableResult): ExportDocument {
  const references = [...result.citations].sort((a, b) => a.index - b.index)
  const report = result.report
  const kept = (blocks: Block[]) => blocks.filter((b) => b.text.trim())
  if (report?.sections) {
    return {
      title: report.title,
      blocks: kept([
        { heading: 'Introduction', text: report.executiveSummary },
        ...report.sections.map((s) => ({ heading: s.title, text: s.text })),
        { heading: 'Conclusion', text: report.conclusions.join('\n\n') },
      ]),
      references,
    }
  }
  if (report) {
    return {
      title: report.title,
      blocks: kept([
        { heading: 'Summary', text: report.executiveSummary },
        { heading: 'Main findings', text: bullets(report.mainFindings) },
        { heading: 'Conclusions', text: bullets(report.conclusions) },
        { heading: 'Limitations', text: bullets(report.limitations) },
        { heading: 'Recommendations', text: bullets(report.recommendations) },
        { heading: 'Sources', text: report.sourcesSummary },
      ]),
      references,
    }
  }
  return { title: 'Answer', blocks: kept([{ text: result.answer }]), references }
}

/** A paragraph of text: its lines, or a list when every line is a `-`/`*` bullet. */
export type Paragraph = { kind: 'text'; text: string } | { kind: 'list'; items: string[] }

/** The paragraphs of a block's Markdown (blank lines apart); headings inside it are plain text. */
export function paragraphsOf(text: string): Paragraph[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p): Paragraph => {
      const lines = p.split('\n').map((l) => l.trim())
      if (lines.every((l) => /^[-*]\s+/.test(l))) return { kind: 'list', items: lines.map((l) => l.replace(/^[-*]\s+/, '')) }
      return { kind: 'text', text: lines.map((l) => l.replace(/^#{1,6}\s+/, '')).join(' ') }
    })
}

/** A reference as one line: `[n] Title. URL`. */
export const referenceLine = (c: Citation) => `[${c.index}] ${c.title ? `${c.title}. ` : ''}${c.url}`

/** True for a URL a document may link to (http or https); anything else is shown as text only. */
export function linkable(url: string): boolean {
  return /^https?:\/\//i.test(url)
}
