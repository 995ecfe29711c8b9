import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { documentPages, documentPassages, normalizeUrl } from '../../src/strategy.js'
import { knowledgeBase, type VectorStore } from '../../src/kb/index.js'
import { chooseWindows, OMITTED, WINDOW_CHARS } from '../../src/documents/passages.js'
import { textWindows } from '../../src/documents/text-windows.js'
import { rankTexts } from '../../src/documents/lexical.js'

/** A passage as `documentPassages` gives it. */
type Passage = Awaited<ReturnType<typeof documentPassages>>[number]

const doc = (pages: string[], url = 'https://example.org/paper.pdf') => {
  const pageStarts: number[] = []
  let text = ''
  for (const page of pages) {
    if (text) text += '\n\n'
    pageStarts.push(text.length)
    text += page
  }
  return { url, text, kind: 'pdf' as const, pages: pages.length, pageStarts }
}

const shownChars = (passages: readonly Passage[]) => passages.reduce((sum, p) => sum + p.text.length, 0)

/** The page's own stretches a passage shows: its paragraphs and heading lines, the marks left out. */
const segments = (passage: Passage) =>
  passage.text
    .split('\n\n')
    .map((part) => part.replace(/^\[…\] /, '').replace(/ \[…\]$/, ''))
    .filter((part) => part && part !== OMITTED)

/** The text a passage cites: its document page, or the whole page. */
const placeText = (page: { url: string; text: string; pageStarts?: readonly number[] }, passage: Passage) => {
  const number = passage.page
  return number === undefined ? page.text : (documentPages(page).find((p) => p.page === number)?.text ?? '')
}

/** The title a knowledge base gives a hit on a stored chunk citing `url`: "page n" added when the URL names a page. */
async function titleOfHit(url: string): Promise<string | undefined> {
  const chunk = { id: 'c', documentId: 'd', url, title: 'A', headings: [], position: 0, text: 'llamas', vector: Float32Array.from([1]) }
  const store: VectorStore = {
    embedding: async () => ({ model: 'flat', dimensions: 1 }),
    putDocument: async () => {},
    removeDocument: async () => {},
    documents: async () => [],
    searchByVector: async () => [{ chunk, score: 1 }],
    searchByText: async () => [],
    chunksAround: async () => [],
    close: async () => {},
  }
  const embed = { model: 'flat', dimensions: 1, embed: async (texts: readonly string[]) => ({ vectors: texts.map(() => Float32Array.from([1])) }) }
  return (await knowledgeBase({ store, embed }).search('llamas'))[0]?.title
}

