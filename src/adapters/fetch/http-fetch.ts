/**
 * `httpFetch()`: reads a web page (or a PDF or DOCX document) for a model. The URL usually
 * comes from search results or model output, so every hop is checked before a byte is sent:
 * ads and trackers are refused, internal addresses are refused (SSRF guard, on by default),
 * redirects are followed by hand and checked again, and the body is capped while it streams.
 */
import { ProviderError, isAbortError } from '../../core/contracts/laconic-error.js'
import { isAdUrl } from '../../core/util/urls.js'
import type { FetchOptions, FetchProvider, FetchedPage } from '../../core/contracts/providers.js'
import { httpRequest } from '../http/index.js'
import type { HttpResponse } from '../http/index.js'
import { decodeBody, detectCharset } from './charset.js'
import { contentKind, mayBeDocument, mayBeReadable } from '../../documents/content-kind.js'
import { readDocument } from './read-document.js'
import { DEFAULT_EXTRACT_TIMEOUT_MS, readableText } from './readable-text.js'
import { guardedNetwork } from './guarded-network.js'
import { looksScriptRendered } from './script-rendered.js'
import { assertPublicUrl, parseWebUrl, shortUrl } from './ssrf.js'
import type { ResolveHost } from './ssrf.js'

/** Options of `httpFetch()`: which destinations are allowed, body and redirect limits, timeouts and retries. */
export interface HttpFetchOptions {
  /** Allow loopback, private and link-local destinations (your own network, tests). @defaultValue false */
  readonly allowPrivateNetwork?: boolean
  /** Bytes read from a body; the rest is never downloaded. @defaultValue 2_000_000 */
  readonly maxBytes?: number
  /** @defaultValue 5 */
  readonly maxRedirects?: number
  /** Per-request time limit, to the first byte and between body chunks. @defaultValue 20_000 */
  readonly timeoutMs?: number
  /**
   * The whole fetch, redirects and retries included, up to the end of the body: a server
   * that drips a byte now and then is cut off here (`code: 'timeout'`).
   * @defaultValue 30_000
   */
  readonly totalTimeoutMs?: number
  /**
   * Time to turn a fetched HTML page into text (parsing and Readability run in a worker
   * thread, never on the main one). A page not done in time is read as its tag-stripped text.
   * @defaultValue 5_000
   */
  readonly extractTimeoutMs?: number
  /**
   * Bytes read from a PDF or DOCX body (documents are larger than pages). A document whose
   * `content-length` is larger is not downloaded (`code: 'document-too-large'`); one cut at the
   * cap is read as far as it goes, with a `document-truncated` warning.
   * @defaultValue 20_000_000
   */
  readonly maxDocumentBytes?: number
  /** Pages of a PDF read at most; the rest are left out with a `document-limit` warning. @defaultValue 300 */
  readonly maxDocumentPages?: number
  /** Characters of a document's text kept at most. @defaultValue 1_000_000 */
  readonly maxDocumentChars?: number
  /**
   * Time to turn a fetched document into text, on a worker thread. Pages not started by 80% of
   * it are left out (`document-limit`); a document still not done at the end is not read
   * (`document-unreadable`).
   * @defaultValue 20_000
   */
  readonly documentTimeoutMs?: number
  /** Retries of network failures, timeouts, 429 and 5xx. @defaultValue 1 */
  readonly maxRetries?: number
  /** Extra request headers (a `user-agent`, say). */
  readonly headers?: Record<string, string>
  /** Host name to addresses, for the SSRF guard (and, on Node, for the connection itself). @defaultValue `node:dns/promises` lookup */
  readonly resolveHost?: ResolveHost
  /**
   * Your own fetch. Without one, on Node, connections dial only addresses the guard checked
   * (no DNS-rebinding gap); a fetch you pass is used as is, after the check.
   */
  readonly fetch?: typeof globalThis.fetch
  /**
   * A reader for pages that write their text with scripts (`browserFetch()` from
   * `laconic-research/browser`): asked only when an HTML page's readable text is empty or tiny
   * and its markup looks script-rendered. Its page carries `fallback` saying so (an
   * `extraction-fallback` warning in a run); if it fails, the page as fetched is kept.
   */
  readonly fallback?: FetchProvider
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])
const ACCEPT =
  'text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.9,application/json;q=0.8,application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.8,text/*;q=0.7'

function refusedAd(url: string): ProviderError {
  return new ProviderError(`refused to fetch ${shortUrl(url)}: an ad or tracker URL`, {
    code: 'blocked-url',
    provider: 'http-fetch',
    url: shortUrl(url, 2000),
    hint: 'ad and tracking links carry no content; skip this result',
  })
}

