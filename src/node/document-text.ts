/**
 * The text of a PDF or DOCX file, computed inside a worker thread of the extraction pool (see
 * `extract-worker.ts`), never on the main thread: a document is untrusted input, and PDF.js
 * can be kept busy for seconds by a hostile one. Bounded in pages, characters and time (the
 * pool terminates the thread at its budget; this stops starting pages a little before, so what
 * was read is kept). Every problem is a notice with a code, never a throw.
 */
import { sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { parseHTML as ParseHTML } from 'linkedom'
import { parseDocument } from '../adapters/fetch/extract.js'
import { htmlToText } from '../adapters/fetch/html-text.js'
import type { DocumentLimits, DocumentNotice, DocumentText } from '../documents/document-reading.js'
import { zipRefusal } from './zip-bounds.js'
import { pdfDate } from '../adapters/fetch/published-date.js'

/** Page numbers as a short list: `3, 4, 9` or `3, 4, 9 and 40 more`. */
function listPages(pages: readonly number[]): string {
  const shown = pages.slice(0, 10).join(', ')
  return pages.length > 10 ? `${shown} and ${pages.length - 10} more` : shown
}

/**
 * Characters a glyph without a Unicode mapping comes out as: control characters (a font's own
 * codes passed through), U+FFFD, and the private use area.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's job
const UNMAPPED = /[\u0000-\u0008\u000b-\u001f\ufffd\ue000-\uf8ff]/g

/** Control characters but tab and newline: never text, and they would reach a prompt. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's job
const CONTROL = /[\u0000-\u0008\u000b-\u001f]/g

/** Characters of a page's raw text that are not whitespace, and how many of them are unmapped glyphs. */
export function glyphCounts(raw: string): { glyphs: number; unmapped: number } {
  return { glyphs: raw.replace(/[\t\n\r\p{Zs}]/gu, '').length, unmapped: raw.match(UNMAPPED)?.length ?? 0 }
}

/** A page's text items as one string, line ends where PDF.js marks them. */
function rawPageText(items: readonly unknown[]): string {
  let raw = ''
  for (const item of items) {
    if (typeof item !== 'object' || item === null || !('str' in item)) continue
    const { str, hasEOL } = item as { str: string; hasEOL?: boolean }
    raw += str + (hasEOL ? '\n' : '')
  }
  return raw
}

/** A page's raw text as lines: control characters dropped, spaces and blank lines collapsed. */
function pageText(raw: string): string {
  return raw
    .replace(CONTROL, '')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

const errorName = (error: unknown): string => (typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '')
const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 200)

/**
 * PDF.js's predefined CMaps, shipped in the package (`assets/pdf-cmaps`, see its PROVENANCE.md):
 * a folder path ending in a separator, as PDF.js's Node reader wants it. This module sits at
 * the same depth under `src/` and `dist/`.
 */
function cMapFolder(): string {
  return fileURLToPath(new URL('../../assets/pdf-cmaps/', import.meta.url)).replace(/[\\/]?$/, sep)
}

/** What the thread's buffer cap (allocation-cap.ts) says when it stops an allocation. */
const OVER_BUFFER_CAP = /over the buffer cap/

export async function pdfText(bytes: Uint8Array, limits: DocumentLimits): Promise<DocumentText> {
  const started = performance.now()
  const { getDocumentProxy } = await import('unpdf')
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>
  try {
    // No eval (PDF.js compiles fonts with it otherwise), no fonts loaded, no console output.
    pdf = await getDocumentProxy(bytes, {
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      verbosity: 0,
      stopAtErrors: false,
      // Chinese, Japanese and Korean text in fonts that are not embedded maps to Unicode through these.
      cMapUrl: cMapFolder(),
      cMapPacked: true,
    })
  } catch (error) {
    const encrypted = errorName(error) === 'PasswordException'
    return {
      kind: 'pdf',
      text: '',
      notices: [],
      failure: encrypted
        ? { code: 'document-encrypted', message: 'the PDF is encrypted with a password; it cannot be read' }
        : { code: 'document-unreadable', message: `the PDF could not be opened (${errorMessage(error)})` },
    }
  }
  try {
    const notices: DocumentNotice[] = []
    const info = await pdf
      .getMetadata()
      .then(({ info }) => (info ?? {}) as { Title?: unknown; CreationDate?: unknown })
      .catch(() => ({}) as { Title?: unknown; CreationDate?: unknown })
    const title = typeof info.Title === 'string' ? info.Title.replace(/\s+/g, ' ').trim().slice(0, 300) : ''
    const published = pdfDate(info.CreationDate)
    const pages = pdf.numPages
    const last = Math.min(pages, limits.maxPages)
    const parts: string[] = []
    const pageStarts: number[] = []
    const empty: number[] = []
    const broken: number[] = []
    const bombs: number[] = []
    let length = 0
    let glyphs = 0
    let unmapped = 0
    let stopped: string | undefined
    for (let number = 1; number <= last; number++) {
      if (performance.now() - started > limits.softTimeoutMs) {
        stopped = `it was still being read after ${limits.softTimeoutMs} ms; pages ${number}–${pages} were left out`
        break
      }
      if (length >= limits.maxChars) {
        stopped = `its text passed ${limits.maxChars} characters; pages ${number}–${pages} were left out`
        break
      }
      let text = ''
      try {
        const page = await pdf.getPage(number)
        const raw = rawPageText((await page.getTextContent()).items)
        const counts = glyphCounts(raw)
        glyphs += counts.glyphs
        unmapped += counts.unmapped
        text = pageText(raw)
        page.cleanup()
      } catch (error) {
        if (OVER_BUFFER_CAP.test(errorMessage(error))) bombs.push(number)
        else broken.push(number)
      }
      if (!text && !broken.includes(number) && !bombs.includes(number)) empty.push(number)
      const start = length + (parts.length > 0 ? 2 : 0)
      const kept = text.slice(0, Math.max(0, limits.maxChars - start))
      pageStarts.push(kept ? start : length)
      if (kept) {
        parts.push(kept)
        length = start + kept.length
      }
    }
    if (stopped === undefined && pages > last)
      stopped = `it has ${pages} pages, more than the ${limits.maxPages} read; pages ${last + 1}–${pages} were left out`
    if (stopped) notices.push({ code: 'document-limit', message: stopped })
    if (unmapped > glyphs / 2) {
      notices.push({
        code: 'document-unmapped',
        message: `${unmapped} of its ${glyphs} characters have no Unicode mapping in its fonts and were dropped; its text may be garbled or missing`,
      })
    }
    if (bombs.length > 0) {
      notices.push({
        code: 'document-unreadable',
        message: `page(s) ${listPages(bombs)} inflate past the bytes one document may hold (a decompression bomb?) and were skipped`,
      })
    }
    if (broken.length > 0) notices.push({ code: 'document-unreadable', message: `page(s) ${listPages(broken)} could not be read and were skipped` })
    if (empty.length > 0) {
      notices.push({
        code: 'document-no-text',
        message:
          empty.length === pageStarts.length
            ? 'no page has a text layer (a scanned document?); nothing could be read'
            : `page(s) ${listPages(empty)} have no text layer (scanned?) and were skipped`,
      })
    }
    return { kind: 'pdf', ...(title ? { title } : {}), text: parts.join('\n\n'), pages, pageStarts, notices, ...(published ? { published } : {}) }
  } finally {
    await pdf.destroy().catch(() => undefined)
  }
}

type Mammoth = {
  convertToHtml(input: { buffer: Buffer }, options?: { convertImage?: unknown }): Promise<{ value: string }>
  images: { imgElement(convert: () => Promise<{ src: string }>): unknown }
}

/**
 * Bytes a DOCX file's parts may inflate to in all (declared, and checked part by part before
 * mammoth reads it): a 50 MB document of photos fits; a zip bomb does not.
 */
export const MAX_DOCX_INFLATED_BYTES = 64 * 1024 * 1024

/** Tables as Markdown rows (`| a | b |`), in a `<pre>` so the text walk keeps their lines. */
function tablesToMarkdown(document: Document): void {
  // Innermost first: a table inside a cell becomes that cell's text.
  for (const table of [...document.querySelectorAll('table')].reverse()) {
    const rows = [...table.querySelectorAll('tr')].map((row) =>
      [...row.children].map((cell) => htmlToText(cell).replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim()),
    )
    const width = Math.max(0, ...rows.map((row) => row.length))
    if (width === 0) {
      table.remove()
      continue
    }
    const line = (cells: string[]) => `| ${[...cells, ...Array<string>(width - cells.length).fill('')].join(' | ')} |`
    const lines = rows.map(line)
    lines.splice(1, 0, line(Array<string>(width).fill('---')))
    const pre = document.createElement('pre')
    pre.textContent = lines.join('\n')
    table.replaceWith(pre)
  }
}

/** mammoth, an optional peer: loaded when a DOCX is read. */
const importMammoth = () => import('mammoth') as Promise<unknown>

export async function docxText(bytes: Uint8Array, limits: DocumentLimits, parseHTML: typeof ParseHTML, loadMammoth = importMammoth): Promise<DocumentText> {
  let mammoth: Mammoth
  try {
    const module = (await loadMammoth()) as Mammoth & { default?: Mammoth }
    mammoth = module.default ?? module
  } catch {
    return {
      kind: 'docx',
      text: '',
      notices: [],
      failure: { code: 'missing-dependency', message: 'reading .docx files needs the optional package mammoth: npm install mammoth' },
    }
  }
  const refusal = zipRefusal(bytes, MAX_DOCX_INFLATED_BYTES)
  if (refusal) return { kind: 'docx', text: '', notices: [], failure: { code: 'document-unreadable', message: `the DOCX was not opened: ${refusal}` } }
  let html: string
  try {
    // Images are left out unread: their text is none, and mammoth would inline each as base64.
    const convertImage = mammoth.images.imgElement(async () => ({ src: '' }))
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }, { convertImage })).value
  } catch (error) {
    return { kind: 'docx', text: '', notices: [], failure: { code: 'document-unreadable', message: `the DOCX could not be opened (${errorMessage(error)})` } }
  }
  const document = parseDocument(parseHTML, html)
  tablesToMarkdown(document)
  const title = (document.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 300)
  const text = htmlToText(document.body)
  const notices: DocumentNotice[] = []
  if (text.length > limits.maxChars) notices.push({ code: 'document-limit', message: `its text passed ${limits.maxChars} characters; the rest was left out` })
  if (!text) notices.push({ code: 'document-no-text', message: 'it has no text' })
  return { kind: 'docx', ...(title ? { title } : {}), text: text.slice(0, limits.maxChars), notices }
}
