/**
 * One loopback server for a test file that serves, at a fresh path, exactly the bytes and headers
 * a test gives it: how the fetch tests hand `httpFetch` a page, the way a user's fetch meets one.
 * Property tests put each generated page at its own path on the same server.
 */
import { afterAll, beforeAll } from 'vitest'
import { startLoopback, type Loopback } from '../http/loopback.js'

export interface Served {
  /** The `content-type` header; none is sent when undefined. */
  type?: string | undefined
  body: string | Uint8Array
  /** More response headers. */
  headers?: Record<string, string>
}

export interface PageHost {
  /** Serves `served` at `path` (a fresh one when not given, query string allowed) and returns its URL. */
  at(served: Served, path?: string): string
  /** The server, for its recorded requests. */
  readonly server: Loopback
}

export function pageHost(): PageHost {
  const routes = new Map<string, Served>()
  let server: Loopback | undefined
  let next = 0
  beforeAll(async () => {
    server = await startLoopback((req, res) => {
      const served = routes.get(req.url)
      if (!served) {
        res.writeHead(404)
        res.end()
        return
      }
      res.writeHead(200, { ...(served.type !== undefined ? { 'content-type': served.type } : {}), ...served.headers })
      res.end(served.body)
    })
  })
  afterAll(() => server?.close())
  return {
    at(served, path = `/page-${++next}`) {
      if (!server) throw new Error('pageHost: the server starts in beforeAll')
      routes.set(path, served)
      return `${server.url}${path}`
    },
    get server() {
      if (!server) throw new Error('pageHost: the server starts in beforeAll')
      return server
    },
  }
}

/**
 * A fetch (for `httpFetch`'s `fetch` option, with a `resolveHost` naming a public address) that
 * answers with `body` in one chunk; `delivered` resolves when the reader has asked past its end,
 * so what is left of the fetch is turning the body into text.
 */
export function deliverOnce(body: string | Uint8Array, type: string) {
  let done!: () => void
  const delivered = new Promise<void>((resolve) => (done = resolve))
  const fetch: typeof globalThis.fetch = async () => {
    let sent = false
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent) {
            controller.close()
            done()
            return
          }
          sent = true
          controller.enqueue(typeof body === 'string' ? new TextEncoder().encode(body) : body)
        },
      },
      { highWaterMark: 0 },
    )
    return new Response(stream, { headers: { 'content-type': type } })
  }
  return { fetch, delivered, resolveHost: async () => ['93.184.216.34'] }
}