describe('document pages', () => {
  it('page URLs replace any fragment; only #page=n names a page', async () => {
    const pages = Array.from({ length: 7 }, (_, i) => `page ${i + 1}`)
    const passages = await documentPassages(doc(pages, 'https://example.org/a.pdf#intro'), 'q', 1000)
    expect(passages.find((p) => p.page === 7)?.url).toBe('https://example.org/a.pdf#page=7')
    expect(await titleOfHit('https://example.org/a.pdf#page=7')).toBe('A › page 7')
    expect(await titleOfHit('https://example.org/a.pdf#page=0')).toBe('A')
    expect(await titleOfHit('https://example.org/a.pdf#intro')).toBe('A')
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
  it('a page within the budget is shown whole: a web page as one passage, a document page by page', async () => {
    expect(await documentPassages({ url: 'https://example.org/', text: '  First sentence. Second sentence.\n' }, 'q', 100)).toEqual([
      { url: 'https://example.org/', text: 'First sentence. Second sentence.' },
    ])
    expect(await documentPassages(doc(['one', '', 'three']), 'q', 100)).toEqual([
      { url: 'https://example.org/paper.pdf#page=1', page: 1, text: 'one' },
      { url: 'https://example.org/paper.pdf#page=3', page: 3, text: 'three' },
    ])
  })

  it('a long web page shows the paragraph that matches, far past its start, under its heading, with marks where text was left out', async () => {
    const filler = (n: number) => `Paragraph ${n} says nothing of interest about the weather or the season.`
    const body = Array.from({ length: 200 }, (_, i) => filler(i))
    body.splice(150, 0, '## Grazing', 'Llamas hum when they are anxious, and graze on the high puna.')
    const page = { url: 'https://example.org/llamas', text: `# Llamas\n\n${body.join('\n\n')}` }
    expect(page.text.indexOf('Llamas hum')).toBeGreaterThan(10_000)
    const passages = await documentPassages(page, 'why do llamas hum', 1000)
    expect(passages).toHaveLength(1)
    expect(passages[0]?.url).toBe('https://example.org/llamas')
    expect(passages[0]?.text).toContain('## Grazing\n\nLlamas hum when they are anxious')
    expect(passages[0]?.text.startsWith(`# Llamas\n\n`) || passages[0]?.text.startsWith(OMITTED)).toBe(true)
    expect(passages[0]?.text).toContain(OMITTED)
    expect(shownChars(passages)).toBeLessThanOrEqual(1000)
  })

  it('a document gives its best-matching pages within the budget, in page order, each at its page URL', async () => {
    const filler = 'Nothing of interest here at all. '.repeat(8).trim()
    const paper = doc([filler, 'Llamas hum. Llamas hum when anxious.', filler, 'Why llamas hum: a note.', filler])
    const passages = await documentPassages(paper, 'why do llamas hum', 300)
    // Pages 2 and 4 match; no other window fits in what is left.
    expect(passages.map((p) => p.page)).toEqual([2, 4])
    expect(passages[0]).toEqual({ url: 'https://example.org/paper.pdf#page=2', page: 2, text: 'Llamas hum. Llamas hum when anxious.' })
    expect(shownChars(passages)).toBeLessThanOrEqual(300)
  })

  it('the part of a page that matches, not the page from its start', async () => {
    const before = Array.from({ length: 12 }, (_, i) => `Sentence ${i} of the method section describes the corpus in general terms.`).join(' ')
    const paper = doc(['A title page about information extraction.', `${before} The metaclusters obtained are shown in the tables below.`])
    const passages = await documentPassages(paper, 'metaclusters obtained tables', 400)
    expect(passages.map((p) => p.page)).toContain(2)
    expect(passages.find((p) => p.page === 2)?.text).toContain('The metaclusters obtained are shown in the tables below.')
  })

  it('with nothing matching, the page from its start', async () => {
    expect((await documentPassages(doc(['a b c', 'd e f', 'g h i']), 'zebra', 12)).map((p) => p.page)).toEqual([1, 2])
  })

  it('ranks a large page a slice at a time, letting other work run before it answers', async () => {
    const paragraph = (n: number) => `Paragraph ${n} of a long page says little about llamas or anything else.`
    const text = Array.from({ length: 4000 }, (_, i) => paragraph(i)).join('\n\n')
    expect(text.length).toBeGreaterThan(250_000)
    let ranMeanwhile = false
    setImmediate(() => {
      ranMeanwhile = true
    })
    const passages = await documentPassages({ url: 'https://example.org/long', text }, 'llamas', 1000)
    expect(ranMeanwhile).toBe(true)
    expect(shownChars(passages)).toBeLessThanOrEqual(1000)
  })

  it('a budget smaller than a window shows the start of the best one', async () => {
    const page = { url: 'https://example.org/', text: `${'Filler words go here. '.repeat(20)}\n\nLlamas hum when anxious. They hum softly and often.` }
    const passages = await documentPassages(page, 'llamas hum', 30)
    expect(passages).toEqual([{ url: 'https://example.org/', text: 'Llamas hum when anxious.' }])
  })
})

describe('chooseWindows', () => {
  it('takes the best first, fills while it fits, returns reading order, and tries a pinned one first', () => {
    const lengths = [5, 5, 5, 5]
    const fits = (chosen: readonly number[]) => chosen.reduce((sum, i) => sum + (lengths[i] ?? 0), 0) <= 10
    expect(chooseWindows([0, 3, 1, 2], fits)).toEqual([1, 3])
    expect(chooseWindows([0, 3, 1, 2], fits, 0)).toEqual([0, 1])
    expect(chooseWindows([0, 0, 0, 0], fits)).toEqual([0, 1])
  })
})

describe('documentPassages properties', () => {
  const word = fc.constantFrom(
    'llama',
    'alpaca',
    'river',
    'glacier',
    'the',
    'of',
    'hum',
    'quiet',
    'andes',
    'wool',
    'vicuña',
    'graze',
    'a',
    'is',
    '2024',
    'peak',
  )
  const sentence = fc.array(word, { minLength: 3, maxLength: 14 }).map((words) => `${words.join(' ')}.`)
  const block = fc.oneof(
    { weight: 5, arbitrary: fc.array(sentence, { minLength: 1, maxLength: 12 }).map((s) => s.join(' ')) },
    { weight: 1, arbitrary: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => `## ${w.join(' ')}`) },
  )
  const pageText = fc.array(block, { minLength: 1, maxLength: 30 }).map((blocks) => blocks.join('\n\n'))
  const page = fc.oneof(
    pageText.map((text) => ({ url: 'https://example.org/page', text }) as { url: string; text: string; pageStarts?: number[] }),
    fc.array(pageText, { minLength: 1, maxLength: 6 }).map((pages) => doc(pages) as { url: string; text: string; pageStarts?: number[] }),
  )
  const query = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join(' '))
  const budget = fc.integer({ min: 0, max: 6000 })

  it('never shows more than the budget; every shown stretch lies, in reading order, in the place it cites', async () => {
    await fc.assert(
      fc.asyncProperty(page, query, budget, async (read, q, maxChars) => {
        const passages = await documentPassages(read, q, maxChars)
        expect(shownChars(passages)).toBeLessThanOrEqual(maxChars)
        let lastPage = 0
        for (const passage of passages) {
          if (read.pageStarts) {
            // A document's passage cites its page: the document's URL with #page=n.
            expect(passage.url).toBe(`${read.url}#page=${passage.page}`)
            expect(passage.page!).toBeGreaterThan(lastPage)
            lastPage = passage.page!
          } else {
            expect(passage.url).toBe(read.url)
            expect(passage.page).toBeUndefined()
          }
          const holder = placeText(read, passage)
          let from = 0
          for (const part of segments(passage)) {
            const at = holder.indexOf(part, from)
            expect(at, `${JSON.stringify(part)} in ${passage.url}`).toBeGreaterThanOrEqual(0)
            from = at + part.length
          }
        }
      }),
      { numRuns: 200 },
    )
  })

  it('the best-scoring window is always shown whole', async () => {
    await fc.assert(
      fc.asyncProperty(page, query, fc.integer({ min: 900, max: 6000 }), async (read, q, maxChars) => {
        if (read.text.trim().length <= maxChars) return
        const places = read.pageStarts ? documentPages(read) : [{ page: 0, text: read.text }]
        const windows = places.flatMap((place) =>
          textWindows(place.text, Math.min(WINDOW_CHARS, maxChars - 10)).map((w) => {
            const own = place.text.slice(w.start, w.end)
            return { own, ranked: w.headings.length ? `${w.headings.join('\n')}\n${own}` : own }
          }),
        )
        const scores = rankTexts(
          q,
          windows.map((w) => w.ranked),
        )
        const best = windows[scores.indexOf(Math.max(...scores))]!
        const shown = (await documentPassages(read, q, maxChars)).map((p) => p.text).join('\n\n')
        expect(shown).toContain(best.own)
      }),
      { numRuns: 200 },
    )
  })
})

describe('textWindows', () => {
  it('gives windows in order, apart, each within the limit and made of trimmed pieces of the text that lie inside it', () => {
    const line = fc.oneof(fc.string({ maxLength: 160 }), fc.constantFrom('', '# Title', '## Sub', '```', 'word word word. More words here.', '\r', '  '))
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), fc.integer({ min: 50, max: 900 }), (lines, eol, max) => {
        const text = lines.join(eol)
        let end = 0
        for (const window of textWindows(text, max)) {
          expect(window.start).toBeGreaterThanOrEqual(end)
          expect(window.end - window.start).toBeLessThanOrEqual(max)
          expect(window.pieces[0]?.start).toBe(window.start)
          expect(window.pieces.at(-1)?.end).toBe(window.end)
          for (const piece of window.pieces) {
            const own = text.slice(piece.start, piece.end)
            expect(own.length).toBeGreaterThan(0)
            expect(own).toBe(own.trim())
          }
          if (window.headingLine) expect(text.slice(window.headingLine.start, window.headingLine.end)).toMatch(/^\s{0,3}#{1,6}\s/)
          end = window.end
        }
      }),
    )
  })
})
