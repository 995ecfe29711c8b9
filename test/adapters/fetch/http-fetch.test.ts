import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { httpFetch } from '../../../src/adapters/index.js'
import { cutAt, startLoopback, writePieces } from '../http/loopback.js'
import type { Handler, Loopback } from '../http/loopback.js'

const article = readFileSync(new URL('./fixtures/article.html', import.meta.url))
const local = { allowPrivateNetwork: true, maxRetries: 0, timeoutMs: 2000 }

let server: Loopback | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(handler: Handler): Promise<string> {
  server = await startLoopback(handler)
  return server.url
}

const send =
  (status: number, headers: Record<string, string>, body: string | Uint8Array = ''): Handler =>
  (_req, res) => {
    res.writeHead(status, headers)
    res.end(body)
  }

describe('httpFetch: reading', () => {
  it('returns the article text and title, however the page is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: article.length }), { maxLength: 16 }), async (offsets) => {
        const base = await serve(async (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          await writePieces(res, cutAt(article, offsets))
          res.end()
        })
        const page = await httpFetch(local).fetch(`${base}/llamas`)
        expect(page.url).toBe(`${base}/llamas`)
        expect(page.title).toBe('How llamas eat | Camelid Weekly')
        expect(page.text).toContain('An adult llama eats roughly 2–4% of its body weight')
        expect(page.text).toContain('## Water')
        expect(page.text).toContain('- Minerals & salt')
        expect(page.text).not.toContain('dataLayer')
        expect(page.text).not.toContain('Privacy')
        await server?.close()
        server = undefined
      }),
      { numRuns: 8 },
    )
  })

  it('falls back to the whole page as text when there is no article', async () => {
    const base = await serve(
      send(200, { 'content-type': 'text/html' }, '<html><head><title>Tiny</title></head><body><p>Just one line.</p><script>x()</script></body></html>'),
    )
    await expect(httpFetch(local).fetch(base)).resolves.toEqual({ url: `${base}/`, title: 'Tiny', text: 'Just one line.' })
  })

  it('returns plain text and JSON as they are', async () => {
    const base = await serve((req, res) =>
      req.url === '/t'
        ? send(200, { 'content-type': 'text/plain' }, 'line one\r\nline two')(req, res, 1)
        : send(200, { 'content-type': 'application/json' }, '{"a":[1,2]}')(req, res, 1),
    )
    await expect(httpFetch(local).fetch(`${base}/t`)).resolves.toEqual({ url: `${base}/t`, text: 'line one\nline two' })
    await expect(httpFetch(local).fetch(`${base}/j`)).resolves.toEqual({ url: `${base}/j`, text: '{"a":[1,2]}' })
  })

  it('honours the charset from the header, from a meta tag, and from a byte-order mark', async () => {
    const latin1 = Buffer.from('<p>Caf\xe9 cr\xe8me, \xa33</p>', 'latin1')
    const meta = Buffer.concat([
      Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><title>T</title></head><body>'),
      Buffer.from('<p>\x93quoted\x94 na\xefve</p>', 'latin1'),
      Buffer.from('</body></html>'),
    ])
    const bom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo wörld', 'utf16le')])
    const base = await serve((req, res) => {
      if (req.url === '/header') return send(200, { 'content-type': 'text/html; charset=ISO-8859-1' }, latin1)(req, res, 1)
      if (req.url === '/meta') return send(200, { 'content-type': 'text/html' }, meta)(req, res, 1)
      return send(200, { 'content-type': 'text/plain' }, bom)(req, res, 1)
    })
    const fetcher = httpFetch(local)
    expect((await fetcher.fetch(`${base}/header`)).text).toBe('Café crème, £3')
    expect((await fetcher.fetch(`${base}/meta`)).text).toBe('“quoted” naïve')
    expect((await fetcher.fetch(`${base}/bom`)).text).toBe('héllo wörld')
  })

  it('stops reading at the byte cap and closes the connection', async () => {
    const base = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      for (let i = 0; i < 2000 && !res.destroyed; i++) await writePieces(res, ['x'.repeat(1000)])
      res.end()
    })
    const page = await httpFetch({ ...local, maxBytes: 5000 }).fetch(base)
    expect(page.text).toBe('x'.repeat(5000))
    await server?.closedEarly
  })

  it('refuses content a model cannot read, before downloading it', async () => {
    const base = await serve(async (req, res) => {
      if (req.url === '/sniffed') return send(200, {}, Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]))(req, res, 1)
      res.writeHead(200, { 'content-type': 'image/png' })
      for (let i = 0; i < 2000 && !res.destroyed; i++) await writePieces(res, ['\x89PNG'.repeat(250)])
      res.end()
    })
    await expect(httpFetch(local).fetch(`${base}/image.png`)).rejects.toMatchObject({
      code: 'unsupported-content',
      message: expect.stringContaining('image/png'),
    })
    await server?.closedEarly
    await expect(httpFetch(local).fetch(`${base}/sniffed`)).rejects.toMatchObject({ code: 'unsupported-content' })
  })
})