interface CappedBody {
  bytes: Uint8Array
  /** Why the body is incomplete: cut at the cap, or the connection failed after some bytes. */
  truncated?: string
}

/**
 * Read the body up to a cap that `capFor` picks from its first chunk (a document gets a larger
 * one); leaving the loop early closes the connection. A body that `keepPartial(head)` says is a
 * document keeps what arrived when the connection fails midway: a PDF is often readable without
 * its end.
 */
async function readCapped(
  response: HttpResponse,
  capFor: (head: Uint8Array) => number,
  keepPartial: (head: Uint8Array) => boolean,
  signal: AbortSignal | undefined,
): Promise<CappedBody> {
  const parts: Uint8Array[] = []
  let total = 0
  let maxBytes = Number.POSITIVE_INFINITY
  let truncated: string | undefined
  try {
    for await (const chunk of response.chunks()) {
      if (parts.length === 0) maxBytes = capFor(chunk)
      const room = maxBytes - total
      parts.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk)
      total += Math.min(chunk.byteLength, room)
      if (chunk.byteLength > room) truncated = `only its first ${maxBytes} bytes were downloaded`
      if (total >= maxBytes) break
    }
  } catch (error) {
    if (signal?.aborted || isAbortError(error) || parts.length === 0 || !keepPartial(parts[0] as Uint8Array)) throw error
    truncated = `the download stopped after ${total} bytes (${error instanceof Error ? error.message : String(error)})`
  }
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.byteLength
  }
  return truncated ? { bytes, truncated } : { bytes }
}

/** A `FetchProvider` over HTTP: turns HTML, PDF, DOCX and text into plain text, refuses private addresses unless allowed, and limits size, redirects and time. */
export function httpFetch(options: HttpFetchOptions = {}): FetchProvider {
  const {
    allowPrivateNetwork = false,
    maxBytes = 2_000_000,
    maxRedirects = 5,
    timeoutMs = 20_000,
    totalTimeoutMs = 30_000,
    maxRetries = 1,
    extractTimeoutMs = DEFAULT_EXTRACT_TIMEOUT_MS,
    maxDocumentBytes = 20_000_000,
    maxDocumentPages = 300,
    maxDocumentChars = 1_000_000,
    documentTimeoutMs = 20_000,
  } = options
  const limits: ReadLimits = { maxBytes, extractTimeoutMs, maxDocumentBytes, maxDocumentPages, maxDocumentChars, documentTimeoutMs }
  // On Node, connections dial only addresses the guard checked; a fetch you pass is used as is.
  const { resolveHost, fetch: baseFetch } = guardedNetwork('httpFetch', { resolveHost: options.resolveHost, fetch: options.fetch, allowPrivateNetwork })

  /** One hop: the response, or where it redirects to. */
  async function request(url: URL, { signal, onRetry }: FetchOptions, deadline: number): Promise<{ response: HttpResponse } | { redirect: string }> {
    let location: string | null = null
    // Redirects come back to us (not followed by fetch) so each hop passes the guard.
    const manual: typeof globalThis.fetch = async (input, init) => {
      const response = await baseFetch(input, { ...init, redirect: 'manual' })
      location = REDIRECTS.has(response.status) ? response.headers.get('location') : null
      return response
    }
    try {
      const response = await httpRequest({
        url: url.href,
        method: 'GET',
        headers: { accept: ACCEPT, ...options.headers },
        provider: 'http-fetch',
        signal,
        onRetry,
        timeouts: { firstByteMs: timeoutMs, idleMs: timeoutMs, totalMs: Math.max(0, deadline - performance.now()) },
        maxRetries,
        fetch: manual,
      })
      return { response }
    } catch (error) {
      if (location !== null && error instanceof ProviderError && error.status !== undefined && REDIRECTS.has(error.status)) {
        if (URL.canParse(location, url)) return { redirect: new URL(location, url).href }
        throw new ProviderError(`http-fetch: ${shortUrl(url.href)} redirects to an invalid URL`, {
          code: 'bad-response',
          provider: 'http-fetch',
          status: error.status,
          url: url.href,
          hint: 'the site sent a broken Location header; skip this page',
        })
      }
      throw error
    }
  }

  return {
    async fetch(requested, opts = {}): Promise<FetchedPage> {
      let current = requested
      const deadline = performance.now() + totalTimeoutMs
      for (let hop = 0; ; hop++) {
        if (isAdUrl(current)) throw refusedAd(current)
        const url = allowPrivateNetwork ? parseWebUrl(current) : await assertPublicUrl(current, resolveHost, opts.signal)
        const outcome = await request(url, opts, deadline)
        if ('redirect' in outcome) {
          if (hop >= maxRedirects) {
            throw new ProviderError(`http-fetch: more than ${maxRedirects} redirects from ${shortUrl(requested)}`, {
              code: 'http',
              provider: 'http-fetch',
              url: requested,
              hint: 'the site redirects in a loop or too deep; raise `maxRedirects` if this is expected',
            })
          }
          current = outcome.redirect
          continue
        }
        const page = await readPage(outcome.response, url.href, limits, opts.signal)
        return options.fallback && page.scriptRendered ? readByFallback(options.fallback, page, opts) : withoutMarker(page)
      }
    },
  }
}

