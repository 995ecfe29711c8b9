import { execFileSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type KnowledgeBase, knowledgeBase, memoryVectorStore } from '../../src/kb/index.js'
import { mockFetch } from '../../src/testing/index.js'
import { textPdf } from '../support/make-pdf.js'
import { openAIEmbeddings } from '../../src/adapters/index.js'
import { type EmbeddingServer, FAKE_MODEL, fakeEmbedder, startEmbeddingServer } from './fake-embeddings.js'

/** One step of an indexing run, as `index`'s `onProgress` is told it. */
type IndexProgress = Parameters<NonNullable<NonNullable<Parameters<KnowledgeBase['index']>[1]>['onProgress']>>[0]

let server: EmbeddingServer
let dir: string

beforeAll(async () => {
  server = await startEmbeddingServer()
})
afterAll(() => server.close())

async function writeFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'laconic-kb-'))
  await mkdir(join(folder, 'guides'))
  await writeFile(
    join(folder, 'guides', 'llamas.md'),
    '# Llamas\n\nLlamas live in the Andes.\n\n## Care\n\nBrush the fleece weekly.\n\n### Food\n\nLlamas graze on grass and hay.\n',
  )
  await writeFile(join(folder, 'notes.txt'), 'Volcanoes erupt molten rock called lava.')
  await writeFile(
    join(folder, 'tides.html'),
    '<html><head><title>Tides</title></head><body><h1>Tides</h1><h2>Cause</h2><p>The moon pulls the oceans.</p></body></html>',
  )
  await writeFile(join(folder, 'atlas.pdf'), textPdf([['Deserts are dry places.'], ['Glaciers are slow rivers of ice.']], { title: 'Atlas' }))
  return folder
}

