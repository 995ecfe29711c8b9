import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { chunkText } from '../../src/documents/chunk.js'
import { slugify } from '../../src/documents/text-windows.js'
import { snippetAround } from '../../src/adapters/search/local/snippet.js'

/** The non-space characters, in order: what must survive chunking (an over-long word may be cut). */
const ink = (text: string) => text.replace(/\s+/g, '')

describe('chunkText', () => {
  it('starts a chunk at each heading and groups paragraphs up to the size limit', () => {
    const text = `# A\n\npara one\n\npara two\n\n## B  ##\n\n${'word '.repeat(30)}`
    expect(chunkText(text, 60)).toEqual([
      { heading: 'A', anchor: 'a', headings: ['A'], text: 'para one\n\npara two' },
      { heading: 'B', anchor: 'b', headings: ['A', 'B'], text: expect.stringMatching(/^word( word)*$/) },
      { heading: 'B', anchor: 'b', headings: ['A', 'B'], text: expect.stringMatching(/^word( word)*$/) },
      { heading: 'B', anchor: 'b', headings: ['A', 'B'], text: expect.stringMatching(/^word( word)*$/) },
    ])
  })

  it('keeps the heading path: a heading closes those of its level and deeper', () => {
    const text = 'intro\n\n# Guide\n\none\n\n## Install\n\ntwo\n\n### On Linux\n\nthree\n\n## Use\n\nfour\n\n# Other\n\nfive'
    expect(chunkText(text).map((chunk) => [chunk.headings, chunk.text])).toEqual([
      [[], 'intro'],
      [['Guide'], 'one'],
      [['Guide', 'Install'], 'two'],
      [['Guide', 'Install', 'On Linux'], 'three'],
      [['Guide', 'Use'], 'four'],
      [['Other'], 'five'],
    ])
  })

  it('never throws, keeps every chunk within the limit and loses no text outside headings', () => {
    const line = fc.oneof(fc.string({ maxLength: 120 }), fc.constantFrom('', '# Title', '## Sub', '```', 'word word word.'))
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.integer({ min: 50, max: 400 }), (lines, max) => {
        const text = lines.join('\n')
        const chunks = chunkText(text, max)
        for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(max)
        const kept = chunks.map((chunk) => ink(chunk.text)).join('')
        // every body character survives, in order (headings move into `heading`)
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

  it('slugs headings like GitHub', () => {
    expect(slugify('Hello, World! (v2)')).toBe('hello-world-v2')
    expect(slugify('Vicuñas & co')).toBe('vicuñas--co')
  })
})

describe('snippetAround', () => {
  it('centres on the first match, cut at words, with ellipses', () => {
    const text = `${'lorem ipsum '.repeat(40)}the llama spits ${'dolor sit '.repeat(40)}`
    const snippet = snippetAround(text, ['llama'], 100)
    expect(snippet).toContain('the llama spits')
    expect(snippet.startsWith('…')).toBe(true)
    expect(snippet.endsWith('…')).toBe(true)
    expect(snippet.length).toBeLessThanOrEqual(102)
  })

  it('never throws and never exceeds the limit (plus ellipses)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 600 }),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
        fc.integer({ min: 20, max: 300 }),
        (text, terms, max) => {
          expect(snippetAround(text, terms, max).length).toBeLessThanOrEqual(max + 2)
        },
      ),
    )
  })
})

describe('snippetAround and runs of dots (issue 35, item 9)', () => {
  it("starts a PDF's dot-leader line with one ellipsis, not …...", () => {
    const contents = `Contents ${Array.from({ length: 30 }, (_, i) => `Chapter ${i + 1} ........................ ${i * 7 + 1}`).join(' ')} the llama chapter`
    const snippet = snippetAround(contents, ['llama'], 120)
    expect(snippet).toContain('llama')
    expect(snippet).not.toMatch(/…\.|\.…|\.\.\./)
    const typed = snippetAround(`${'word '.repeat(60)}... the llama ... ${'word '.repeat(60)}`, ['llama'], 40)
    expect(typed.startsWith('…the llama')).toBe(true)
    expect(typed).not.toMatch(/…\s?\.|\.\s?…|\.\s?\./)
  })

  it('never shows an ellipsis beside dots, whatever the text', () => {
    const piece = fc.constantFrom('word', 'llama', '.', '..', '...', '. . .', '…', ' ', '\n', 'end.')
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 200 }), fc.integer({ min: 20, max: 120 }), (pieces, max) => {
        const snippet = snippetAround(pieces.join(' '), ['llama'], max)
        return !/…\s?\.|\.\s?…|\.\s?\.\s?\./.test(snippet)
      }),
    )
  })
})
