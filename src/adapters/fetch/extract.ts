/**
 * The readable part of an HTML page, computed synchronously: @mozilla/readability's article
 * when it finds one, else the whole page as structured plain text. This is the CPU-heavy
 * step of reading a page (a few kilobytes of hostile markup can keep it busy for seconds),
 * so it runs inside a worker thread (see `extract-pool.ts`), never on the main thread.
 */
import type { Readability as ReadabilityClass } from '@mozilla/readability'
import type { parseHTML as ParseHTML } from 'linkedom'
import { htmlToText } from './html-text.js'
import { publishedDate } from './published-date.js'

/** An XML parser's constructor, as search's XML readers take one (linkedom's DOMParser is one). */
export type XmlParser = new () => { parseFromString(text: string, type: 'text/xml'): unknown }

export interface ExtractModules {
  parseHTML: typeof ParseHTML
  /** linkedom's XML parser (arXiv's and NCBI's answers). */
  DOMParser: XmlParser
  Readability: typeof ReadabilityClass
}

export interface ExtractedPage {
  title?: string
  text: string
  /** Why the text is a fallback rather than the page's readable text (see `FetchedPage.fallback`). */
  fallback?: string
  /** When the page says it was published (see `published-date.ts`). */
  published?: string
}

/**
 * Readability gives up (and the whole-page text is kept) on a DOM with more elements than
 * this: its scoring walks the tree many times, so its cost grows faster than the page.
 */
export const MAX_READABILITY_ELEMENTS = 20_000

/**
 * An article shorter than this (or than half the page) is more likely a fragment
 * Readability picked from a non-article page than the article: keep the whole page then.
 */
const MIN_ARTICLE_CHARS = 250

/** Both modules, whichever way the bundler or Node exposes their exports. */
export async function loadExtractModules(): Promise<ExtractModules> {
  const [linkedom, readability] = await Promise.all([import('linkedom'), import('@mozilla/readability')])
  const Readability = readability.Readability ?? (readability as unknown as { default: typeof readability }).default.Readability
  return { parseHTML: linkedom.parseHTML, DOMParser: linkedom.DOMParser as unknown as XmlParser, Readability }
}

/**
 * linkedom turns a fragment's first element into the document element (and then throws on
 * `document.body`), so anything that does not parse to an `<html>` root is parsed again
 * wrapped in a full document.
 */
