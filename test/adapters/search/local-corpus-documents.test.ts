/**
 * Issue 26: `localCorpus({ dir })` indexes PDFs and DOCX files beside Markdown: a PDF page by
 * page, each chunk citing `file:…#page=n`; fetching that URL gives the whole document with its
 * page boundaries. A file that cannot be read is left out, the rest of the folder indexed.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCorpus } from '../../../src/adapters/index.js'
import { documentPages } from '../../../src/strategy.js'
import { textPdf } from '../../support/make-pdf.js'

const fixture = (path: string) => new URL(`../../fixtures/documents/${path}`, import.meta.url)

describe('localCorpus({ dir }) with PDF and DOCX files', () => {
  let dir = ''
  const url = (name: string) => pathToFileURL(join(dir, name)).href

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-documents-'))
    await writeFile(
      join(dir, 'report.pdf'),
      textPdf([['Annual report 2025'], ['Revenue grew by twelve percent in the northern region.'], ['Staff turnover fell to four percent.']], {
        title: 'Annual report',
      }),
    )
    await copyFile(fixture('docx/tables.docx'), join(dir, 'tables.docx'))
    await copyFile(fixture('pdf/issue6010_1.pdf'), join(dir, 'locked.pdf'))
    await writeFile(join(dir, 'notes.md'), '# Notes\n\nNothing about revenue here.\n')
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('a PDF chunk cites its page; fetching it gives the document with its pages', { timeout: 120_000 }, async () => {
    const corpus = localCorpus({ dir })
    const [hit] = await corpus.search('revenue northern region')
    expect(hit).toMatchObject({ url: `${url('report.pdf')}#page=2`, title: 'Annual report › page 2' })
    const page = await corpus.fetch(hit!.url)
    expect(page).toMatchObject({ url: url('report.pdf'), title: 'Annual report', kind: 'pdf', pages: 3 })
    expect(documentPages(page).map((p) => p.page)).toEqual([1, 2, 3])
    expect((await corpus.search('staff turnover'))[0]?.url).toBe(`${url('report.pdf')}#page=3`)
  })

  it('a DOCX is indexed with its tables as Markdown rows; an encrypted PDF is left out', { timeout: 120_000 }, async () => {
    const corpus = localCorpus({ dir })
    const [hit] = await corpus.search('bottom right')
    expect(hit?.url).toBe(url('tables.docx'))
    expect((await corpus.fetch(hit!.url)).text).toContain('| Bottom left | Bottom right |')
    await expect(corpus.fetch(url('locked.pdf'))).rejects.toMatchObject({ code: 'not-found' })
    expect((await corpus.search('nothing about')).map((r) => r.url)).toEqual([`${url('notes.md')}#notes`])
  })
})
