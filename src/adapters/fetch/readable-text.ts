/**
 * The readable part of an HTML page: @mozilla/readability's article when it finds one,
 * else the whole page as structured plain text. Both are loaded lazily.
 */
import { collapsedText, parseHtml } from './dom.js'
import { htmlToText } from './html-text.js'

type ReadabilityModule = typeof import('@mozilla/readability')
let readability: Promise<ReadabilityModule> | undefined

async function loadReadability(): Promise<ReadabilityModule['Readability']> {
  readability ??= import('@mozilla/readability')
  const module = (await readability) as ReadabilityModule & { default?: ReadabilityModule }
  return module.Readability ?? (module.default as ReadabilityModule).Readability
}

/**
 * An article shorter than this (or than half the page) is more likely a fragment
 * Readability picked from a non-article page than the article: keep the whole page then.
 */
const MIN_ARTICLE_CHARS = 250

/** Last resort when the DOM cannot be built at all: tags dropped, whitespace collapsed. */
const tagless = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()

export async function readableText(html: string): Promise<{ title?: string; text: string }> {
  let document: Document
  try {
    document = await parseHtml(html)
  } catch {
    return { text: tagless(html) }
  }
  const pageTitle = collapsedText(document.querySelector('title')) || collapsedText(document.querySelector('h1'))
  // Readability rewrites the DOM, so the whole-page text is taken first.
  const pageText = htmlToText(document.body?.childNodes.length ? document.body : document.documentElement)
  let title = pageTitle
  let text = pageText
  try {
    const Readability = await loadReadability()
    const article = new Readability<Node>(document, { serializer: (node) => node }).parse()
    const articleText = article?.content ? htmlToText(article.content) : ''
    if (articleText.length >= Math.min(MIN_ARTICLE_CHARS, pageText.length / 2)) text = articleText
    if (article?.title) title = article.title.replace(/\s+/g, ' ').trim()
  } catch {
    // Readability gave up on this DOM: the whole-page text stands.
  }
  return title ? { title, text } : { text }
}
