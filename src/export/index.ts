// `laconic-research/export`: a run's result (a `report` run's long report above all) as a file:
// Markdown, self-contained HTML, Word (the optional `docx` peer) or PDF (a headless Chromium
// through the optional `playwright-core` peer). See docs/strategies.md#exporting-a-report.
export type { ExportableResult } from './document.js'
export { toMarkdown } from './markdown.js'
export { toHTML } from './html.js'
export { toDOCX } from './docx.js'
export { toPDF, type PdfOptions } from './pdf.js'