export function parseDocument(parseHTML: typeof ParseHTML, html: string): Document {
  if (/<html[\s>]/i.test(html)) {
    const { document } = parseHTML(html)
    if (document.documentElement?.tagName.toUpperCase() === 'HTML') return document as unknown as Document
  }
  return parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`).document as unknown as Document
}

/** The text of a node with runs of whitespace (including `&nbsp;`) collapsed to one space. */
export function collapsedText(node: Node | null | undefined): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim()
}

const UNPARSEABLE = 'its markup could not be parsed; it was read as tag-stripped text'

/** A page's title (`<title>`, else the first `<h1>`) and its whole text. */
function wholePage(document: Document): { title: string; text: string } {
  return {
    title: collapsedText(document.querySelector('title')) || collapsedText(document.querySelector('h1')),
    text: htmlToText(document.body?.childNodes.length ? document.body : document.documentElement),
  }
}

/** A document's title and whole text, with no article to look for (a local corpus's HTML files). */
export function documentText(html: string, modules: Pick<ExtractModules, 'parseHTML'>): ExtractedPage {
  let document: Document
  try {
    document = parseDocument(modules.parseHTML, html)
  } catch {
    return { text: taglessTextSync(html), fallback: UNPARSEABLE }
  }
  const { title, text } = wholePage(document)
  return title ? { title, text } : { text }
}

export function extractReadable(html: string, modules: ExtractModules, maxElements = MAX_READABILITY_ELEMENTS): ExtractedPage {
  let document: Document
  try {
    document = parseDocument(modules.parseHTML, html)
  } catch {
    return { text: taglessTextSync(html), fallback: UNPARSEABLE }
  }
  // Readability rewrites the DOM, so the whole-page text and the page's date are taken first.
  const { title: pageTitle, text: pageText } = wholePage(document)
  const published = publishedOf(document)
  let title = pageTitle
  let text = pageText
  let fallback: string | undefined
  // Counted here, not left to Readability's `maxElemsToParse`: that check counts with
  // getElementsByTagName('*'), which finds nothing on a linkedom DOM, so it never fired.
  if (document.querySelectorAll('*').length > maxElements) {
    fallback = `it has more than ${maxElements} elements, too many to look for its article; its whole text was kept`
  } else {
    try {
      const article = new modules.Readability<Node>(document, { serializer: (node) => node }).parse()
      const articleText = article?.content ? htmlToText(article.content) : ''
      if (articleText.length >= Math.min(MIN_ARTICLE_CHARS, pageText.length / 2)) text = articleText
      if (article?.title) title = article.title.replace(/\s+/g, ' ').trim()
    } catch (error) {
      // Readability gave up on this DOM: the whole-page text stands.
      fallback = `looking for its article failed (${error instanceof Error ? error.message : String(error)}); its whole text was kept`
    }
  }
  return { ...(title ? { title } : {}), text, ...(fallback ? { fallback } : {}), ...(published ? { published } : {}) }
}

/** The page's date, or undefined when reading it fails on a DOM linkedom built oddly: a date is never worth the page. */
function publishedOf(document: Document): string | undefined {
  try {
    return publishedDate(document)
  } catch {
    return undefined
  }
}

const SKIPPED_CONTENT = ['script', 'style', 'noscript', 'template']

/** Input characters scanned between two yields to the event loop. */
const SLICE_CHARS = 32_768

/**
 * The last resort, when the DOM cannot be built (or not in time): tags dropped, the content
 * of script and style elements skipped, entities decoded, whitespace collapsed. It runs on
 * the main thread, so it is one left-to-right pass with `indexOf` (linear whatever the
 * markup), and `pause` is awaited every few dozen kilobytes so a large page never holds the
 * event loop for long.
 */
export async function taglessText(html: string, pause: () => Promise<void> = yieldToLoop): Promise<string> {
  const steps = taglessSteps(html)
  let step = steps.next()
  while (!step.done) {
    await pause()
    step = steps.next()
  }
  return step.value
}

/** The same text in one go, for a worker thread (where blocking is harmless). */
export function taglessTextSync(html: string): string {
  const steps = taglessSteps(html)
  let step = steps.next()
  while (!step.done) step = steps.next()
  return step.value
}

/** The scan, pausing (`yield`) every `SLICE_CHARS` input characters. */
function* taglessSteps(html: string): Generator<void, string, void> {
  const parts: string[] = []
  let batch: string[] = []
  // Whitespace is collapsed batch by batch; a space is added between batches only where one was.
  const flush = () => {
    const raw = batch.join('')
    batch = []
    const text = decodeBasicEntities(raw).replace(/\s+/g, ' ')
    if (text === '' || text === ' ') {
      if (text === ' ' && parts.length > 0 && !(parts[parts.length - 1] as string).endsWith(' ')) parts.push(' ')
      return
    }
    const previous = parts[parts.length - 1]
    parts.push(previous?.endsWith(' ') && text.startsWith(' ') ? text.slice(1) : text)
  }
  let at = 0
  let sliceStart = 0
  while (at < html.length) {
    if (at - sliceStart >= SLICE_CHARS) {
      flush()
      yield
      sliceStart = at
    }
    const open = html.indexOf('<', at)
    if (open === -1) {
      batch.push(html.slice(at))
      break
    }
    batch.push(html.slice(at, open), ' ')
    const close = html.indexOf('>', open + 1)
    if (close === -1) break
    at = close + 1
    const name = /^<([a-z]+)/i.exec(html.slice(open, open + 12))?.[1]?.toLowerCase()
    if (name !== undefined && SKIPPED_CONTENT.includes(name)) {
      const end = indexOfIgnoringCase(html, `</${name}`, at)
      at = end === -1 ? html.length : end
    }
  }
  flush()
  return parts.join('').trim()
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** `indexOf` of a lower-case ASCII needle in any case, without copying the haystack. */
function indexOfIgnoringCase(haystack: string, needle: string, from: number): number {
  for (let at = haystack.indexOf('<', from); at !== -1; at = haystack.indexOf('<', at + 1)) {
    if (haystack.slice(at, at + needle.length).toLowerCase() === needle) return at
  }
  return -1
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

function decodeBasicEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
  })
}
