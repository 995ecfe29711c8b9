import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { localCorpus } from '../../src/adapters/index.js'
import { knowledgeBase, memoryVectorStore } from '../../src/kb/index.js'
import { fakeEmbedder } from '../kb/fake-embeddings.js'

/** The non-space characters, in order: what must survive chunking (an over-long word may be cut). */
const ink = (text: string) => text.replace(/\s+/g, '')

const BASE = 'https://example.org/guide'

/**
 * The chunks a knowledge base stores for a page of `text`, cut at `chunkChars`, in order: each
 * chunk's heading path, its text, and the URL it cites (the page, or `#anchor` of its heading).
 */
async function chunksOf(text: string, chunkChars = 1000): Promise<{ url: string; headings: string[]; text: string }[]> {
  const store = memoryVectorStore()
  const report = await knowledgeBase({ store, embed: fakeEmbedder(8), chunkChars }).index([{ url: BASE, title: 'Guide', text }])
  const [document] = await store.documents()
  if (!document) {
    // A page with no text to keep is not stored.
    expect(report).toBeDefined()
    return []
  }
  const chunks = await store.chunksAround(document.id, 0, document.chunks)
  return chunks.map((chunk) => ({ url: chunk.url, headings: chunk.headings, text: chunk.text }))
}

/** The snippets a local corpus holding `text` (titled "zebra", so a search for it finds every chunk) shows for `query`. */
async function snippetsOf(text: string, query: string, snippetChars: number): Promise<string[]> {
  const corpus = localCorpus({ documents: [{ title: 'zebra', url: 'https://example.org/doc', text }], chunkChars: 100_000, snippetChars })
  return (await corpus.search(`${query} zebra`)).map((result) => result.snippet)
}

describe('chunking a page', () => {
  it('starts a chunk at each heading and groups paragraphs up to the size limit', async () => {
    const text = `# A\n\npara one\n\npara two\n\n## B  ##\n\n${'word '.repeat(50)}`
    expect(await chunksOf(text, 100)).toEqual([
      { url: `${BASE}#a`, headings: ['A'], text: 'para one\n\npara two' },
      { url: `${BASE}#b`, headings: ['A', 'B'], text: expect.stringMatching(/^word( word)*$/) },
      { url: `${BASE}#b`, headings: ['A', 'B'], text: expect.stringMatching(/^word( word)*$/) },
      { url: `${BASE}#b`, headings: ['A', 'B'], text: expect.stringMatching(/^word( word)*$/) },
    ])
  })

  it('keeps the heading path: a heading closes those of its level and deeper', async () => {
    const text = 'intro\n\n# Guide\n\none\n\n## Install\n\ntwo\n\n### On Linux\n\nthree\n\n## Use\n\nfour\n\n# Other\n\nfive'
    expect((await chunksOf(text)).map((chunk) => [chunk.headings, chunk.text])).toEqual([
      [[], 'intro'],
      [['Guide'], 'one'],
      [['Guide', 'Install'], 'two'],
      [['Guide', 'Install', 'On Linux'], 'three'],
      [['Guide', 'Use'], 'four'],
      [['Other'], 'five'],
    ])
  })

  it('never throws, keeps every chunk within the limit and loses no text outside headings', async () => {
    const line = fc.oneof(fc.string({ maxLength: 120, size: 'max' }), fc.constantFrom('', '# Title', '## Sub', '```', 'word word word.'))
    // 100 characters is the least chunk size a knowledge base takes: pages of up to 40 lines of
    // any length, so that chunks reach it.
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 40, size: 'max' }), fc.integer({ min: 100, max: 400 }), async (lines, max) => {
        const text = lines.join('\n')
        const chunks = await chunksOf(text, max)
        for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(max)
        const kept = chunks.map((chunk) => ink(chunk.text)).join('')
        // every body character survives, in order (headings move into `headings`)
        let inFence = false
        const body = text
          .replace(/\r\n?/g, '\n')
          .split('\n')
          .filter((l) => {
            if (/^\s*(```|~~~)/.test(l)) inFence = !inFence
            return inFence || !/^\s{0,3}#{1,6}\s+/.test(l)
          })
          .map(ink)
          .join('')
        expect(kept).toBe(body)
      }),
    )
  })

  it('slugs headings like GitHub', async () => {
    const [hello, vicunas] = await chunksOf('# Hello, World! (v2)\n\nfirst\n\n# Vicuñas & co\n\nsecond')
    expect(hello?.url).toBe(`${BASE}#hello-world-v2`)
    expect(vicunas?.url).toBe(`${BASE}#vicuñas--co`)
  })
})

describe('the snippet of a search result', () => {
  it('centres on the first match, cut at words, with ellipses', async () => {
    const text = `${'lorem ipsum '.repeat(40)}the llama spits ${'dolor sit '.repeat(40)}`
    const [snippet] = await snippetsOf(text, 'llama', 100)
    expect(snippet).toContain('the llama spits')
    expect(snippet?.startsWith('…')).toBe(true)
    expect(snippet?.endsWith('…')).toBe(true)
    expect(snippet?.length).toBeLessThanOrEqual(102)
  })

  it('never throws and never exceeds the limit (plus ellipses)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 600 }),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
        fc.integer({ min: 20, max: 300 }),
        async (text, terms, max) => {
          for (const snippet of await snippetsOf(text, terms.join(' '), max)) expect(snippet.length).toBeLessThanOrEqual(max + 2)
        },
      ),
    )
  })
})

describe('snippets and runs of dots (issue 35, item 9)', () => {
  it("starts a PDF's dot-leader line with one ellipsis, not …...", async () => {
    const contents = `Contents ${Array.from({ length: 30 }, (_, i) => `Chapter ${i + 1} ........................ ${i * 7 + 1}`).join(' ')} the llama chapter`
    const [snippet] = await snippetsOf(contents, 'llama', 120)
    expect(snippet).toContain('llama')
    expect(snippet).not.toMatch(/…\.|\.…|\.\.\./)
    const [typed] = await snippetsOf(`${'word '.repeat(60)}... the llama ... ${'word '.repeat(60)}`, 'llama', 40)
    expect(typed?.startsWith('…the llama')).toBe(true)
    expect(typed).not.toMatch(/…\s?\.|\.\s?…|\.\s?\./)
  })

  it('never shows an ellipsis beside dots, whatever the text', async () => {
    const piece = fc.constantFrom('word', 'llama', '.', '..', '...', '. . .', '…', ' ', '\n', 'end.')
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 200 }), fc.integer({ min: 20, max: 120 }), async (pieces, max) => {
        for (const snippet of await snippetsOf(pieces.join(' '), 'llama', max)) expect(snippet).not.toMatch(/…\s?\.|\.\s?…|\.\s?\.\s?\./)
      }),
    )
  })
})