beforeAll(async () => {
  dir = await writeFolder()
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const fileUrl = (...parts: string[]) => pathToFileURL(join(dir, ...parts)).href

describe('knowledgeBase: indexing', () => {
  afterEach(() => {
    server.texts.length = 0
  })

  it('indexes md, txt, html and pdf files into chunks with their title and heading path', async () => {
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: openAIEmbeddings({ baseURL: `${server.url}/v1`, model: FAKE_MODEL }) })
    const progress: IndexProgress[] = []
    const report = await kb.index([dir], { onProgress: (step) => progress.push(step) })
    expect(report).toMatchObject({ added: 4, updated: 0, unchanged: 0, removed: 0, skipped: [] })
    expect(report.chunks).toBe(server.texts.length)
    expect((await kb.documents()).map((document) => document.title).sort()).toEqual(['Atlas', 'Llamas', 'Tides', 'notes'])
    expect(progress.at(-1)).toMatchObject({ documents: 4, total: 4, chunks: report.chunks })

    // What is embedded carries the document's title and headings.
    expect(server.texts).toContain('Llamas › Care › Food\n\nLlamas graze on grass and hay.')
    expect(server.texts).toContain('Tides › Cause\n\nThe moon pulls the oceans.')

    const [food] = await kb.search('what do llamas graze on', { limit: 1 })
    expect(food).toMatchObject({ title: 'Llamas › Care › Food', url: `${fileUrl('guides', 'llamas.md')}#food`, snippet: 'Llamas graze on grass and hay.' })
    const [glacier] = await kb.search('glaciers ice', { limit: 1 })
    expect(glacier).toMatchObject({ title: 'Atlas › page 2', url: `${fileUrl('atlas.pdf')}#page=2` })
  })

  it('re-indexes an unchanged folder without embedding anything, and only what changed after an edit', async () => {
    const folder = await writeFolder()
    try {
      const kb = knowledgeBase({ store: memoryVectorStore(), embed: openAIEmbeddings({ baseURL: `${server.url}/v1`, model: FAKE_MODEL }) })
      await kb.index([folder])
      const first = server.texts.length
      expect(first).toBeGreaterThan(0)
      server.requests.length = 0

      const again = await kb.index([folder])
      expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 4, removed: 0, chunks: 0 })
      expect(server.requests).toHaveLength(0)

      await writeFile(join(folder, 'notes.txt'), 'Geysers spout hot water.')
      await unlink(join(folder, 'tides.html'))
      const edited = await kb.index([folder])
      expect(edited).toMatchObject({ added: 0, updated: 1, unchanged: 2, removed: 1, chunks: 1 })
      expect(server.texts.slice(first)).toEqual(['notes\n\nGeysers spout hot water.'])
      expect((await kb.search('volcanoes lava')).map((hit) => hit.snippet)).not.toContain('Volcanoes erupt molten rock called lava.')
      expect((await kb.search('geysers'))[0]?.snippet).toBe('Geysers spout hot water.')
      expect((await kb.documents()).some((document) => document.url.endsWith('tides.html'))).toBe(false)
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  it('skips a file over maxFileBytes and goes on with the others', async () => {
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder(), maxFileBytes: 60 })
    const report = await kb.index([dir])
    expect(report.skipped.map((skip) => [skip.url, skip.code])).toEqual(
      expect.arrayContaining([
        [fileUrl('atlas.pdf'), 'document-too-large'],
        [fileUrl('guides', 'llamas.md'), 'document-too-large'],
      ]),
    )
    expect((await kb.documents()).map((document) => document.title)).toContain('notes')
    // The report names the file; its message says only why.
    expect(report.skipped.find((skip) => skip.url === fileUrl('atlas.pdf'))?.message).toMatch(
      /^it is \d+ bytes, more than the 60 read from one file \(maxFileBytes\)$/,
    )
  })

  it.skipIf(process.platform === 'win32')('skips a FIFO named like a document instead of waiting for a writer', { timeout: 60_000 }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'laconic-kb-fifo-'))
    try {
      const fifo = join(folder, 'pipe.md')
      execFileSync('mkfifo', [fifo])
      const report = await knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder() }).index([fifo])
      expect(report.skipped).toEqual([{ url: pathToFileURL(fifo).href, code: 'document-unreadable', message: 'it is not a regular file' }])
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  it('skips an encrypted PDF as document-encrypted and a broken one as document-unreadable, saying why once', { timeout: 60_000 }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'laconic-kb-locked-'))
    try {
      await copyFile(new URL('../fixtures/documents/pdf/aes256_protected.pdf', import.meta.url), join(folder, 'aes256.pdf'))
      await writeFile(join(folder, 'broken.pdf'), '%PDF-1.7\nnot a PDF\n')
      await writeFile(join(folder, 'notes.md'), '# Notes\n\nKelp forests shelter otters.\n')
      const report = await knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder() }).index([folder])
      const url = (name: string) => pathToFileURL(join(folder, name)).href
      expect(report).toMatchObject({ added: 1 })
      expect(report.skipped).toEqual([
        { url: url('aes256.pdf'), code: 'document-encrypted', message: 'the PDF is encrypted with a password; it cannot be read' },
        { url: url('broken.pdf'), code: 'document-unreadable', message: expect.stringMatching(/^the PDF could not be opened \(.+\)$/) },
      ])
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  it('indexes texts given in memory, and embeds them in batches across documents', async () => {
    const embed = fakeEmbedder()
    const kb = knowledgeBase({ store: memoryVectorStore(), embed, batchSize: 3 })
    const notes = Array.from({ length: 7 }, (_, i) => ({ url: `note:${i}`, text: `Note number ${i}.` }))
    const report = await kb.index(notes)
    expect(report.added).toBe(7)
    expect(embed.calls).toBe(3)
    expect((await kb.search('number 5', { limit: 1 }))[0]?.url).toBe('note:5')
  })

  it('indexes pages by URL through the fetch provider, skipping one that fails to load', async () => {
    const fetch = mockFetch({ pages: { 'https://example.com/guide': { title: 'Guide', text: '# Guide\n\n## Setup\n\nRun the installer.' } } })
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder(), fetch })
    const report = await kb.index(['https://example.com/guide#top', 'https://example.com/missing'])
    expect(report).toMatchObject({ added: 1, skipped: [{ url: 'https://example.com/missing', code: 'not-found' }] })
    expect(await kb.search('installer', { limit: 1 })).toMatchObject([{ title: 'Guide › Setup', url: 'https://example.com/guide#setup' }])
    expect((await kb.index(['https://example.com/guide'])).unchanged).toBe(1)
  })

  it('refuses to index with another model than the store was built with', async () => {
    const store = memoryVectorStore()
    await knowledgeBase({ store, embed: fakeEmbedder() }).index([{ url: 'note:1', text: 'one' }])
    const other = { ...fakeEmbedder(), model: 'another-model' }
    await expect(knowledgeBase({ store, embed: other }).index([{ url: 'note:2', text: 'two' }])).rejects.toThrow(
      /holds vectors of fake-embed, and the embedder is another-model/,
    )
    await expect(knowledgeBase({ store, embed: other }).search('one')).rejects.toThrow(/search with the model the store was built with/)
  })

  it('stops at an aborted signal, leaving every document whole', async () => {
    const controller = new AbortController()
    const embed = fakeEmbedder()
    const kb = knowledgeBase({ store: memoryVectorStore(), embed, batchSize: 1, concurrency: 1 })
    const notes = Array.from({ length: 5 }, (_, i) => ({ url: `note:${i}`, text: `Note ${i}.` }))
    const run = kb.index(notes, {
      signal: controller.signal,
      onProgress: (step) => {
        if (step.documents === 2) controller.abort()
      },
    })
    await expect(run).rejects.toMatchObject({ code: 'aborted' })
    const documents = await kb.documents()
    expect(documents.length).toBeLessThan(5)
    for (const document of documents) expect(document.chunks).toBe(1)
  })
})

