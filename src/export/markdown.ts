import { documentOf, referenceLine, type ExportableResult } from './document.js'

/** The result as Markdown: `# title`, a `##` heading a block (introduction, sections, conclusion), `## References`. */
export function toMarkdown(result: ExportableResult): string {
  const doc = documentOf(result)
  const parts = [`# ${doc.title}`]
  for (const block of doc.blocks) parts.push(block.heading ? `## ${block.heading}\n\n${block.text.trim()}` : block.text.trim())
  if (doc.references.length) parts.push(`## References\n\n${doc.references.map(referenceLine).join('\n\n')}`)
  return `${parts.join('\n\n')}\n`
}
