/**
 * What the scholarly and reference providers share: identifiers read the same way whatever
 * the source writes (a DOI as a URL or with `doi:`, an arXiv id with its version), a result's
 * `meta` without empty fields, a polite `user-agent`, and options every one of them takes.
 */
import type { SearchResult } from '../../core/contracts/providers.js'
import type { HttpSearchOptions } from './options.js'
import type { Pacer } from './pacer.js'
import { isWebUrl } from './result-fields.js'

/** Options every scholarly provider takes besides its own. */
export interface ScholarlyOptions extends HttpSearchOptions {
  /** The API's address (a loopback server in tests, a mirror or proxy otherwise). */
  readonly baseURL?: string
  /** Spaces out requests. @defaultValue one pacer per API per process, at the API's documented rate */
  readonly pacer?: Pacer
}

export type ResultMeta = NonNullable<SearchResult['meta']>

const DOI = /^10\.\d{4,9}\/\S+$/

/** A DOI in its comparable form (lower case, no resolver prefix), or undefined for anything else. */
export function doiOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const bare = value
    .trim()
    .replace(/^https?:\/\/(dx\.)?doi\.org\//i, '')
    .replace(/^doi:\s*/i, '')
    .toLowerCase()
  return DOI.test(bare) && bare.length <= 300 ? bare : undefined
}

/** An arXiv id without its version, from an id or an abs/pdf URL: `2202.12139`, `cond-mat/0603029`. */
export function arxivIdOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const match = /(?:^|arxiv\.org\/(?:abs|pdf)\/|^arxiv:)((?:\d{4}\.\d{4,5})|(?:[a-z-]+(?:\.[A-Z]{2})?\/\d{7}))(?:v\d+)?(?:\.pdf)?$/i.exec(value.trim())
  return match?.[1]
}

/** The first plausible year in a date (`2022-02-24T15:05:19Z`, `1965 Aug`). */
export function yearOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1000 && value <= 2999 ? value : undefined
  const match = typeof value === 'string' ? /\b([12]\d{3})\b/.exec(value) : null
  return match ? Number(match[1]) : undefined
}

/** An http(s) URL, with arXiv's and NCBI's own plain-http links upgraded; undefined otherwise. */
export function webUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || !isWebUrl(value.trim())) return undefined
  return value.trim().replace(/^http:\/\/((?:export\.)?arxiv\.org|(?:www\.)?ncbi\.nlm\.nih\.gov|pubmed\.ncbi\.nlm\.nih\.gov)\//i, 'https://$1/')
}

/** `meta` without undefined or empty fields; undefined when nothing is left. */
export function metaOf(fields: { [K in keyof ResultMeta]: ResultMeta[K] | undefined }): ResultMeta | undefined {
  const meta: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue
    meta[key] = value
  }
  return Object.keys(meta).length > 0 ? (meta as ResultMeta) : undefined
}

/** A result whose `meta` is set only when there is some. */
export function scholarlyResult(result: SearchResult, meta: ResultMeta | undefined): SearchResult {
  return meta ? { ...result, meta } : result
}

/** At most this many authors are kept: a consortium paper lists thousands. */
export const MAX_AUTHORS = 50

/**
 * Who is asking, as the APIs' etiquette asks (Wikimedia requires it, NCBI and OpenAlex ask for
 * a contact): the library's name, and the caller's address when given.
 */
export function politeUserAgent(contact?: string): string {
  return `laconic-research (research agent; https://www.npmjs.com/package/laconic-research${contact ? `; ${contact}` : ''})`
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
