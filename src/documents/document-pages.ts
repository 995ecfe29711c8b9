/**
 * Pages of a paged document (a PDF a fetch provider read): the passage a fact comes from is a
 * page, cited as `url#page=n`, the fragment browsers and PDF viewers open at that page.
 */
import type { FetchedPage } from '../core/contracts/providers.js'

/** `url` at page `page`: any fragment it had is replaced by `#page=n`. */
export function pageUrl(url: string, page: number): string {
  return `${url.split('#', 1)[0]}#page=${page}`
}

/** The page a URL names with a `#page=n` fragment, if it names one. */
export function pageOfUrl(url: string): number | undefined {
  const match = /#page=(\d{1,6})$/.exec(url)
  const page = match ? Number(match[1]) : 0
  return page >= 1 ? page : undefined
}

/** A document's pages that have text, numbered from 1; a page without paging is none. */
export function documentPages(page: Pick<FetchedPage, 'text' | 'pageStarts'>): { page: number; text: string }[] {
  const starts = page.pageStarts ?? []
  const pages: { page: number; text: string }[] = []
  for (const [index, start] of starts.entries()) {
    const text = page.text.slice(start, starts[index + 1] ?? page.text.length).trim()
    if (text) pages.push({ page: index + 1, text })
  }
  return pages
}
