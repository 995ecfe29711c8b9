/**
 * Issue 38: a read page carries the date it says it was published (`FetchedPage.published`).
 * Real saved articles from trafilatura's test cache (test/fixtures/pages, with their provenance)
 * give each kind of markup a publisher uses; a PDF gives its CreationDate. Each is served from a
 * loopback server and read with `httpFetch`, where the extraction runs on its worker thread.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import { textPdf } from '../../support/make-pdf.js'
import { pageHost } from './served.js'

const pages = new URL('../../fixtures/pages/', import.meta.url)
const saved = (file: string) => readFileSync(new URL(file, pages), 'utf8')
const host = pageHost()
// A minute to read a page or a document: on a loaded machine a large one may take seconds, and
// running out of time is a fallback of its own (extraction-fallback.test.ts), not what is tested here.
const fetcher = httpFetch({ allowPrivateNetwork: true, maxRetries: 0, extractTimeoutMs: 60_000, documentTimeoutMs: 60_000 })
/** The date httpFetch gives a page served as HTML (undefined when it gives none). */
const dateOf = async (html: string) => (await fetcher.fetch(host.at({ type: 'text/html; charset=utf-8', body: html }))).published
const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
/** A page whose only date is `value`, in a publication-date meta tag. */
const metaDated = (value: string) => `<html><head><meta property="article:published_time" content="${attribute(value)}"></head><body><p>Text.</p></body></html>`

/** A one-page PDF whose Info dictionary has `/CreationDate <entry>` (`entry` as PDF source: `(D:2009)`, `42`). */
function pdfCreated(entry: string): Uint8Array {
  // Written over a title of the same length, so every offset in the file stays true.
  const placeholder = 'T'.repeat(entry.length + 10)
  const file = new TextDecoder('latin1').decode(textPdf([['Dated text.']], { title: placeholder }))
  const title = `/Title (${placeholder})`
  const created = `/CreationDate ${entry}`.padEnd(title.length, ' ')
  return Uint8Array.from(file.replace(title, created), (c) => c.charCodeAt(0))
}
const pdfDateOf = async (entry: string) => (await fetcher.fetch(host.at({ type: 'application/pdf', body: pdfCreated(entry) }))).published

describe('a saved page says when it was published', () => {
  // Each page's date as its markup states it; the first source (in the reader's order) that says.
  const dated: [file: string, published: string, where: string][] = [
    ['en.wikipedia.org.tsne.html', '2013-06-23', 'JSON-LD datePublished'],
    ['github.blog.spiceland.html', '2019-03-29', 'JSON-LD, in an @graph'],
    ['spiegel.de.albtraum.html', '2018-12-22', 'JSON-LD with an offset written +0100'],
    ['rechtambild.de.kochbuch.html', '2011-10-16', 'JSON-LD'],
    ['kulu-media.com.meta-outage.html', '2026-06-12', 'JSON-LD'],
    ['nationalgeographic.co.uk.goats.html', '2020-01-03', 'JSON-LD'],
    ['stackoverflow.com.rust.html', '2020-01-20', 'article:published_time (its sidebar dates other posts)'],
    ['pluralsight.com.python.html', '2020-01-10', 'article:published_time'],
    ['nature.com.telescope.html', '2019-09-24', 'dc.date (its microdata date is prose)'],
    ['laviedesidees.fr.evaluation.html', '2009-09-15', 'DC:date'],
    ['ndr.de.podcastcoronavirus140.html', '2020-03-18', 'microdata datePublished'],
  ]
  it.each(dated)('%s: %s (%s)', async (file, published) => {
    expect(await dateOf(saved(file))).toBe(published)
  })

  it.each(['dw.com.colonial.html', 'dw.com.uncork.html', 'gregoryszorc.com.python3.html', 'moritz-meyer.net.vreni.html'])(
    '%s states no date a reader can trust: none is made up',
    async (file) => {
      expect(await fetcher.fetch(host.at({ type: 'text/html; charset=utf-8', body: saved(file) }))).not.toHaveProperty('published')
    },
  )
})

