/**
 * Which requests a research server acts on. Starting a run spends the operator's keys, so it
 * needs proof that the request comes from the server's own page: a `POST` (a plain link, an
 * `<img>` or an `EventSource` can only `GET`), no browser header saying it comes from another
 * site, and the per-server token the page was served with. Reading a run's events (a `GET`)
 * only needs the right `Host` and no cross-site marker.
 *
 * Web-standard: it reads a method and headers (a `Request`, or Node's `IncomingMessage`). The
 * research handler and the chat handler run it on every request (their `host` and `token`
 * options are this guard's); a server of your own can too.
 */
import { hostAllowed } from './allowed-host.js'

/** The header a page sends the token in (`x-laconic-token`). A custom header also makes a cross-origin `fetch` preflight, which these servers never answer. */
export const TOKEN_HEADER = 'x-laconic-token'

/** Options of `createRequestGuard`. */
export interface RequestGuardOptions {
  /**
   * Serve only requests whose `Host` header names this host (any loopback name counts for a
   * loopback one), against DNS rebinding: a page whose name an attacker made resolve to
   * 127.0.0.1 still says its own name in `Host`. Set it to the name a deployed server is reached
   * by, or `false` behind a proxy that checks the host itself.
   * @defaultValue `'localhost'`: loopback names only (`localhost`, `127.0.0.1`, `[::1]`)
   */
  host?: string | false | undefined
  /**
   * The token a start must carry, or `false` for none: the origin checks alone (a page that
   * cannot add a header, such as a plain `useChat`, still needs a same-origin `POST`).
   * @defaultValue 32 random bytes, base64url, new for each guard
   */
  token?: string | false | undefined
}

/** What a guarded request looks like: a Web `Request` fits, and so does Node's `IncomingMessage`. */
export interface GuardedRequest {
  /** The HTTP method; a start must be `POST`. */
  method?: string | undefined
  /** A Web `Headers`, or Node's `req.headers`. */
  headers: Headers | Record<string, string | string[] | undefined>
  /** A `Request`'s absolute URL, whose host stands in for a missing `Host` header (a `Request` made by hand has none). */
  url?: string | undefined
}

/** Why a request is refused: the status and a line to send back. */
export interface RequestRefusal {
  /** `403` for a request from elsewhere (another site, another Host, no token); `405` for the wrong method. */
  status: 403 | 405
  /** One line saying why, for the response body. */
  message: string
  /** Headers to send with the refusal (`allow` on a 405). */
  headers: Record<string, string>
}

/** The checks a research server runs before it starts a run (`checkStart`) or serves one (`checkRead`). */
export interface RequestGuard {
  /** The per-server secret: embed it in the page you serve; the page sends it back in the `x-laconic-token` header to start a run. Undefined with `token: false`. */
  readonly token: string | undefined
  /** Undefined when the request may start a run (a `POST`); else why not. */
  checkStart(request: GuardedRequest): RequestRefusal | undefined
  /** The same checks for any request that changes something (`POST`, `PUT`, `PATCH`, `DELETE`: a cancel, say). */
  checkChange(request: GuardedRequest): RequestRefusal | undefined
  /** Undefined when the request may read (GET or HEAD); else why not. */
  checkRead(request: GuardedRequest): RequestRefusal | undefined
}

/**
 * The one cross-site check of every server that starts runs: a `POST` with the server's
 * token and no browser marker of another site starts a run; reads are `GET`s from the same
 * site or the address bar. Serve `token` in your page and have it sent in `x-laconic-token`.
 */
