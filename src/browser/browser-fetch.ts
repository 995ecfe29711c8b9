/**
 * `browserFetch()`: reads pages that write their text with JavaScript, in the system's headless
 * Chromium (through `playwright-core`, an optional peer loaded on first use). One browser is
 * started on the first fetch and shared; each fetch gets a fresh context and page, closed when
 * it ends or is aborted; at most `maxPages` are open at once.
 *
 * Chromium never touches the network itself: every request a page makes is served from Node
 * (`guarded-request.ts`) through the SSRF guard and the DNS-pinned fetch; WebSockets and
 * service workers are refused; and the browser is started with a dead proxy and a resolver that
 * finds no host, so anything that escaped routing (a preconnect) reaches nothing.
 */
import pLimit from 'p-limit'
import type { Browser, BrowserContext, Page, Route } from 'playwright-core'
import { LaconicError, ProviderError, abortError, isAbortError } from '../core/contracts/laconic-error.js'
import { isAdUrl } from '../core/util/urls.js'
import type { FetchOptions, FetchProvider, FetchedPage, PageWarning } from '../core/contracts/providers.js'
import { pinnedFetch } from '../node/pinned-fetch.js'
import { DEFAULT_EXTRACT_TIMEOUT_MS, readableText } from '../adapters/fetch/readable-text.js'
import { resolveWithNodeDns } from '../node/resolve-host.js'
import { assertPublicUrl, parseWebUrl, shortUrl } from '../adapters/fetch/ssrf.js'
import type { ResolveHost } from '../adapters/fetch/ssrf.js'
import { findSystemBrowser } from './find-browser.js'
import { checkDestination, serveRequest, type RequestPolicy } from './guarded-request.js'

/** Options of `browserFetch()`: which browser, which destinations, and the limits of each page. */
export interface BrowserFetchOptions {
  /** The Chromium or Chrome to run. @defaultValue the first of chromium, chromium-browser, google-chrome, google-chrome-stable on `PATH` */
  readonly executablePath?: string
  /** Allow every loopback, private and link-local destination, for the page and all it loads. @defaultValue false */
  readonly allowPrivateNetwork?: boolean
  /**
   * Origins (`http://127.0.0.1:8080`) let through the SSRF guard although private: your own
   * intranet site, or a test server. Every other private destination stays refused.
   */
  readonly allowOrigins?: readonly string[]
  /** Pages open at once; more fetches wait their turn. @defaultValue 2 */
  readonly maxPages?: number
  /**
   * Time for one page, from the first request to its rendered text. A page still loading then
   * is read as far as it got (with a `browser-timeout` warning); one with no document yet fails
   * with `code: 'timeout'`.
   * @defaultValue 20_000
   */
  readonly timeoutMs?: number
  /** Time waited after `load` for the page's own requests to settle (scripts that fetch their text). @defaultValue 2_000 */
  readonly settleMs?: number
  /** Characters of rendered HTML read, and bytes of each response the page loads. @defaultValue 2_000_000 */
  readonly maxBytes?: number
  /** Bytes a page may load in all, its scripts and styles included; later requests are refused. @defaultValue 10_000_000 */
  readonly maxPageBytes?: number
  /** Redirects followed per request. @defaultValue 5 */
  readonly maxRedirects?: number
  /** Time to turn the rendered HTML into readable text (off the main thread). @defaultValue 5_000 */
  readonly extractTimeoutMs?: number
  /** Host name to addresses, for the SSRF guard and the connections it allows. @defaultValue `node:dns/promises` lookup */
  readonly resolveHost?: ResolveHost
}

/** A `FetchProvider` that renders pages in a headless browser; `close()` stops the browser. */
export interface BrowserFetchProvider extends FetchProvider {
  /** Closes every open page and the browser; a later fetch starts it again. */
  close(): Promise<void>
}

/** Flags that keep a headless Chromium quiet and off the network (see the module comment). */
const BROWSER_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--dns-prefetch-disable',
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
]