describe('where a page states its date', () => {
  it('a <time datetime> in the article, not one in a list of other posts', async () => {
    const html = (article: string) =>
      `<html><body><aside><time datetime="2001-01-01">old post</time></aside><article><h1>T</h1>${article}<p>Text.</p></article></body></html>`
    expect(await dateOf(html('<p>Posted <time datetime="2022-07-04T10:00">4 July</time></p>'))).toBe('2022-07-04')
    expect(await dateOf(html('<p>Posted last week</p>'))).toBeUndefined()
  })

  it('JSON-LD first, then the meta tags in their order, then microdata; a malformed or undated source is passed over', async () => {
    const page = (head: string, body = '') => `<html><head>${head}</head><body>${body}<p>Text.</p></body></html>`
    const ld = (value: string) => `<script type="application/ld+json">${value}</script>`
    expect(
      await dateOf(
        page(
          `${ld('{"@graph": [{"@type": "WebSite"}, {"@type": "Article", "datePublished": "2021-02-03"}]}')}<meta property="article:published_time" content="2020-01-01">`,
        ),
      ),
    ).toBe('2021-02-03')
    expect(await dateOf(page(`${ld('{not json')}${ld('{"datePublished": "yesterday"}')}<meta property="article:published_time" content="2020-01-01">`))).toBe(
      '2020-01-01',
    )
    expect(await dateOf(page('<meta name="dc.date" content="2018-05-05"><meta name="citation_publication_date" content="2019/3/7">'))).toBe('2019-03-07')
    expect(await dateOf(page('<meta property="og:published_time" content="2017-13-01">', '<span itemprop="datePublished" content="2016-02-29"></span>'))).toBe(
      '2016-02-29',
    )
    expect(await dateOf(page('<meta name="description" content="2019-01-01">'))).toBeUndefined()
  })

  it('reads a hostile page within bounds: a huge or deeply nested JSON-LD gives nothing, and no error', async () => {
    let deep = '{"datePublished": "2020-01-01"}'
    for (let i = 0; i < 50; i++) deep = `{"@graph": [${deep}]}`
    expect(await dateOf(`<html><head><script type="application/ld+json">${deep}</script></head><body></body></html>`)).toBeUndefined()
    const huge = `{"x": "${'a'.repeat(300_000)}", "datePublished": "2020-01-01"}`
    expect(await dateOf(`<html><head><script type="application/ld+json">${huge}</script></head><body></body></html>`)).toBeUndefined()
  })
})

describe('a stated date, read strictly', () => {
  it('gives a real day, month or year, or nothing, for any value a page states', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom('2024-02-30', '2023-02-29', '0999-01-01'),
        ),
        async (value) => {
          const day = await dateOf(metaDated(value))
          if (day === undefined) return
          expect(day).toMatch(/^\d{4}(-\d{2}(-\d{2})?)?$/)
          if (day.length === 10) expect(new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10)).toBe(day)
        },
      ),
    )
  })

  it('keeps the date as the page writes it, whatever the time and zone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.date({ min: new Date('1000-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        fc.constantFrom('Z', '+05:30', '-0800', ''),
        async (date, zone) => {
          const iso = date.toISOString()
          expect(await dateOf(metaDated(`${iso.slice(0, 19)}${zone}`))).toBe(iso.slice(0, 10))
        },
      ),
    )
  })

  it('reads a PDF date with or without its D: prefix', { timeout: 60_000 }, async () => {
    expect(await pdfDateOf("(D:20060414165500+00'00')")).toBe('2006-04-14')
    expect(await pdfDateOf('(20260413172101)')).toBe('2026-04-13')
    expect(await pdfDateOf('(D:2009)')).toBe('2009')
    expect(await pdfDateOf('(D:20091399)')).toBeUndefined()
    expect(await pdfDateOf('42')).toBeUndefined()
  })
})

describe('through httpFetch, on its worker threads', () => {
  it('a page read on the extraction thread carries its date', async () => {
    expect(await fetcher.fetch(host.at({ type: 'text/html; charset=utf-8', body: saved('github.blog.spiceland.html') }, '/post'))).toMatchObject({
      published: '2019-03-29',
    })
  })

  it("a paper's PDF carries its CreationDate", { timeout: 60_000 }, async () => {
    const bytes = new Uint8Array(readFileSync(new URL('../../fixtures/documents/papers/naacl06-shinyama.pdf', import.meta.url)))
    const page = await httpFetch({ allowPrivateNetwork: true, maxRetries: 0, documentTimeoutMs: 60_000, maxDocumentPages: 2, maxDocumentChars: 10_000 }).fetch(
      host.at({ type: 'application/pdf', body: bytes }, '/naacl06.pdf'),
    )
    expect(page).toMatchObject({ kind: 'pdf', published: '2006-04-14' })
  })
})
