import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { decodeBody, detectCharset } from '../../../src/adapters/fetch/charset.js'
import { contentKind } from '../../../src/documents/content-kind.js'
import { parseHtml } from '../../../src/adapters/fetch/dom.js'
import { htmlToText } from '../../../src/adapters/fetch/html-text.js'
import { readableText } from '../../../src/adapters/fetch/readable-text.js'

const bytes = (text: string) => new TextEncoder().encode(text)
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

describe('readableText and htmlToText', () => {
  it('never throw, whatever the HTML', async () => {
    await fc.assert(
      fc.asyncProperty(htmlish, async (html) => {
        const page = await readableText(html)
        expect(typeof page.text).toBe('string')
        if (page.title !== undefined) expect(page.title).not.toBe('')
      }),
      { numRuns: 200 },
    )
  })

  it('reads fragments and pages whose <html> is only mentioned', async () => {
    expect(await readableText('<!-- <html> --><p>Hello <b>there</b></p>')).toEqual({ text: 'Hello there' })
    expect(await readableText('plain words')).toEqual({ text: 'plain words' })
    expect(await readableText('')).toEqual({ text: '' })
  })

  it('keeps structure: headings, list items, paragraphs, preformatted text', async () => {
    const document = await parseHtml(
      '<h1>Top</h1><p>One <b>two</b>\n three</p><h3><span>Deep</span></h3><ul><li>a</li><li>b</li></ul><pre>  x\n    y</pre><script>no()</script>',
    )
    expect(htmlToText(document.body)).toBe('# Top\n\nOne two three\n\n### Deep\n\n- a\n\n- b\n\n  x\n    y')
  })

  it('survives very deep nesting', async () => {
    const document = await parseHtml(`${'<div>'.repeat(5000)}deep${'</div>'.repeat(5000)}`)
    expect(htmlToText(document.body)).toBe('deep')
  })
})

describe('contentKind', () => {
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
  ])('%s is %s', (type, kind) => {
    expect(contentKind(type, new Uint8Array())).toBe(kind)
  })

  it('knows a PDF by its signature when the type is missing, says nothing, or claims text', () => {
    const pdf = bytes('%PDF-1.7\n%\xe2\xe3')
    for (const type of [null, 'application/octet-stream', 'text/html', 'text/plain; charset=utf-8']) expect(contentKind(type, pdf)).toBe('pdf')
    // Within the first kilobyte, after junk; not later, and not as an image.
    expect(contentKind(null, bytes(`${' '.repeat(500)}%PDF-1.4`))).toBe('pdf')
    expect(contentKind('application/octet-stream', bytes(`${'x'.repeat(2000)}%PDF-1.4`))).toBeUndefined()
    expect(contentKind('image/png', pdf)).toBeUndefined()
  })

  it('takes an undeclared zip for a DOCX only when its name says so', () => {
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00])
    expect(contentKind('application/octet-stream', zip, 'https://example.org/files/report.docx?v=2')).toBe('docx')
    expect(contentKind(null, zip, 'https://example.org/files/report.DOCX')).toBe('docx')
    expect(contentKind('application/octet-stream', zip, 'https://example.org/files/archive.zip')).toBeUndefined()
  })

  it('sniffs the first bytes when no type is declared', () => {
    expect(contentKind(null, bytes('  <!doctype html>'))).toBe('html')
    expect(contentKind(null, bytes('{"a":1}'))).toBe('json')
    expect(contentKind(null, bytes('hello'))).toBe('text')
    expect(contentKind(null, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00]))).toBeUndefined()
  })

  it('never throws', () => {
    fc.assert(fc.property(fc.option(fc.string()), fc.uint8Array(), fc.string(), (type, head, url) => void contentKind(type, head, url)))
  })
})

describe('charset', () => {
  it('prefers the byte-order mark, then the header, then a meta tag, else UTF-8', () => {
    expect(detectCharset('text/html; charset=iso-8859-1', new Uint8Array([0xef, 0xbb, 0xbf]), true)).toBe('utf-8')
    expect(detectCharset('text/html; charset="Shift_JIS"', bytes('<meta charset="utf-8">'), true)).toBe('shift_jis')
    expect(detectCharset('text/html', bytes('<meta charset=koi8-r>'), true)).toBe('koi8-r')
    expect(detectCharset('text/html', bytes('<meta charset="utf-16">'), true)).toBe('utf-8')
    expect(detectCharset('text/plain', bytes('<meta charset=koi8-r>'), false)).toBe('utf-8')
    expect(detectCharset('text/html; charset=bogus', bytes(''), true)).toBe('utf-8')
  })

  it('decodes windows-1252 per the Encoding standard, control range included', () => {
    expect(decodeBody(new Uint8Array([0x80, 0x93, 0x41, 0x94, 0x9f, 0x81, 0xe9]), 'windows-1252')).toBe('€“A”Ÿ\u0081é')
  })

  it('never throws', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.uint8Array({ maxLength: 2000 }), fc.boolean(), (type, body, html) => {
        decodeBody(body, detectCharset(type, body, html))
      }),
    )
  })
})