/** Resource types a reader never needs: refused before they are fetched. */
const BLOCKED_TYPES = new Set(['image', 'font', 'media'])

type Playwright = typeof import('playwright-core')

async function loadPlaywright(): Promise<Playwright> {
  try {
    return await import('playwright-core')
  } catch (cause) {
    throw new LaconicError('browserFetch needs the optional package playwright-core', {
      code: 'config',
      hint: 'npm install playwright-core; it drives the system Chromium, no browser is downloaded',
      cause,
    })
  }
}

/** A `FetchProvider` that renders each page in headless Chromium and reads its text as `httpFetch` does; guarded against SSRF on every request the page makes. */
export function browserFetch(options: BrowserFetchOptions = {}): BrowserFetchProvider {
  const {
    allowPrivateNetwork = false,
    maxPages = 2,
    timeoutMs = 20_000,
    settleMs = 2_000,
    maxBytes = 2_000_000,
    maxPageBytes = 10_000_000,
    maxRedirects = 5,
    extractTimeoutMs = DEFAULT_EXTRACT_TIMEOUT_MS,
    resolveHost = resolveWithNodeDns,
  } = options
  const allowOrigins = new Set((options.allowOrigins ?? []).map((origin) => parseWebUrl(origin).origin))
  const limits = { maxBytes, maxPageBytes }
  const pages = pLimit(maxPages)
  const open = new Set<BrowserContext>()
  let browser: Promise<Browser> | undefined
  let policy: Promise<RequestPolicy> | undefined

  const policyFor = (): Promise<RequestPolicy> =>
    (policy ??= Promise.resolve({
      guardedFetch: pinnedFetch(resolveHost),
      plainFetch: globalThis.fetch,
      allowPrivateNetwork,
      allowOrigins,
      maxRedirects,
    }))

  const browserFor = (): Promise<Browser> => {
    browser ??= (async () => {
      const { chromium } = await loadPlaywright()
      const executablePath = options.executablePath ?? findSystemBrowser()
      // Playwright gives each launch a fresh, temporary profile folder (its own --user-data-dir).
      const launched = await chromium.launch({ executablePath, args: BROWSER_ARGS, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false })
      launched.on('disconnected', () => {
        browser = undefined
      })
      return launched
    })()
    browser.catch(() => {
      browser = undefined
    })
    return browser
  }

  async function checkFirst(url: string, signal: AbortSignal | undefined): Promise<void> {
    if (isAdUrl(url)) {
      throw new ProviderError(`refused to fetch ${shortUrl(url)}: an ad or tracker URL`, {
        code: 'blocked-url',
        provider: 'browser-fetch',
        url: shortUrl(url, 2000),
      })
    }
    const parsed = parseWebUrl(url)
    if (allowPrivateNetwork || allowOrigins.has(parsed.origin)) return
    await assertPublicUrl(url, resolveHost, signal)
  }

  async function render(url: string, signal: AbortSignal | undefined): Promise<FetchedPage> {
    if (signal?.aborted) throw abortError(signal)
    const requests = new AbortController()
    const context = await (await browserFor()).newContext({ acceptDownloads: false, serviceWorkers: 'block' })
    // The page's budget starts once it has a context: starting the shared browser is not the page's time.
    const started = performance.now()
    const budget = { timeoutMs, remaining: () => Math.max(1, timeoutMs - (performance.now() - started)) }
    open.add(context)
    const onAbort = () => {
      requests.abort()
      context.close().catch(() => undefined)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    const traffic: PageTraffic = { refused: 0, loaded: 0, navigation: {}, warnings: [] }
    try {
      await guardRequests(context, traffic, await policyFor(), limits, requests.signal)
      traffic.page = await context.newPage()
      await navigate(traffic.page, url, traffic, budget, maxRedirects, (next) => checkFirst(next, signal), signal)
      return await readRendered(traffic.page, url, traffic, budget, { settleMs, maxBytes, extractTimeoutMs }, signal)
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) throw abortError(signal)
      throw error
    } finally {
      signal?.removeEventListener('abort', onAbort)
      requests.abort()
      open.delete(context)
      await context.close().catch(() => undefined)
    }
  }

  return {
    async fetch(url: string, opts: FetchOptions = {}): Promise<FetchedPage> {
      await checkFirst(url, opts.signal)
      return pages(() => render(url, opts.signal))
    },
    async close(): Promise<void> {
      const running = browser
      browser = undefined
      await Promise.all([...open].map((context) => context.close().catch(() => undefined)))
      if (running) await (await running.catch(() => undefined))?.close()
    },
  }
}