describe('knowledgeBase: reading a hit', () => {
  it('fetches a document by the URL of any of its chunks, headings and pages restored', async () => {
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder() })
    await kb.index([dir])
    const llamas = await kb.fetch(`${fileUrl('guides', 'llamas.md')}#food`)
    expect(llamas).toEqual({
      url: fileUrl('guides', 'llamas.md'),
      title: 'Llamas',
      text: '# Llamas\n\nLlamas live in the Andes.\n\n## Care\n\nBrush the fleece weekly.\n\n### Food\n\nLlamas graze on grass and hay.',
    })
    const atlas = await kb.fetch(`${fileUrl('atlas.pdf')}#page=2`)
    expect(atlas).toMatchObject({ kind: 'pdf', pages: 2 })
    expect(atlas.text.slice(atlas.pageStarts?.[1])).toBe('Glaciers are slow rivers of ice.')
    await expect(kb.fetch('https://example.com/')).rejects.toMatchObject({ code: 'not-found' })
  })

  it('joins neighbouring chunks into the snippet when asked, within its bound', async () => {
    const text = Array.from({ length: 6 }, (_, i) => `Paragraph ${i} ${'filler '.repeat(20)}`.trim()).join('\n\n')
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder(), chunkChars: 160, expand: { chunks: 1, maxChars: 600 } })
    await kb.index([{ url: 'doc:1', text: text.replace('Paragraph 3', 'Paragraph 3 zebra') }])
    const [hit] = await kb.search('zebra', { limit: 1 })
    expect(hit?.snippet.split('\n\n').map((part) => part.split(' filler', 1)[0])).toEqual(['Paragraph 2', 'Paragraph 3 zebra', 'Paragraph 4'])

    const tight = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder(), chunkChars: 160, expand: { chunks: 2, maxChars: 300 } })
    await tight.index([{ url: 'doc:1', text: text.replace('Paragraph 3', 'Paragraph 3 zebra') }])
    const [bounded] = await tight.search('zebra', { limit: 1 })
    expect(bounded?.snippet.length).toBeLessThanOrEqual(300)
    expect(bounded?.snippet).toContain('Paragraph 3 zebra')
  })

  it('joins the neighbours that match the query, not only the nearest, marking what was left out', async () => {
    const parts = Array.from({ length: 5 }, (_, i) => `Paragraph ${i} ${'filler '.repeat(15)}`.trim())
    parts[2] = parts[2]!.replace('Paragraph 2', 'Paragraph 2 zebra')
    parts[0] = parts[0]!.replace('Paragraph 0', 'Paragraph 0 zebra stripes')
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder(), chunkChars: 160, expand: { chunks: 2, maxChars: 320 } })
    await kb.index([{ url: 'doc:1', text: parts.join('\n\n') }])
    const [hit] = await kb.search('zebra stripes', { limit: 1 })
    // The hit is paragraph 0 or 2; the other, two chunks away, matches and fits, the one between does not.
    expect(hit?.snippet.split('\n\n').map((part) => part.split(' filler', 1)[0])).toEqual(['Paragraph 0 zebra stripes', '[…]', 'Paragraph 2 zebra'])
    expect(hit?.snippet.length).toBeLessThanOrEqual(320)
  })

  it('removes a document by id', async () => {
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: fakeEmbedder() })
    await kb.index([{ url: 'note:1', text: 'alpha' }])
    expect(await kb.remove('note:1')).toBe(true)
    expect(await kb.remove('note:1')).toBe(false)
    expect(await kb.search('alpha')).toEqual([])
  })
})
