/**
 * DuckDuckGo's HTML and lite result pages, read from their DOM. Each result is read from its
 * own block (a `div.result`, or the table rows between two lite result links), so a result
 * missing its snippet never shifts the snippets of the others. Synchronous and unbounded in
 * time on hostile markup: it runs in the extraction worker (see duckduckgo-parse.ts).
 */
import { isAdUrl } from '../../core/util/urls.js'
import type { SearchResult } from '../../core/contracts/providers.js'
import type { parseHTML as ParseHTML } from 'linkedom'
import { collapsedText, parseDocument } from '../fetch/extract.js'

export type DuckDuckGoPage =
  | { kind: 'results'; results: SearchResult[] }
  /** DuckDuckGo said so explicitly. */
  | { kind: 'no-results' }
  /** No result blocks and no "no results" notice: a throttling or captcha page. */
  | { kind: 'blocked' }
  /** The page could not be read within its time budget (or its reader crashed): hostile or broken markup. */
  | { kind: 'unreadable'; reason: string }

/** The target of a result link: `//duckduckgo.com/l/?uddg=<encoded>` redirects unwrapped, ads and non-web links refused. */
export function resultUrl(href: string | null | undefined): string | undefined {
  if (!href) return undefined
  let url: URL
  try {
    url = new URL(href, 'https://duckduckgo.com/')
  } catch {
    return undefined
  }
  if (isAdUrl(url.href)) return undefined
  const wrapped = url.hostname.endsWith('duckduckgo.com') && url.pathname === '/l/' ? url.searchParams.get('uddg') : null
  if (wrapped !== null) return resultUrl(wrapped.startsWith('//') || /^https?:/i.test(wrapped) ? wrapped : undefined)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  if (url.hostname.endsWith('duckduckgo.com')) return undefined
  return url.href
}

function htmlLayout(document: Document): SearchResult[] | undefined {
  const blocks = Array.from(document.querySelectorAll('.result')).filter((block) => block.querySelector('a.result__a'))
  if (blocks.length === 0) return undefined
  const results: SearchResult[] = []
  for (const block of blocks) {
    if (block.classList.contains('result--ad')) continue
    const link = block.querySelector('a.result__a')
    const url = resultUrl(link?.getAttribute('href'))
    if (!url) continue
    results.push({ title: collapsedText(link), url, snippet: collapsedText(block.querySelector('.result__snippet')) })
  }
  return results
}

function liteLayout(document: Document): SearchResult[] | undefined {
  const links = Array.from(document.querySelectorAll('a.result-link'))
  if (links.length === 0) return undefined
  const results: SearchResult[] = []
  for (const link of links) {
    const row = link.closest('tr')
    // A lite result is its link's row plus the rows up to the next result link.
    let snippet = ''
    for (let next = row?.nextElementSibling; next && !next.querySelector('a.result-link'); next = next.nextElementSibling) {
      const cell = next.querySelector('.result-snippet')
      if (cell) {
        snippet = collapsedText(cell)
        break
      }
    }
    if (row?.classList.contains('result-sponsored')) continue
    const url = resultUrl(link.getAttribute('href'))
    if (url) results.push({ title: collapsedText(link), url, snippet })
  }
  return results
}

/**
 * With no results, DuckDuckGo's HTML page shows one placeholder block: a link (titled `EOF`) to
 * a Google search for the query, beside an empty `.no-results` block. It is not a result.
 */
function isPlaceholder(result: SearchResult): boolean {
  try {
    const url = new URL(result.url)
    return /^(?:www\.)?google\.[a-z.]+$/i.test(url.hostname) && url.pathname === '/search'
  } catch {
    return false
  }
}

const saysNoResults = (document: Document): boolean =>
  document.querySelector('.no-results') !== null || /\bno (more )?results\b/i.test(collapsedText(document.body))

/** The results a page's DOM holds. */
function readDuckDuckGoDocument(document: Document): DuckDuckGoPage {
  const found = htmlLayout(document) ?? liteLayout(document)
  const results = found?.filter((result) => !isPlaceholder(result))
  // A page whose only "result" is the placeholder says there were none.
  if (found && found.length > 0 && results?.length === 0) return { kind: 'no-results' }
  if (results) {
    const seen = new Set<string>()
    return { kind: 'results', results: results.filter(({ url }) => !seen.has(url) && seen.add(url)) }
  }
  return saysNoResults(document) ? { kind: 'no-results' } : { kind: 'blocked' }
}

/** The results of a page's markup; never throws: unparseable markup reads as a blocked page. */
export function readDuckDuckGoPage(html: string, parseHTML: typeof ParseHTML): DuckDuckGoPage {
  try {
    return readDuckDuckGoDocument(parseDocument(parseHTML, html))
  } catch {
    return { kind: 'blocked' }
  }
}
