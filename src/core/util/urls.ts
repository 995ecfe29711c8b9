/**
 * URL helpers shared by strategies (deep-read selection) and adapters (fetch, search parsing).
 */

/** Hosts and paths that serve ads or tracking redirects, never content worth reading. */
const AD_HOST_SUFFIXES = [
  'doubleclick.net',
  'googlesyndication.com',
  'googleadservices.com',
  'google-analytics.com',
  'googletagmanager.com',
  'adservice.google.com',
  'amazon-adsystem.com',
  'adnxs.com',
  'taboola.com',
  'outbrain.com',
  'criteo.com',
  'bat.bing.com',
  'ads.yahoo.com',
  'scorecardresearch.com',
]

/** True for ad and tracker URLs (DuckDuckGo `y.js` ad redirects, ad networks, analytics). */
export function isAdUrl(raw: string): boolean {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  const host = url.hostname.toLowerCase()
  if (host.endsWith('duckduckgo.com') && (url.pathname === '/y.js' || url.searchParams.has('ad_provider'))) return true
  if (url.pathname.endsWith('/aclk') || url.pathname.startsWith('/pagead/')) return true
  return AD_HOST_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))
}

const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|msclkid|mc_eid|ref_src)$/i

/**
 * A comparison key for URLs: lower-case scheme and host, no `www.`, no fragment, no
 * tracking parameters, no trailing slash. Unparseable input is returned trimmed. A document's
 * page (`#page=7`) is kept: two pages of one PDF are two sources, cited apart.
 */
export function normalizeUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return raw.trim()
  }
  const page = /^#page=\d{1,6}$/.test(url.hash) ? url.hash : ''
  url.hash = ''
  for (const key of [...url.searchParams.keys()]) if (TRACKING_PARAMS.test(key)) url.searchParams.delete(key)
  const host = url.hostname.toLowerCase().replace(/^www\./, '')
  const path = url.pathname.replace(/\/+$/, '')
  const query = url.searchParams.toString()
  return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${path}${query ? `?${query}` : ''}${page}`
}

const CREDENTIAL_PARAM = /key|token|secret|password|passwd|auth|sig|session/i

/**
 * A URL fit for logs and traces: no `user:password@`, and credential-looking query values
 * (`api_key`, `token`, `sig`, ...) replaced by `[redacted]`. Undefined for text that is not a
 * URL, so nothing unparsed reaches a log or trace backend by accident.
 */
export function redactUrl(raw: string): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return undefined
  }
  url.username = ''
  url.password = ''
  for (const name of [...url.searchParams.keys()]) {
    if (CREDENTIAL_PARAM.test(name)) url.searchParams.set(name, '[redacted]')
  }
  return url.href
}
