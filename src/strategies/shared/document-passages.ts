/**
 * What a strategy shows a model of a deep-read page: its text cut to the page budget, or, for
 * a paged document (a PDF), the pages that best match the query, each a source of its own with
 * the page's URL (`…/paper.pdf#page=7`), so a fact cites the page it came from.
 */
import { documentPages, pageUrl, truncateAtSentence, type FetchedPage } from '../../core/index.js'

/** Text a strategy shows a model from a deep-read page, with the URL (and page number) a fact from it cites. */
export interface Passage {
  /** The page's URL, or for a document's page `url#page=n`. */
  url: string
  /** The page number, for a document's page. */
  page?: number
  text: string
}

/** Query words worth matching: three letters or more, lower-cased, each once. */
function terms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])]
}

function score(text: string, words: readonly string[]): number {
  const lower = text.toLowerCase()
  let hits = 0
  for (const word of words) {
    for (let at = lower.indexOf(word); at !== -1 && hits < 1_000; at = lower.indexOf(word, at + word.length)) hits++
  }
  return hits
}

/**
 * The passages of a read page, `maxChars` of text in all: a web page is one passage; a paged
 * document gives its best-matching pages (by how often the query's words occur, earlier pages
 * first on a tie), in page order, the last one cut at a sentence to fit.
 */
export function documentPassages(page: FetchedPage, query: string, maxChars: number): Passage[] {
  const url = page.url
  const pages = documentPages(page)
  if (pages.length === 0) {
    const text = truncateAtSentence(page.text.trim(), maxChars)
    return text ? [{ url, text }] : []
  }
  const words = terms(query)
  const ranked = pages.map((entry) => ({ ...entry, score: score(entry.text, words) })).sort((a, b) => b.score - a.score || a.page - b.page)
  const chosen: Passage[] = []
  // A sliver of a page is not worth a source of its own.
  const smallest = Math.min(200, maxChars / 4)
  let left = maxChars
  for (const entry of ranked) {
    if (left < smallest && chosen.length > 0) break
    const text = entry.text.length > left ? truncateAtSentence(entry.text, left) : entry.text
    if (!text) continue
    chosen.push({ url: pageUrl(url, entry.page), page: entry.page, text })
    left -= text.length
  }
  return chosen.sort((a, b) => (a.page ?? 0) - (b.page ?? 0))
}