/** How the main document's last navigation went, as its routed request saw it. */
interface Navigation {
  redirect?: string
  error?: unknown
  status?: number
}

/** What one page's requests did: refusals and bytes counted, its main document's navigation, and the warnings for its reader. */
interface PageTraffic {
  refused: number
  loaded: number
  navigation: Navigation
  warnings: PageWarning[]
  page?: Page
}

/** A page's time: the whole budget, and what is left of it. */
interface PageBudget {
  timeoutMs: number
  remaining(): number
}

/**
 * Routes every request of the context through Node: blocked types and refused destinations are
 * aborted, the rest served by `serveRequest` within the page's byte budget; WebSockets are refused.
 */
async function guardRequests(
  context: BrowserContext,
  traffic: PageTraffic,
  rules: RequestPolicy,
  limits: { maxBytes: number; maxPageBytes: number },
  signal: AbortSignal,
): Promise<void> {
  await context.routeWebSocket(/.*/, (socket) => {
    traffic.refused++
    socket.close().catch(() => undefined)
  })
  await context.route('**/*', async (route: Route) => {
    const request = route.request()
    const isMainDocument = request.isNavigationRequest() && request.frame() === traffic.page?.mainFrame()
    if (BLOCKED_TYPES.has(request.resourceType())) return route.abort('blockedbyclient').catch(() => undefined)
    const checked = checkDestination(request.url(), rules)
    if ('refused' in checked || traffic.loaded >= limits.maxPageBytes) {
      if ('refused' in checked) traffic.refused++
      if (isMainDocument && 'refused' in checked) traffic.navigation.error = checked.refused
      return route.abort('blockedbyclient').catch(() => undefined)
    }
    try {
      const served = await serveRequest(
        request.url(),
        { method: request.method(), headers: await request.allHeaders(), body: request.postDataBuffer() },
        rules,
        Math.min(limits.maxBytes, limits.maxPageBytes - traffic.loaded),
        signal,
        !isMainDocument,
      )
      if ('redirect' in served) {
        traffic.navigation.redirect = served.redirect
        return await route.abort('aborted')
      }
      traffic.loaded += served.body.byteLength
      if (isMainDocument) traffic.navigation.status = served.status
      await route.fulfill({ status: served.status, headers: served.headers, body: served.body })
    } catch (error) {
      if (isRefusal(error)) traffic.refused++
      if (isMainDocument) traffic.navigation.error = error
      await route.abort(isRefusal(error) ? 'blockedbyclient' : 'failed').catch(() => undefined)
    }
  })
}

/**
 * Loads `url` in the page, following redirects (each checked by `checkNext`) up to `maxRedirects`.
 * A page still loading when the budget ends is kept with a `browser-timeout` warning; one with no
 * document yet, an error status or a refused destination fails.
 */