type ReadPage = FetchedPage & { scriptRendered?: boolean }

function withoutMarker({ scriptRendered: _, ...page }: ReadPage): FetchedPage {
  return page
}

/** The fallback's reading of a script-rendered page, or the page as fetched when it fails (not when aborted). */
async function readByFallback(fallback: FetchProvider, page: ReadPage, opts: FetchOptions): Promise<FetchedPage> {
  try {
    const rendered = await fallback.fetch(page.url, opts)
    const why = 'its text is written by scripts; it was read by the fallback reader of httpFetch'
    return { ...rendered, fallback: rendered.fallback ? `${why}; ${rendered.fallback}` : why }
  } catch (error) {
    if (opts.signal?.aborted || isAbortError(error)) throw error
    const why = error instanceof Error ? error.message : String(error)
    return {
      ...withoutMarker(page),
      warnings: [...(page.warnings ?? []), { code: 'fallback-failed', message: `the page looks script-rendered, but its fallback reader failed: ${why}` }],
    }
  }
}

function unsupported(url: string, contentType: string | null): ProviderError {
  return new ProviderError(`http-fetch: ${shortUrl(url)} is ${(contentType ?? 'binary content').slice(0, 100)}, not a readable page`, {
    code: 'unsupported-content',
    provider: 'http-fetch',
    url,
    hint: 'httpFetch reads HTML, plain text, JSON, PDF and DOCX; skip this URL or fetch it with a reader for that format',
  })
}

interface ReadLimits {
  maxBytes: number
  extractTimeoutMs: number
  maxDocumentBytes: number
  maxDocumentPages: number
  maxDocumentChars: number
  documentTimeoutMs: number
}

function tooLarge(url: string, length: number, cap: number): ProviderError {
  return new ProviderError(`http-fetch: ${shortUrl(url)} is a document of ${length} bytes, more than the ${cap} read`, {
    code: 'document-too-large',
    provider: 'http-fetch',
    url,
    hint: 'raise `maxDocumentBytes` to read documents this large, or skip it',
  })
}

async function readPage(response: HttpResponse, url: string, limits: ReadLimits, signal: AbortSignal | undefined): Promise<ReadPage> {
  const contentType = response.headers.get('content-type')
  // A declared type is judged before the body is downloaded; a missing one by its first bytes.
  if (!mayBeReadable(contentType)) {
    response.cancel()
    throw unsupported(url, contentType)
  }
  const declaredLength = Number(response.headers.get('content-length') ?? Number.NaN)
  if (declaredLength > limits.maxDocumentBytes && contentType && mayBeDocument(contentType, new Uint8Array())) {
    response.cancel()
    throw tooLarge(url, declaredLength, limits.maxDocumentBytes)
  }
  const document = (head: Uint8Array) => mayBeDocument(contentType, head)
  const { bytes, truncated } = await readCapped(response, (head) => (document(head) ? limits.maxDocumentBytes : limits.maxBytes), document, signal)
  const kind = contentKind(contentType, bytes.subarray(0, 1024), url)
  if (!kind) throw unsupported(url, contentType)
  if (kind === 'pdf' || kind === 'docx') {
    return readDocument(url, kind, bytes, {
      timeoutMs: limits.documentTimeoutMs,
      maxPages: limits.maxDocumentPages,
      maxChars: limits.maxDocumentChars,
      signal,
      truncated,
    })
  }
  const text = decodeBody(bytes, detectCharset(contentType, bytes, kind === 'html'))
  if (kind !== 'html') return { url, text: text.replace(/\r\n?/g, '\n') }
  const readable = await readableText(text, { timeoutMs: limits.extractTimeoutMs, signal })
  return { url, ...readable, ...(looksScriptRendered(text, readable.text) ? { scriptRendered: true } : {}) }
}
