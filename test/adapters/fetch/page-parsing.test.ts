/**
 * How `httpFetch` turns the bytes a server sends into text: what kind of body it is (from its
 * `content-type` and its first bytes), which character encoding it uses, and the structured text
 * of an HTML page. Each page is served as is from a loopback server, as a user's fetch meets it.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import { ProviderError, type FetchedPage } from '../../../src/index.js'
import { textPdf } from '../../support/make-pdf.js'
import { pageHost } from './served.js'

const host = pageHost()
// A minute to read a page or a document: on a loaded machine a large one may take seconds, and
// running out of time is a fallback of its own (extraction-fallback.test.ts), not what is tested here.
const fetcher = httpFetch({ allowPrivateNetwork: true, maxRetries: 0, extractTimeoutMs: 60_000, documentTimeoutMs: 60_000 })
const bytes = (text: string) => new TextEncoder().encode(text)
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]))
const read = (type: string | undefined, body: string | Uint8Array, path?: string) => fetcher.fetch(host.at({ type, body }, path))

const htmlish = fc.oneof(
  fc.string(),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '<p>',
          '</p>',
          '<h2>',
          '<li>',
          '<pre>',
          '</pre>',
          '<script>',
          '<title>',
          '<html>',
          '<body>',
          '<div>',
          '</div>',
          '&amp;',
          '&#x',
          '<br>',
          '<!--',
          '<article>',
        ),
        fc.string(),
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join('')),
)

describe('an HTML page as text', () => {
  it('is read whatever the HTML: a string of text, and a title only when there is one', async () => {
    await fc.assert(
      fc.asyncProperty(htmlish, async (html) => {
        const page = await read('text/html; charset=utf-8', html)
        expect(typeof page.text).toBe('string')
        if (page.title !== undefined) expect(page.title).not.toBe('')
      }),
      { numRuns: 200 },
    )
  })

  it('reads fragments and pages whose <html> is only mentioned', async () => {
    const fragment = host.at({ type: 'text/html', body: '<!-- <html> --><p>Hello <b>there</b></p>' })
    expect(await fetcher.fetch(fragment)).toEqual({ url: fragment, text: 'Hello there' })
    const words = host.at({ type: 'text/html', body: 'plain words' })
    expect(await fetcher.fetch(words)).toEqual({ url: words, text: 'plain words' })
    const empty = host.at({ type: 'text/html', body: '' })
    expect(await fetcher.fetch(empty)).toEqual({ url: empty, text: '' })
  })

  it('keeps structure: headings, list items, paragraphs, preformatted text', async () => {
    // 20,000 empty inline elements put the page over the element limit, so its whole text is
    // kept as written (Readability would pick an article and rewrite its headings).
    const page = await read(
      'text/html',
      `<h1>Top</h1><p>One <b>two</b>\n three</p><h3><span>Deep</span></h3><ul><li>a</li><li>b</li></ul><pre>  x\n    y</pre>${'<i></i>'.repeat(20_000)}<script>no()</script>`,
    )
    expect(page.fallback).toMatch(/more than 20000 elements/)
    expect(page.text).toBe('# Top\n\nOne two three\n\n### Deep\n\n- a\n\n- b\n\n  x\n    y')
  })

  it('survives very deep nesting', async () => {
    // Over the element limit, as above: the whole-page text walks all 5,000 levels.
    const page = await read('text/html', `${'<div>'.repeat(5000)}deep${'</div>'.repeat(5000)}${'<i></i>'.repeat(15_001)}`)
    expect(page.fallback).toMatch(/more than 20000 elements/)
    expect(page.text).toBe('deep')
  })
})

describe('what kind of body it is', () => {
  const markup = '<p>a &amp; b</p>'
  const paper = textPdf([['A paper about llamas']])
  const docx = new Uint8Array(readFileSync(new URL('../../fixtures/documents/docx/tables.docx', import.meta.url)))

  it.each([
    ['text/html; charset=utf-8', 'html'],
    ['application/xhtml+xml', 'html'],
    ['text/plain', 'text'],
    ['text/markdown', 'text'],
    ['application/json', 'json'],
    ['application/ld+json', 'json'],
    ['application/pdf', 'pdf'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
    ['image/png', undefined],
    ['application/octet-stream', undefined],
  ])('%s is %s', async (type, kind) => {
    if (kind === 'html') expect(await read(type, markup)).toMatchObject({ text: 'a & b' })
    // Text and JSON are read as they are (line ends made \n): a model reads them as sent.
    else if (kind === 'text' || kind === 'json') expect(await read(type, markup)).toMatchObject({ text: markup })
    else if (kind === 'pdf') expect(await read(type, paper)).toMatchObject({ kind: 'pdf', text: 'A paper about llamas' })
    else if (kind === 'docx') expect(await read(type, docx)).toMatchObject({ kind: 'docx', text: expect.stringContaining('Top left') })
    else await expect(read(type, 'hello')).rejects.toMatchObject({ code: 'unsupported-content' })
  })

  it('knows a PDF by its signature when the type is missing, says nothing, or claims text', { timeout: 60_000 }, async () => {
    for (const type of [undefined, 'application/octet-stream', 'text/html', 'text/plain; charset=utf-8']) {
      expect(await read(type, paper), String(type)).toMatchObject({ kind: 'pdf', text: 'A paper about llamas' })
    }
    // Within the first kilobyte, after junk; not later, and not as an image.
    expect(await read(undefined, concat(bytes(' '.repeat(500)), paper))).toMatchObject({ kind: 'pdf' })
    await expect(read('application/octet-stream', concat(bytes('x'.repeat(2000)), paper))).rejects.toMatchObject({ code: 'unsupported-content' })
    await expect(read('image/png', paper)).rejects.toMatchObject({ code: 'unsupported-content' })
  })

  it('takes an undeclared zip for a DOCX only when its name says so', { timeout: 60_000 }, async () => {
    expect(await read('application/octet-stream', docx, '/files/report.docx?v=2')).toMatchObject({ kind: 'docx' })
    expect(await read(undefined, docx, '/files/report.DOCX')).toMatchObject({ kind: 'docx' })
    await expect(read('application/octet-stream', docx, '/files/archive.zip')).rejects.toMatchObject({ code: 'unsupported-content' })
  })

  it('sniffs the first bytes when no type is declared', async () => {
    expect(await read(undefined, `  <!doctype html>${markup}`)).toMatchObject({ text: 'a & b' })
    expect(await read(undefined, '{"a":"<b>"}')).toMatchObject({ text: '{"a":"<b>"}' })
    expect(await read(undefined, 'hello')).toMatchObject({ text: 'hello' })
    await expect(read(undefined, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00]))).rejects.toMatchObject({ code: 'unsupported-content' })
  })

  it('ends as a page or a typed error, whatever the type, the bytes and the file name', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.string(), { nil: undefined }),
        fc.uint8Array({ maxLength: 2000 }),
        fc.stringMatching(/^(?:[\w-][\w.-]{0,19})?$/),
        async (type, body, name) => {
          const result = await fetcher.fetch(host.at({ type, body }, `/sniff-${++n}/${name}`)).catch((error: unknown) => error)
          if (result instanceof Error) expect(result).toBeInstanceOf(ProviderError)
          else expect(typeof (result as FetchedPage).text).toBe('string')
          // Served, not missed: the outcome is the body's.
          expect(result).not.toMatchObject({ code: 'not-found' })
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('which character encoding it uses', () => {
  it('prefers the byte-order mark, then the header, then a meta tag, else UTF-8', async () => {
    // A UTF-8 mark beats a header that says Latin-1.
    expect(await read('text/html; charset=iso-8859-1', concat(new Uint8Array([0xef, 0xbb, 0xbf]), bytes('<p>é</p>')))).toMatchObject({ text: 'é' })
    // The header beats a meta tag.
    expect(await read('text/html; charset="Shift_JIS"', concat(bytes('<meta charset="utf-8"><p>'), new Uint8Array([0x82, 0xa0, 0x82, 0xa2])))).toMatchObject({
      text: 'あい',
    })
    // A meta tag, when the header names none.
    expect(await read('text/html', concat(bytes('<meta charset=koi8-r><p>'), new Uint8Array([0xd0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4])))).toMatchObject({
      text: 'привет',
    })
    // A page readable as ASCII is not UTF-16, whatever its meta says.
    expect(await read('text/html', bytes('<meta charset="utf-16"><p>é</p>'))).toMatchObject({ text: 'é' })
    // Plain text has no meta tags.
    expect(await read('text/plain', bytes('<meta charset=koi8-r>é'))).toMatchObject({ text: '<meta charset=koi8-r>é' })
    expect(await read('text/html; charset=bogus', bytes('<p>é</p>'))).toMatchObject({ text: 'é' })
  })

  it('decodes windows-1252 per the Encoding standard, control range included', async () => {
    expect(await read('text/plain; charset=windows-1252', new Uint8Array([0x80, 0x93, 0x41, 0x94, 0x9f, 0x81, 0xe9]))).toMatchObject({ text: '€“A”Ÿ\u0081é' })
  })

  it('reads any body under any declared charset', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.uint8Array({ maxLength: 2000 }), fc.boolean(), async (charset, body, html) => {
        const type = `${html ? 'text/html' : 'text/plain'}; charset=${charset}`
        expect(typeof (await read(type, body)).text).toBe('string')
      }),
      { numRuns: 100 },
    )
  })
})
