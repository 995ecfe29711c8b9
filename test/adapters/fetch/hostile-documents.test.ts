/**
 * Issue 26: a PDF is untrusted input. Bombs (deep nesting, a huge page count, a stream that
 * inflates to gigabytes), a 200 MB download, a slow drip and a cut connection each end with a
 * typed outcome; the parse runs off the main thread (the event loop turns meanwhile: asserted
 * by event order, not by the clock), within its budget, and an abort ends it at once.
 */
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import { pdfText } from '../../../src/node/document-text.js'
import { buildPdf, stream, textPdf, zeroBomb } from '../../support/make-pdf.js'
import { deflatedEntry, docxArchive, docxBomb, documentXml } from '../../support/make-zip.js'
import { pendingAfterALoopTurn } from '../../support/loop-turn.js'
import { loopbacks } from '../http/loopback.js'
import { deliverOnce, pageHost } from './served.js'

const serve = loopbacks()
const local = { allowPrivateNetwork: true, maxRetries: 0 }
const host = pageHost()
const PDF = 'application/pdf'
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
/** `body` served as `type` and read by httpFetch, with a minute to read it unless `options` say otherwise. */
const readServed = (type: string, body: Uint8Array, options: Parameters<typeof httpFetch>[0] = {}) =>
  httpFetch({ ...local, documentTimeoutMs: 60_000, ...options }).fetch(host.at({ type, body }))
