import { describe, expect, it } from 'vitest'
import { documentPages, normalizeUrl, pageOfUrl, pageUrl } from '../../../src/strategy.js'
import { documentPassages } from '../../../src/strategy.js'

const doc = (pages: string[]) => {
  const pageStarts: number[] = []
  let text = ''
  for (const page of pages) {
    if (text) text += '\n\n'
    pageStarts.push(text.length)
    text += page
  }
  return { url: 'https://example.org/paper.pdf', text, kind: 'pdf' as const, pages: pages.length, pageStarts }
}

describe('document pages', () => {
  it('page URLs replace any fragment; only #page=n names a page', () => {
    expect(pageUrl('https://example.org/a.pdf#intro', 7)).toBe('https://example.org/a.pdf#page=7')
    expect(pageOfUrl('https://example.org/a.pdf#page=7')).toBe(7)
    expect(pageOfUrl('https://example.org/a.pdf#page=0')).toBeUndefined()
    expect(pageOfUrl('https://example.org/a.pdf#intro')).toBeUndefined()
  })

  it('normalizeUrl keeps a page (two pages are two sources) and drops any other fragment', () => {
    expect(normalizeUrl('https://www.example.org/a.pdf?utm_source=x#page=3')).toBe('https://example.org/a.pdf#page=3')
    expect(normalizeUrl('https://example.org/a.pdf#page=3')).not.toBe(normalizeUrl('https://example.org/a.pdf#page=4'))
    expect(normalizeUrl('https://example.org/a#section')).toBe('https://example.org/a')
  })

  it('splits a document at its page starts, leaving out pages without text', () => {
    expect(documentPages(doc(['one', '', 'three']))).toEqual([
      { page: 1, text: 'one' },
      { page: 3, text: 'three' },
    ])
    expect(documentPages({ text: 'a web page' })).toEqual([])
  })
})

describe('documentPassages', () => {
  it('a web page is one passage cut to the budget', () => {
    expect(documentPassages({ url: 'https://example.org/', text: 'First sentence. Second sentence.' }, 'q', 20)).toEqual([
      { url: 'https://example.org/', text: 'First sentence.' },
    ])
  })

  it('a document gives its best-matching pages within the budget, in page order, each at its page URL', () => {
    const filler = 'Nothing of interest here at all. '.repeat(8).trim()
    const paper = doc([filler, 'Llamas hum. Llamas hum when anxious.', filler, 'Why llamas hum: a note.', filler])
    const passages = documentPassages(paper, 'why do llamas hum', 300)
    // Pages 2 and 4 match; page 1 (first of the rest) fills the budget, cut at a sentence.
    expect(passages.map((p) => p.page)).toEqual([1, 2, 4])
    expect(passages[0]?.text.endsWith('Nothing of interest here at all.')).toBe(true)
    expect(passages[1]).toEqual({ url: 'https://example.org/paper.pdf#page=2', page: 2, text: 'Llamas hum. Llamas hum when anxious.' })
    expect(passages.reduce((sum, p) => sum + p.text.length, 0)).toBeLessThanOrEqual(300)
  })

  it('with no page matching, the first pages come first', () => {
    expect(documentPassages(doc(['a b c', 'd e f', 'g h i']), 'zebra', 12).map((p) => p.page)).toEqual([1, 2])
  })
})
