/**
 * Serves one request of a browser page from Node, never from Chromium's own network stack:
 * the URL is checked by the SSRF guard and fetched by the DNS-pinned fetch (the address checked
 * is the address dialled), redirects are followed here hop by hop and checked again, and the
 * body is capped. Chromium only ever sees the answer (`route.fulfill`), so a script, an iframe,
 * a redirect or a subresource of a hostile page cannot reach this machine or its network.
 */
import { ProviderError } from '../core/contracts/laconic-error.js'
import { checkUrlSyntax, parseWebUrl, shortUrl } from '../adapters/fetch/ssrf.js'

const REDIRECTS = new Set([301, 302, 303, 307, 308])
/** Headers the fetch sets itself, or that describe the body as Chromium would send it. */
const DROP_REQUEST = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'accept-encoding', 'cookie'])
/** The fetch decodes the body and we send it whole, so these would describe it wrongly. */
const DROP_RESPONSE = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'])

export interface RequestPolicy {
  /** Fetch for a destination the guard must check (the pinned one on Node). */
  readonly guardedFetch: typeof globalThis.fetch
  /** Fetch for a destination the caller trusts (`allowPrivateNetwork`, `allowOrigins`). */
  readonly plainFetch: typeof globalThis.fetch
  readonly allowPrivateNetwork: boolean
  readonly allowOrigins: ReadonlySet<string>
  readonly maxRedirects: number
}

export interface ServedResponse {
  status: number
  headers: Record<string, string>
  body: Buffer
  /** The URL the body came from, after redirects. */
  url: string
  /** Set when the body was cut at `maxBytes`. */
  truncated?: true
}

export type Refusal = { refused: ProviderError }

/** Checks `raw` against the policy: the URL and the fetch to use, or why it is refused. */
export function checkDestination(raw: string, policy: RequestPolicy): { url: URL; fetch: typeof globalThis.fetch } | Refusal {
  try {
    const parsed = parseWebUrl(raw)
    if (policy.allowPrivateNetwork || policy.allowOrigins.has(parsed.origin)) return { url: parsed, fetch: policy.plainFetch }
    return { url: checkUrlSyntax(raw), fetch: policy.guardedFetch }
  } catch (error) {
    if (error instanceof ProviderError) return { refused: error }
    throw error
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<{ body: Buffer; truncated?: true }> {
  const parts: Uint8Array[] = []
  let total = 0
  const reader = response.body?.getReader()
  if (!reader) return { body: Buffer.alloc(0) }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { body: Buffer.concat(parts) }
      const room = maxBytes - total
      parts.push(value.byteLength > room ? value.subarray(0, room) : value)
      total += Math.min(room, value.byteLength)
      if (value.byteLength > room || total >= maxBytes) return { body: Buffer.concat(parts), truncated: true }
    }
  } finally {
    reader.cancel().catch(() => undefined)
  }
}

/**
 * Fetches `raw` as the page asked (method, headers, body), following redirects here with each
 * hop checked (or, with `followRedirects` false, says where the first hop redirects). Throws a `blocked-url` ProviderError for a refused hop; network errors as they come.
 */
export async function serveRequest(
  raw: string,
  init: { method: string; headers: Record<string, string>; body?: Buffer | null },
  policy: RequestPolicy,
  maxBytes: number,
  signal: AbortSignal,
  followRedirects = true,
): Promise<ServedResponse | { redirect: string }> {
  const headers = Object.fromEntries(Object.entries(init.headers).filter(([name]) => !DROP_REQUEST.has(name.toLowerCase())))
  let method = init.method
  let body = init.body && init.body.byteLength > 0 ? init.body : undefined
  let current = raw
  for (let hop = 0; ; hop++) {
    const checked = checkDestination(current, policy)
    if ('refused' in checked) throw checked.refused
    const response = await checked.fetch(checked.url.href, { method, headers, body: body ? new Uint8Array(body) : null, redirect: 'manual', signal })
    const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null
    if (location !== null && URL.canParse(location, checked.url)) {
      response.body?.cancel().catch(() => undefined)
      // A page's own navigation is sent to its new URL by the caller, so that its relative links resolve there.
      if (!followRedirects) return { redirect: new URL(location, checked.url).href }
      if (hop >= policy.maxRedirects) {
        throw new ProviderError(`browser-fetch: more than ${policy.maxRedirects} redirects from ${shortUrl(raw)}`, {
          code: 'http',
          provider: 'browser-fetch',
          url: shortUrl(raw, 2000),
        })
      }
      // As browsers do: a 303, or a 301/302 of a POST, becomes a GET without a body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET'
        body = undefined
      }
      current = new URL(location, checked.url).href
      continue
    }
    const out: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      if (!DROP_RESPONSE.has(name)) out[name] = value
    })
    const capped = await readCapped(response, maxBytes)
    return { status: response.status, headers: out, url: current, ...capped }
  }
}
