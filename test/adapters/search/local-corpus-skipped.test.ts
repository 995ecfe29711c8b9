/**
 * Issue 35: a local corpus leaves out the files it cannot read (too large, encrypted, broken)
 * and says so, with the right code, through the search's `onWarning`; the rest of the folder is
 * searched. A file over 2 GiB used to fail the whole corpus, and broken or encrypted PDFs
 * vanished without a word.
 */
import { copyFile, mkdtemp, open, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCorpus } from '../../../src/adapters/index.js'
import { createAgent, type ResearchEvent, type FetchedPage } from '../../../src/index.js'
import { assertEventInvariants, scriptedLLM } from '../../../src/testing/index.js'

type PageWarning = NonNullable<FetchedPage['warnings']>[number]

const fixture = (path: string) => new URL(`../../fixtures/documents/${path}`, import.meta.url)

/** A search, and what it told its `onWarning`. */
async function searchWithWarnings(corpus: ReturnType<typeof localCorpus>, query: string) {
  const warnings: PageWarning[] = []
  const results = await corpus.search(query, { onWarning: (warning) => warnings.push(warning) })
  return { urls: results.map((result) => result.url.replace(/^.*\//, '')), warnings }
}

describe('a local corpus skips the files it cannot read, and says so', () => {
  let dir = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-skipped-'))
    await writeFile(join(dir, 'notes.md'), '# Notes\n\nThe lighthouse keeper counts gulls.\n')
    // A sparse 3 GiB file: more than one buffer can hold, and nothing written to disk.
    const huge = await open(join(dir, 'huge.txt'), 'w')
    await huge.truncate(3 * 1024 ** 3)
    await huge.close()
    await writeFile(join(dir, 'fits.txt'), `gulls ${'x'.repeat(94)}`)
    await writeFile(join(dir, 'over.txt'), `gulls ${'x'.repeat(95)}`)
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('a file over 2 GiB is skipped under the default cap, and the rest is searched', { timeout: 60_000 }, async () => {
    const { urls, warnings } = await searchWithWarnings(localCorpus({ dir }), 'lighthouse keeper')
    expect(urls).toEqual(['notes.md#notes'])
    expect(warnings).toEqual([
      {
        code: 'document-too-large',
        message: `localCorpus skipped huge.txt: it is ${3 * 1024 ** 3} bytes, more than the 50000000 read from one file (maxFileBytes)`,
      },
    ])
  })

  it('a file one byte over `maxFileBytes` is skipped, one at the cap is read', { timeout: 60_000 }, async () => {
    const corpus = localCorpus({ dir, maxFileBytes: 100 })
    const { urls, warnings } = await searchWithWarnings(corpus, 'gulls')
    expect(urls).toContain('fits.txt')
    expect(urls).not.toContain('over.txt')
    expect(warnings.map((warning) => warning.code)).toEqual(['document-too-large', 'document-too-large'])
    expect(warnings.map((warning) => warning.message)).toEqual([
      `localCorpus skipped huge.txt: it is ${3 * 1024 ** 3} bytes, more than the 100 read from one file (maxFileBytes)`,
      'localCorpus skipped over.txt: it is 101 bytes, more than the 100 read from one file (maxFileBytes)',
    ])
    // Told once: the next search has nothing new to say.
    expect((await searchWithWarnings(corpus, 'gulls')).warnings).toEqual([])
  })

  it('refuses a `maxFileBytes` that is not a positive number', () => {
    expect(() => localCorpus({ dir, maxFileBytes: 0 })).toThrow(/maxFileBytes/)
  })
})

describe('broken and encrypted PDFs are reported with their code', () => {
  let dir = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-skipped-pdf-'))
    await writeFile(join(dir, 'notes.md'), '# Notes\n\nThe lighthouse keeper counts gulls.\n')
    await copyFile(fixture('pdf/aes256_protected.pdf'), join(dir, 'aes256.pdf'))
    await copyFile(fixture('pdf/print_protection.pdf'), join(dir, 'rc4.pdf'))
    await writeFile(join(dir, 'broken.pdf'), '%PDF-1.7\nthis is not a PDF at all\n')
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('an AES-256 PDF is document-encrypted, a broken one document-unreadable; neither repeats its URL', { timeout: 120_000 }, async () => {
    const { urls, warnings } = await searchWithWarnings(localCorpus({ dir }), 'lighthouse')
    expect(urls).toEqual(['notes.md#notes'])
    expect(warnings).toEqual([
      { code: 'document-encrypted', message: 'localCorpus skipped 2 files (aes256.pdf, rc4.pdf): the PDF is encrypted with a password; it cannot be read' },
      { code: 'document-unreadable', message: expect.stringMatching(/^localCorpus skipped broken\.pdf: the PDF could not be opened \(.+\)$/) },
    ])
    for (const warning of warnings) expect(warning.message).not.toContain('file:')
  })

  it('a run tells them as warnings of the search that read the folder', { timeout: 120_000 }, async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: lighthouse keeper', 'Action: Search\nQuery: gulls', 'Action: Answer'] })
    const agent = createAgent({ models: { planner, synthesizer: scriptedLLM({ replies: ['k', 'k', 'a'] }) }, search: localCorpus({ dir }) })
    const events: ResearchEvent[] = []
    for await (const event of agent.research('Who counts gulls?')) events.push(event)
    assertEventInvariants(events)
    const [first] = events.filter((event) => event.type === 'query')
    const skipped = events.filter((event) => event.type === 'warning' && event.code.startsWith('document-'))
    expect(skipped.map((event) => (event.type === 'warning' ? [event.code, event.queryId] : []))).toEqual([
      ['document-encrypted', first?.type === 'query' ? first.queryId : 'none'],
      ['document-unreadable', first?.type === 'query' ? first.queryId : 'none'],
    ])
  })
})