describe('httpFetch: redirects and the SSRF guard', () => {
  it('follows redirects by hand, relative ones too, and reports the final URL', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/a') return send(301, { location: '/b' })(req, res, 1)
      if (req.url === '/b') return send(302, { location: `${server?.url}/c?x=1` })(req, res, 1)
      return send(200, { 'content-type': 'text/plain' }, 'arrived')(req, res, 1)
    })
    await expect(httpFetch(local).fetch(`${base}/a`)).resolves.toEqual({ url: `${base}/c?x=1`, text: 'arrived' })
  })

  it('reports a broken Location header', async () => {
    const base = await serve(send(302, { location: 'http://[::1' }))
    await expect(httpFetch(local).fetch(base)).rejects.toMatchObject({ code: 'bad-response', status: 302 })
  })

  it('stops after maxRedirects', async () => {
    const base = await serve((req, res) => send(302, { location: `/loop${server?.requests.length}` })(req, res, 1))
    await expect(httpFetch(local).fetch(`${base}/start`)).rejects.toMatchObject({ code: 'http', message: expect.stringContaining('more than 5 redirects') })
    expect(server?.requests).toHaveLength(6)
  })

  it('refuses loopback destinations by default, without sending anything', async () => {
    const base = await serve(send(200, { 'content-type': 'text/plain' }, 'secret'))
    const port = new URL(base).port
    for (const url of [base, `http://localhost:${port}/`, `http://0x7f.1:${port}/`, `http://2130706433:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`]) {
      await expect(httpFetch({ maxRetries: 0 }).fetch(url), url).rejects.toMatchObject({
        code: 'blocked-url',
        hint: expect.stringContaining('allowPrivateNetwork'),
      })
    }
    expect(server?.requests).toHaveLength(0)
  })

  it('checks every redirect hop: a public page cannot bounce the fetch into the private network', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/to-literal') return send(302, { location: `${server?.url}/secret` })(req, res, 1)
      if (req.url === '/to-name') return send(307, { location: 'http://intranet.test/secret' })(req, res, 1)
      return send(200, { 'content-type': 'text/plain' }, 'secret')(req, res, 1)
    })
    const resolveHost = async (host: string) => (host === 'public.test' ? ['93.184.216.34'] : ['10.1.2.3'])
    // "public.test" resolves to a public address; the injected fetch delivers it to the loopback server.
    const fetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(String(input).replace('http://public.test', base), init)
    const fetcher = httpFetch({ resolveHost, fetch, maxRetries: 0 })
    await expect(fetcher.fetch('http://public.test/to-literal')).rejects.toMatchObject({ code: 'blocked-url', url: `${base}/secret` })
    await expect(fetcher.fetch('http://public.test/to-name')).rejects.toMatchObject({ code: 'blocked-url', message: expect.stringContaining('10.1.2.3') })
    expect(server?.requests.map((r) => r.url)).toEqual(['/to-literal', '/to-name'])
  })

  it('refuses ad and tracker URLs before fetching', async () => {
    let called = false
    const fetch: typeof globalThis.fetch = async () => {
      called = true
      return new Response('')
    }
    const fetcher = httpFetch({ fetch, resolveHost: async () => ['93.184.216.34'] })
    await expect(fetcher.fetch('https://duckduckgo.com/y.js?ad_domain=x.example')).rejects.toMatchObject({
      code: 'blocked-url',
      message: expect.stringContaining('ad or tracker'),
    })
    await expect(fetcher.fetch('https://ad.doubleclick.net/click')).rejects.toMatchObject({ code: 'blocked-url' })
    expect(called).toBe(false)
  })

  it('reports an unknown host as a network error', async () => {
    const fetcher = httpFetch({
      maxRetries: 0,
      resolveHost: async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nope.test'), { code: 'ENOTFOUND' })),
    })
    await expect(fetcher.fetch('http://nope.test/')).rejects.toMatchObject({ code: 'network', message: expect.stringContaining('nope.test') })
  })
})

describe('httpFetch: failures', () => {
  it('maps HTTP errors to typed errors', async () => {
    const base = await serve(send(404, { 'content-type': 'text/html' }, '<title>Not Found</title>'))
    await expect(httpFetch(local).fetch(`${base}/missing`)).rejects.toMatchObject({ code: 'not-found', status: 404, provider: 'http-fetch' })
  })

  it('times out a silent server', async () => {
    const base = await serve(() => {})
    await expect(httpFetch({ ...local, timeoutMs: 50 }).fetch(base)).rejects.toMatchObject({ code: 'timeout' })
  })

  it('aborts an in-flight fetch', async () => {
    // The server announces the request and never answers: the abort lands mid-request.
    let requestArrived!: () => void
    const arrived = new Promise<void>((resolve) => (requestArrived = resolve))
    const base = await serve(() => requestArrived())
    const controller = new AbortController()
    const pending = httpFetch(local).fetch(base, { signal: controller.signal })
    await arrived
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'aborted' })
  })
})
