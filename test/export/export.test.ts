import mammoth from 'mammoth'
import { extractText, getDocumentProxy } from 'unpdf'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toDOCX, toHTML, toMarkdown, toPDF } from '../../src/export/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'
import { findChromium } from '../support/find-chromium.js'
import type { Browser } from 'playwright-core'
import { reportResult } from './fixture.js'

describe('toMarkdown', () => {
  it('writes the title, the introduction, each section, the conclusion and the references in reading order', () => {
    const md = toMarkdown(reportResult())
    const order = [
      '# Tides',
      '## Introduction',
      '## Why tides rise',
      '## How often',
      '## Conclusion',
      '## References',
      '[1] Own <b>source</b>. https://own.example/a?x=1&y=2',
    ]
    let from = 0
    for (const part of order) {
      const at = md.indexOf(part, from)
      expect(at, part).toBeGreaterThanOrEqual(from)
      from = at
    }
  })

  it('writes a plain answer as itself, with its references', () => {
    const md = toMarkdown({ answer: 'Short [1].', citations: [{ index: 1, url: 'https://a.example/' }] })
    expect(md).toBe('# Answer\n\nShort [1].\n\n## References\n\n[1] https://a.example/\n')
  })
})

describe('toDOCX, read back through mammoth', () => {
  it('holds the headings, the text and the references', async () => {
    const bytes = await toDOCX(reportResult())
    const { value: html } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })
    expect(html).toContain('<h1>Why tides rise</h1>')
    expect(html).toContain('<h1>References</h1>')
    expect(html).toContain('The moon pulls the oceans [1].')
    // Text stays text: the hostile markup is escaped by the reader, never a tag.
    expect(html).not.toContain('<img')
    expect(html).toContain('href="https://own.example/a?x=1&amp;y=2"')
    expect(html).not.toContain('href="javascript:')
    const { value: text } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) })
    expect(text).toContain('[2] A hostile link. javascript:alert(1)')
  })
})

describe.skipIf(!browserAvailable('the report export browser tests (HTML, PDF)'))('toHTML in Chromium, toPDF through unpdf', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('shows a table of contents, links each [n] to its reference, and runs none of the text as markup', async () => {
    const page = await browser.newPage()
    await page.setContent(toHTML(reportResult()))
    expect(await page.title()).toBe('Tides & <script>window.pwned = 1</script> moons')
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined()
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('nav li a').allTextContents()).toEqual(['Introduction', 'Why tides rise', 'How often', 'Conclusion', 'References'])
    for (const href of await page.locator('nav a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))) {
      expect(await page.locator(href!).count(), href!).toBe(1)
    }
    const cites = await page.locator('a.cite').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]))
    expect(cites).toEqual([
      ['1', '#ref-1'],
      ['1', '#ref-1'],
      ['2', '#ref-2'],
      ['2', '#ref-2'],
      ['1', '#ref-1'],
    ])
    expect(await page.locator('#ref-1').textContent()).toBe('[1] Own <b>source</b>. https://own.example/a?x=1&y=2')
    expect(await page.locator('#ref-2 a').count()).toBe(0)
    expect(await page.locator('section', { hasText: 'How often' }).textContent()).toContain('An unknown number [9] stays as written.')
    // Print styles are there and apply.
    await page.emulateMedia({ media: 'print' })
    expect(await page.locator('nav').evaluate((nav) => getComputedStyle(nav).breakAfter)).toBe('page')
    await page.close()
  })

  it('prints a PDF whose text unpdf reads back', async () => {
    const lookup = findChromium()
    const bytes = await toPDF(reportResult(), lookup.found ? { executablePath: lookup.path } : {})
    const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true })
    for (const part of ['Why tides rise', 'The moon pulls the oceans', 'References', 'https://own.example/a?x=1&y=2']) expect(text).toContain(part)
  })
})

describe('toPDF without a browser', () => {
  it('fails with a config error suggesting HTML', async () => {
    await expect(toPDF(reportResult(), { executablePath: '/nonexistent/chromium' })).rejects.toThrow(/toHTML/)
  })
})