async function navigate(
  page: Page,
  url: string,
  traffic: PageTraffic,
  budget: PageBudget,
  maxRedirects: number,
  checkNext: (url: string) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  let current = url
  for (let hop = 0; ; hop++) {
    traffic.navigation = {}
    try {
      await page.goto(current, { waitUntil: 'load', timeout: budget.remaining() })
    } catch (error) {
      const navigation = traffic.navigation
      // Chromium fails the navigation itself on an error status with an empty body.
      if (navigation.status !== undefined && navigation.status >= 400) throw statusError(current, navigation.status)
      if (signal?.aborted) throw abortError(signal)
      if (navigation.redirect !== undefined && hop < maxRedirects) {
        const next = navigation.redirect
        await checkNext(next)
        current = next
        continue
      }
      if (navigation.error !== undefined) throw navigation.error
      if (!isTimeout(error)) throw pageFailed(current, error)
      if (page.url() === 'about:blank') {
        throw new ProviderError(`browser-fetch: ${shortUrl(current)} did not answer within ${budget.timeoutMs} ms`, {
          code: 'timeout',
          provider: 'browser-fetch',
          url: shortUrl(current, 2000),
          retryable: true,
        })
      }
      traffic.warnings.push({
        code: 'browser-timeout',
        message: `the page was still loading after ${budget.timeoutMs} ms; it was read as far as it had rendered`,
      })
    }
    const status = traffic.navigation.status
    if (status !== undefined && status >= 400) throw statusError(current, status)
    return
  }
}

/** Waits for the page's own requests to settle (within the budget), then reads its rendered HTML as readable text. */
async function readRendered(
  page: Page,
  url: string,
  traffic: PageTraffic,
  budget: PageBudget,
  settings: { settleMs: number; maxBytes: number; extractTimeoutMs: number },
  signal: AbortSignal | undefined,
): Promise<FetchedPage> {
  const { maxBytes } = settings
  // Playwright reads a timeout of 0 as none at all.
  const settle = Math.min(settings.settleMs, budget.remaining())
  if (settle >= 1) await page.waitForLoadState('networkidle', { timeout: settle }).catch(() => undefined)
  if (signal?.aborted) throw abortError(signal)
  // A script that never yields (an endless loop) would hold this forever: it gets what is left of the budget.
  const rendered = await withinBudget(
    page.evaluate((max: number) => {
      const html = document.documentElement ? document.documentElement.outerHTML : ''
      return { html: html.slice(0, max), length: html.length }
    }, maxBytes),
    budget.remaining() + 1_000,
    url,
    budget.timeoutMs,
  )
  const warnings = traffic.warnings
  if (rendered.length > maxBytes)
    warnings.push({ code: 'browser-truncated', message: `only the first ${maxBytes} of ${rendered.length} characters of the rendered page were read` })
  const refused = traffic.refused
  if (refused > 0)
    warnings.push({
      code: 'browser-blocked',
      message: `${refused} request${refused === 1 ? '' : 's'} of the page ${refused === 1 ? 'was' : 'were'} refused (SSRF guard or WebSocket)`,
    })
  const finalUrl = page.url()
  const extracted = await readableText(rendered.html, { timeoutMs: settings.extractTimeoutMs, signal })
  return { url: finalUrl, ...extracted, ...(warnings.length > 0 ? { warnings } : {}) }
}

/** `work`, or a `timeout` ProviderError when it is not done in `ms`. */
async function withinBudget<T>(work: Promise<T>, ms: number, url: string, budget: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new ProviderError(`browser-fetch: ${shortUrl(url)} was not readable within ${budget} ms (its scripts never yield)`, {
          code: 'timeout',
          provider: 'browser-fetch',
          url: shortUrl(url, 2000),
        }),
      )
    }, ms)
  })
  work.catch(() => undefined)
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}

/** A page the server answered with an error status fails as `httpFetch` fails on it. */
function statusError(url: string, status: number): ProviderError {
  return new ProviderError(`browser-fetch: ${shortUrl(url)} answered HTTP ${status}`, {
    code: status === 404 ? 'not-found' : 'http',
    provider: 'browser-fetch',
    status,
    url: shortUrl(url, 2000),
    retryable: status === 408 || status === 429 || status >= 500,
  })
}

function isRefusal(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ProviderError && cause.code === 'blocked-url') return true
  }
  return false
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError'
}

function pageFailed(url: string, error: unknown): ProviderError {
  const why = error instanceof Error ? error.message.split('\n')[0] : String(error)
  return new ProviderError(`browser-fetch: could not load ${shortUrl(url)}: ${why}`, {
    code: 'network',
    provider: 'browser-fetch',
    url: shortUrl(url, 2000),
    retryable: true,
    cause: error,
  })
}
