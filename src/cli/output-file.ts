import { writeFile } from 'node:fs/promises'
import { extname } from 'node:path'
import { toDOCX, toHTML, toMarkdown, toPDF } from '../export/index.js'
import type { ResearchResult } from '../index.js'
import { resultMarkdown } from './render/result-markdown.js'

/**
 * `--output FILE`: the result written as the extension says. `.html`/`.htm` is `toHTML`'s page,
 * `.docx` `toDOCX` (needs the `docx` package), `.pdf` `toPDF` (needs Chromium); Markdown is the
 * long report itself for a `report` run, else the answer with its question and sources.
 */
export async function writeOutput(path: string, question: string, result: ResearchResult): Promise<void> {
  const extension = extname(path).toLowerCase()
  if (extension === '.html' || extension === '.htm') return writeFile(path, toHTML(result))
  if (extension === '.docx') return writeFile(path, await toDOCX(result))
  if (extension === '.pdf') return writeFile(path, await toPDF(result))
  return writeFile(path, result.report?.sections ? toMarkdown(result) : resultMarkdown(question, result))
}