export function createRequestGuard(options: RequestGuardOptions = {}): RequestGuard {
  const host = options.host === false ? undefined : (options.host ?? DEFAULT_HOST)
  const token = options.token === false ? undefined : (options.token ?? randomToken())
  if (token !== undefined && token.length < 16) throw new TypeError('the request guard token must be at least 16 characters')

  /** Same site, same origin, and the token: what every state-changing request must show. */
  const fromOwnPage = (request: GuardedRequest): RequestRefusal | undefined => {
    const refused = originChecks(requestHeaders(request), START_SITES, host)
    if (refused || token === undefined) return refused
    const sent = headerReader(request.headers)(TOKEN_HEADER)
    if (sent === undefined || !constantTimeEqual(sent, token))
      return refuse(403, `this needs the server's token in the ${TOKEN_HEADER} header (its own page sends it)`)
    return undefined
  }

  return {
    token,
    checkStart(request) {
      if (request.method?.toUpperCase() !== 'POST') return refuse(405, 'start a run with POST', { allow: 'POST' })
      return fromOwnPage(request)
    },
    checkChange(request) {
      if (!CHANGE_METHODS.has(request.method?.toUpperCase() ?? 'GET'))
        return refuse(405, 'only POST, PUT, PATCH and DELETE change anything', { allow: 'POST, PUT, PATCH, DELETE' })
      return fromOwnPage(request)
    },
    checkRead(request) {
      const method = request.method?.toUpperCase() ?? 'GET'
      if (method !== 'GET' && method !== 'HEAD') return refuse(405, 'read with GET', { allow: 'GET, HEAD' })
      return originChecks(requestHeaders(request), READ_SITES, host)
    },
  }
}

/**
 * The checks every request passes: refused when `host` is set and the `Host` header names
 * another, or when a browser says the request comes from another site or origin
 * (`Sec-Fetch-Site` outside `allowedSites`, an `Origin` other than the `Host`). A request with
 * no browser markers (curl, a server) passes.
 */
function originChecks(headers: (name: string) => string | undefined, allowedSites: ReadonlySet<string>, host: string | undefined): RequestRefusal | undefined {
  if (host !== undefined && !hostAllowed(headers('host'), host)) return refuse(403, `this server answers requests addressed to ${host} only (the host option)`)
  const site = headers('sec-fetch-site')
  if (site !== undefined && !allowedSites.has(site.toLowerCase())) return refuse(403, `cross-site request refused (Sec-Fetch-Site: ${site.slice(0, 40)})`)
  const origin = headers('origin')
  if (origin !== undefined && !sameOrigin(origin, headers('host'))) return refuse(403, `cross-origin request refused (Origin: ${origin.slice(0, 100)})`)
  return undefined
}

/** The host a guard serves when none is given: loopback only, as a server on a developer's machine is. */
const DEFAULT_HOST = 'localhost'

const CHANGE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** `same-origin` only: a sibling app on another port of localhost is `same-site`, and still not ours. */
const START_SITES: ReadonlySet<string> = new Set(['same-origin'])
/** Reads may also come from the address bar (`none`). */
const READ_SITES: ReadonlySet<string> = new Set(['same-origin', 'none'])

function refuse(status: RequestRefusal['status'], message: string, headers: Record<string, string> = {}): RequestRefusal {
  return { status, message, headers }
}

/** The request's headers, with `host` taken from its absolute URL where no header gives it. */
function requestHeaders(request: GuardedRequest): (name: string) => string | undefined {
  const read = headerReader(request.headers)
  const url = request.url !== undefined && URL.canParse(request.url) ? new URL(request.url) : undefined
  return (name) => read(name) ?? (name === 'host' ? url?.host : undefined)
}

function headerReader(headers: GuardedRequest['headers']): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') return (name) => (headers as Headers).get(name) ?? undefined
  const record = headers as Record<string, string | string[] | undefined>
  return (name) => {
    const value = record[name]
    return Array.isArray(value) ? value.join(', ') : value
  }
}

/** An `Origin` naming the host the request was sent to. `null` (sandboxed frames, file pages) is never ours. */
function sameOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined || !URL.canParse(origin) || !URL.canParse(`http://${hostHeader}`)) return false
  const url = new URL(origin)
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === new URL(`http://${hostHeader}`).host
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

/** Compares without stopping at the first difference, so response times say nothing about the token. */
function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length
  for (let index = 0; index < b.length; index++) difference |= (a.charCodeAt(index % Math.max(a.length, 1)) || 0) ^ b.charCodeAt(index)
  return difference === 0
}