const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
const onePage = (pageEntries: string, content: Uint8Array | string) =>
  buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> ${pageEntries}>>`,
    typeof content === 'string' ? stream(content) : content,
    font,
  ])
const book = (pages: number) =>
  textPdf(Array.from({ length: pages }, (_, i) => Array.from({ length: 40 }, (_, line) => `Page ${i + 1}, line ${line + 1}: words of an ordinary report.`)))

describe('hostile documents', () => {
  it('a 100-page PDF is read off the main thread: the event loop turns while it is parsed', { timeout: 120_000 }, async () => {
    // A small document first, so the reader's thread is up: no I/O comes before the parse.
    const warm = deliverOnce(textPdf([['warm']]), PDF)
    await httpFetch({ resolveHost: warm.resolveHost, fetch: warm.fetch, maxRetries: 0 }).fetch('http://docs.test/warm.pdf')
    const { fetch, delivered, resolveHost } = deliverOnce(book(100), PDF)
    const reading = httpFetch({ resolveHost, fetch, maxRetries: 0, documentTimeoutMs: 60_000 }).fetch('http://docs.test/book.pdf')
    // The whole body is read: what is left is the parse.
    await delivered
    expect(await pendingAfterALoopTurn(reading)).toBe(true)
    const page = await reading
    expect(page).toMatchObject({ pages: 100 })
    expect(page.pageStarts).toHaveLength(100)
  })

  it('deeply nested objects: the page is skipped with a document-unreadable warning', { timeout: 60_000 }, async () => {
    const deep = `/Deep ${'['.repeat(200_000)}${']'.repeat(200_000)} `
    const page = await readServed(PDF, onePage(deep, 'BT /F1 11 Tf 72 720 Td (deep) Tj ET'))
    expect(page.text).toBe('')
    expect(page.warnings).toEqual([{ code: 'document-unreadable', message: 'page(s) 1 could not be read and were skipped' }])
  })

  it('a huge page count: pages past the limit are left out with a document-limit warning', { timeout: 60_000 }, async () => {
    const count = 200_000
    const file = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${'3 0 R '.repeat(count)}] /Count ${count} >>`,
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      stream('BT /F1 11 Tf 72 720 Td (the same page) Tj ET'),
      font,
    ])
    const page = await readServed(PDF, file, { maxDocumentPages: 3 })
    expect(page).toMatchObject({ pages: count, text: 'the same page\n\nthe same page\n\nthe same page' })
    expect(page.warnings).toEqual([{ code: 'document-limit', message: `it has ${count} pages, more than the 3 read; pages 4–${count} were left out` }])
  })

  it('a stream that inflates to 2 GiB ends within the time budget with document-unreadable, and the next document is read', { timeout: 120_000 }, async () => {
    const file = onePage('', stream(await zeroBomb(128), '/Filter /FlateDecode '))
    expect(file.length).toBeLessThan(3_000_000)
    await expect(readServed(PDF, file, { documentTimeoutMs: 2_000 })).rejects.toMatchObject({
      code: 'document-unreadable',
      message: expect.stringContaining('not done within 2000 ms'),
    })
    expect((await readServed(PDF, textPdf([['after']]))).text).toBe('after')
  })

  it('a DOCX whose document.xml declares 1.5 GiB is refused before anything inflates it', { timeout: 60_000 }, async () => {
    const bomb = await docxBomb(1536)
    expect(bomb.length).toBeLessThan(2_000_000)
    await expect(readServed(DOCX, bomb)).rejects.toMatchObject({
      code: 'document-unreadable',
      message: expect.stringContaining(
        'the DOCX was not opened: its parts would inflate to 1536 MiB, more than the 64 MiB read from one document (a zip bomb?)',
      ),
    })
  })

  it('a DOCX part that inflates to more than it declares is refused, zlib stopping at the declared size', { timeout: 60_000 }, async () => {
    const bomb = await docxBomb(100, { declaredSize: 1_000 })
    await expect(readServed(DOCX, bomb)).rejects.toMatchObject({
      code: 'document-unreadable',
      message: expect.stringContaining('its part word/document.xml inflates to more than the 1000 bytes it declares (a zip bomb?)'),
    })
    // An honest one of the same shape is read.
    const page = await readServed(DOCX, docxArchive(deflatedEntry('word/document.xml', documentXml('Kelp shelters otters.'))))
    expect(page.text).toBe('Kelp shelters otters.')
  })

  it("a stream that inflates to 512 MiB is stopped by the thread's buffer cap, not by the clock: the page is skipped as a bomb", {
    timeout: 180_000,
  }, async () => {
    const file = onePage('', stream(await zeroBomb(32), '/Filter /FlateDecode '))
    // A budget no loaded machine reaches: what ends the read is the cap on buffers.
    const page = await readServed(PDF, file, { documentTimeoutMs: 150_000 })
    expect(page.text).toBe('')
    expect(page.warnings).toEqual([
      { code: 'document-unreadable', message: 'page(s) 1 inflate past the bytes one document may hold (a decompression bomb?) and were skipped' },
    ])
  })

  it('pages not started within the soft budget are left out, and what was read is kept', { timeout: 60_000 }, async () => {
    // The reader itself (as the worker runs it), with no time left: no page is started, yet the
    // document ends with a page. (Through the pool the hard budget would race it.)
    const read = await pdfText(book(3), { maxPages: 300, maxChars: 1_000_000, softTimeoutMs: 0 })
    expect(read).toMatchObject({
      text: '',
      pages: 3,
      notices: [{ code: 'document-limit', message: 'it was still being read after 0 ms; pages 1–3 were left out' }],
    })
  })

  it('an abort ends a parse in progress at once', { timeout: 60_000 }, async () => {
    const controller = new AbortController()
    const { fetch, delivered, resolveHost } = deliverOnce(onePage('', stream(await zeroBomb(128), '/Filter /FlateDecode ')), PDF)
    const reading = httpFetch({ resolveHost, fetch, maxRetries: 0, documentTimeoutMs: 60_000 }).fetch('http://docs.test/bomb.pdf', {
      signal: controller.signal,
    })
    // The body is in: the abort lands on the parse.
    await delivered
    setImmediate(() => controller.abort())
    await expect(reading).rejects.toMatchObject({ code: 'aborted' })
  })

  it('a 200 MB Content-Length is refused before the body is downloaded', { timeout: 30_000 }, async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(200_000_000) })
      res.write('%PDF-1.7\n')
    })
    await expect(httpFetch(local).fetch(`${server.url}/huge.pdf`)).rejects.toMatchObject({
      code: 'document-too-large',
      message: expect.stringContaining('200000000 bytes'),
    })
    await server.closedEarly
  })

  it('a PDF cut at the byte cap is read as far as it goes, with a document-truncated outcome', { timeout: 60_000 }, async () => {
    const file = book(30)
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      res.end(file)
    })
    const cap = Math.floor(file.length / 2)
    const outcome = await httpFetch({ ...local, maxDocumentBytes: cap })
      .fetch(`${url}/cut.pdf`)
      .then(
        (page) => page.warnings?.map((w) => w.code),
        (error: { code: string }) => [error.code],
      )
    expect(outcome).toContain('document-truncated')
  })

  it('a connection dropped midway: what arrived is parsed, the outcome says the download was cut', { timeout: 60_000 }, async () => {
    const file = book(10)
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(file.length) })
      res.write(file.subarray(0, Math.floor(file.length * 0.6)), () => res.destroy())
    })
    const outcome = await httpFetch(local)
      .fetch(`${url}/dropped.pdf`)
      .then(
        (page) => page.warnings ?? [],
        (error: { code: string; message: string }) => [error],
      )
    expect(outcome).toContainEqual(expect.objectContaining({ code: 'document-truncated', message: expect.stringContaining('the download stopped after') }))
  })

  it('a slow-drip PDF is cut off at the total deadline with a typed outcome', { timeout: 60_000 }, async () => {
    const file = book(2)
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' })
      let at = 0
      const timer = setInterval(() => {
        res.write(file.subarray(at, at + 16))
        at += 16
      }, 10)
      res.on('close', () => clearInterval(timer))
    })
    // The idle timeout never trips (a byte every 10 ms): only the total deadline ends it.
    const code = await httpFetch({ ...local, timeoutMs: 5_000, totalTimeoutMs: 300 })
      .fetch(`${url}/drip.pdf`)
      .then(
        () => 'read',
        (error: { code: string }) => error.code,
      )
    // Cut before any byte arrived, the fetch timed out; after, what arrived was too little to read.
    expect(['timeout', 'document-truncated']).toContain(code)
  })
})
