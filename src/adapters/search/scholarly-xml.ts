/**
 * The XML answers of arXiv (its Atom feed) and NCBI's E-utilities (esearch, esummary) as
 * results: pure and total, so that they run on the extraction thread (see scholarly-parse.ts)
 * as well as in place. A DOI, an arXiv id, a year and a PDF link are read the same way here as
 * from the JSON APIs (scholarly.ts).
 */
import type { SearchResult } from '../../core/contracts/providers.js'
import { arxivIdOf, doiOf, MAX_AUTHORS, metaOf, scholarlyResult, webUrl, yearOf } from './scholarly.js'
import { childNamed, childrenNamed, textOf, type XmlElement, type XmlParser, xmlRoot } from './xml.js'

export type ArxivFeed = { kind: 'results'; results: SearchResult[] } | { kind: 'error'; message: string } | { kind: 'not-a-feed' }

function linkOf(entry: XmlElement, test: (link: XmlElement) => boolean): string | undefined {
  return webUrl(childrenNamed(entry, 'link').find(test)?.getAttribute('href'))
}

function entryResult(entry: XmlElement): SearchResult | undefined {
  const abs = linkOf(entry, (link) => link.getAttribute('rel') === 'alternate') ?? webUrl(textOf(childNamed(entry, 'id')))
  const pdf = linkOf(entry, (link) => link.getAttribute('title') === 'pdf' || link.getAttribute('type') === 'application/pdf')
  const url = pdf ?? abs
  if (!url) return undefined
  const meta = metaOf({
    authors: childrenNamed(entry, 'author')
      .map((author) => textOf(childNamed(author, 'name')))
      .filter(Boolean)
      .slice(0, MAX_AUTHORS),
    year: yearOf(textOf(childNamed(entry, 'published'))),
    venue: textOf(childNamed(entry, 'journal_ref')) || undefined,
    doi: doiOf(textOf(childNamed(entry, 'doi'))),
    arxivId: arxivIdOf(textOf(childNamed(entry, 'id'))) ?? arxivIdOf(abs),
    pdfUrl: pdf,
  })
  return scholarlyResult({ title: textOf(childNamed(entry, 'title')) || url, url, snippet: textOf(childNamed(entry, 'summary')) }, meta)
}

/** The feed's entries as results; arXiv's error entry (title `Error`, id under /api/errors) as its message. Total. */
export function parseArxivFeed(text: string, Parser: XmlParser): ArxivFeed {
  const feed = xmlRoot(text, 'feed', Parser)
  if (!feed) return { kind: 'not-a-feed' }
  const entries = childrenNamed(feed, 'entry')
  const error = entries.find((entry) => textOf(childNamed(entry, 'title')) === 'Error' && textOf(childNamed(entry, 'id')).includes('/api/errors'))
  if (error) return { kind: 'error', message: textOf(childNamed(error, 'summary')) || 'arXiv reported an error' }
  return { kind: 'results', results: entries.flatMap((entry) => entryResult(entry) ?? []) }
}

export type EsearchAnswer = { kind: 'ids'; ids: string[] } | { kind: 'error'; message: string } | { kind: 'not-xml' }

/** esearch's `IdList`, or its `ERROR`. Total. */
export function parseEsearch(text: string, Parser: XmlParser): EsearchAnswer {
  const root = xmlRoot(text, 'eSearchResult', Parser)
  if (!root) return { kind: 'not-xml' }
  const error = textOf(childNamed(root, 'ERROR'))
  if (error) return { kind: 'error', message: error }
  const ids = childrenNamed(childNamed(root, 'IdList'), 'Id')
    .map((id) => textOf(id))
    .filter((id) => /^\d{1,12}$/.test(id))
  return { kind: 'ids', ids }
}

function items(element: XmlElement | undefined): Map<string, XmlElement[]> {
  const byName = new Map<string, XmlElement[]>()
  for (const item of childrenNamed(element, 'Item')) {
    const name = item.getAttribute('Name') ?? ''
    byName.set(name, [...(byName.get(name) ?? []), item])
  }
  return byName
}

function docSumResult(docSum: XmlElement): SearchResult | undefined {
  const id = textOf(childNamed(docSum, 'Id'))
  if (!/^\d{1,12}$/.test(id)) return undefined
  const fields = items(docSum)
  const one = (name: string) => textOf(fields.get(name)?.[0])
  const authors = childrenNamed(fields.get('AuthorList')?.[0], 'Item')
    .map((author) => textOf(author))
    .filter(Boolean)
  const articleIds = items(fields.get('ArticleIds')?.[0])
  const venue = one('FullJournalName') || one('Source')
  const citation = [authors.slice(0, 6).join(', ') + (authors.length > 6 ? ' et al' : ''), venue, one('SO')].filter(Boolean).join('. ')
  const url = `https://pubmed.ncbi.nlm.nih.gov/${id}/`
  const meta = metaOf({
    authors: authors.slice(0, MAX_AUTHORS),
    year: yearOf(one('PubDate')) ?? yearOf(one('EPubDate')),
    venue: venue || undefined,
    doi: doiOf(textOf(articleIds.get('doi')?.[0])) ?? doiOf(one('ELocationID')),
  })
  return scholarlyResult({ title: one('Title') || url, url, snippet: citation }, meta)
}

export type EsummaryAnswer = { kind: 'results'; results: SearchResult[] } | { kind: 'error'; message: string } | { kind: 'not-xml' }

/** esummary's `DocSum`s as results, in its order. Total. */
export function parseEsummary(text: string, Parser: XmlParser): EsummaryAnswer {
  const root = xmlRoot(text, 'eSummaryResult', Parser)
  if (!root) return { kind: 'not-xml' }
  const error = textOf(childNamed(root, 'ERROR'))
  if (error) return { kind: 'error', message: error }
  return { kind: 'results', results: childrenNamed(root, 'DocSum').flatMap((docSum) => docSumResult(docSum) ?? []) }
}
