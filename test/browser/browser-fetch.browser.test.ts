/**
 * `browserFetch` in a real Chromium against loopback pages: text written by scripts, the SSRF
 * guard on every request a page makes (a second loopback server records whether it was ever
 * reached; it never may be), and the limits: time, bytes, abort.
 *
 * The page server is let through by `allowOrigins` (its own origin only); the target server is
 * another loopback origin, so it stays as refused as any private address would be.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpFetch } from '../../src/adapters/index.js'
import { browserFetch, type BrowserFetchProvider } from '../../src/browser/index.js'
import { browserAvailable } from '../support/browser.js'
import { findChromium } from '../support/find-chromium.js'

const ARTICLE = 'Kelp forests grow in cold, nutrient-rich water along rocky coasts. '.repeat(12)

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

const html = (body: string, head = '') => `<!doctype html><html><head><title>Test page</title>${head}</head><body>${body}</body></html>`

/** The time budget of the tests that wait it out: long enough that a busy 2-core machine still renders a page within it. */
const PAGE_BUDGET_MS = 6_000

describe.runIf(browserAvailable('browserFetch in Chromium'))('browserFetch in Chromium', () => {
  const targetHits: string[] = []
  let target: { server: Server; origin: string }
  let site: { server: Server; origin: string }
  let reader: BrowserFetchProvider
  /** Resolved when the server sees a request for a path in it (the test waits on it, not the clock). */
  const seen = new Map<string, () => void>()
  const sawRequest = (path: string) => new Promise<void>((resolve) => seen.set(path, resolve))
  const closed = new Map<string, () => void>()
  const connectionClosed = (path: string) => new Promise<void>((resolve) => closed.set(path, resolve))

  /**
   * Two pages that each wait for the other: a request held until a second one arrives, when both
   * are answered (they overlapped), or until it is dropped, after which the next is answered at once.
   */
  const pool = { held: [] as ServerResponse[], dropped: 0, overlapped: false }
  function pooled(res: ServerResponse, page: string) {
    res.setHeader('content-type', 'text/html')
    if (pool.held.length > 0) {
      pool.overlapped = true
      for (const other of pool.held.splice(0)) other.end(page)
      return res.end(page)
    }
    if (pool.dropped > 0) return res.end(page)
    pool.held.push(res)
    res.on('close', () => {
      if (res.writableEnded) return
      pool.held = pool.held.filter((other) => other !== res)
      pool.dropped++
    })
  }

  beforeAll(async () => {
    target = await listen((req, res) => {
      targetHits.push(`${req.method} ${req.url}`)
      res.setHeader('access-control-allow-origin', '*')
      res.end('internal secret')
    })
    const t = target.origin
    const pages: Record<string, string> = {
      '/script': html(
        `<div id="root"></div><script>document.getElementById('root').innerHTML = '<article><h1>Kelp</h1><time datetime="2023-04-05">5 April</time><p>${ARTICLE}</p></article>'</script>`,
      ),
      '/fetched': html(
        `<div id="root"></div><script>fetch('/data').then(r => r.text()).then(t => { document.getElementById('root').innerHTML = '<article><p>' + t + '</p></article>' })</script>`,
      ),
      '/attack': html(
        `<article><p>${ARTICLE}</p></article>
         <img src="${t}/img"><link rel="stylesheet" href="${t}/css"><script src="${t}/js"></script>
         <iframe src="${t}/frame"></iframe><iframe src="/to-target"></iframe>
         <script>
           fetch('${t}/fetch', { mode: 'no-cors' }).catch(() => {})
           fetch('http://rebind.test:${new URL(t).port}/rebind', { mode: 'no-cors' }).catch(() => {})
           fetch('/to-target').catch(() => {})
           const x = new XMLHttpRequest(); x.open('GET', '${t}/xhr'); x.send()
           try { new WebSocket('${t.replace('http', 'ws')}/ws') } catch {}
           navigator.sendBeacon('${t}/beacon', 'x')
         </script>`,
        `<link rel="preconnect" href="${t}"><link rel="prefetch" href="${t}/prefetch">`,
      ),
      '/huge': html(`<div id="root"></div><script>document.getElementById('root').textContent = 'x'.repeat(3000000)</script>`),
      '/stalls': html(`<article><p>${ARTICLE}</p></article><script src="/never"></script>`),
      '/spins': html(`<p>Loading</p><script>for (;;) {}</script>`),
      '/static': html(`<article><h1>Static</h1><p>${ARTICLE}</p></article><script></script>`),
    }
    site = await listen((req, res) => {
      const path = req.url ?? '/'
      seen.get(path)?.()
      res.on('close', () => closed.get(path)?.())
      if (path === '/data') return res.end(ARTICLE)
      if (path === '/to-target' || path === '/redirect-out') {
        res.writeHead(302, { location: `${t}/redirected` })
        return res.end()
      }
      if (path === '/redirect-in') {
        res.writeHead(302, { location: '/script' })
        return res.end()
      }
      if (path.startsWith('/pool-')) return pooled(res, pages['/static'] as string)
      if (path === '/never' || path === '/hangs') return // never answers
      const page = pages[path]
      if (!page) {
        res.writeHead(404)
        return res.end()
      }
      res.setHeader('content-type', 'text/html; charset=utf-8')
      res.end(page)
    })
    const lookup = findChromium()
    reader = browserFetch({
      ...(lookup.found ? { executablePath: lookup.path } : {}),
      allowOrigins: [site.origin],
      resolveHost: async (host) => (host === 'rebind.test' ? ['127.0.0.1'] : ['93.184.215.14']),
      settleMs: 1_000,
    })
  })

  afterAll(async () => {
    await reader?.close()
    site?.server.closeAllConnections()
    await Promise.all([site, target].map((s) => s && new Promise((resolve) => s.server.close(resolve))))
  })

  it('reads text a script writes, through the readable-text extraction, and the date it writes in the article', async () => {
    const page = await reader.fetch(`${site.origin}/script`)
    expect(page.title).toBe('Test page')
    expect(page.published).toBe('2023-04-05')
    expect(page.text).toContain('Kelp forests grow in cold')
    expect(page.text).not.toContain('<p>')
  })

  it('waits for text a script fetches, and follows a redirect to the new URL', async () => {
    expect((await reader.fetch(`${site.origin}/fetched`)).text).toContain('Kelp forests grow')
    const redirected = await reader.fetch(`${site.origin}/redirect-in`)
    expect(redirected.url).toBe(`${site.origin}/script`)
    expect(redirected.text).toContain('Kelp forests grow')
  })

  it('never reaches another private address: not by script, XHR, WebSocket, iframe, redirect, subresource or DNS rebinding', async () => {
    const page = await reader.fetch(`${site.origin}/attack`)
    expect(page.text).toContain('Kelp forests grow')
    expect(page.warnings?.find((warning) => warning.code === 'browser-blocked')?.message).toMatch(/refused/)
    expect(targetHits).toEqual([])
  })

  it('refuses a page that redirects to a private address, and a private page itself', async () => {
    await expect(reader.fetch(`${site.origin}/redirect-out`)).rejects.toMatchObject({ code: 'blocked-url' })
    await expect(reader.fetch(`${target.origin}/`)).rejects.toMatchObject({ code: 'blocked-url' })
    expect(targetHits).toEqual([])
  })

  it('fails on a page the server answers with an error status, as httpFetch does', async () => {
    await expect(reader.fetch(`${site.origin}/missing`)).rejects.toMatchObject({ code: 'not-found', status: 404 })
  })

  it('opens at most maxPages pages at once: a second page waits until the first is done', async () => {
    const one = browserFetch({
      executablePath: (findChromium() as { path: string }).path,
      allowOrigins: [site.origin],
      maxPages: 1,
      timeoutMs: PAGE_BUDGET_MS,
      settleMs: 0,
    })
    try {
      await one.fetch(`${site.origin}/static`) // the browser is up before the two pages race
      const outcomes = await Promise.allSettled([one.fetch(`${site.origin}/pool-a`), one.fetch(`${site.origin}/pool-b`)])
      // Had both pages been open at once, each would have released the other and both read.
      expect(pool.overlapped).toBe(false)
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected'])
      expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { code: 'timeout' } })
    } finally {
      await one.close()
    }
  }, 40_000)

  it('cuts a huge rendered page at the byte budget', async () => {
    const small = browserFetch({ executablePath: (findChromium() as { path: string }).path, allowOrigins: [site.origin], maxBytes: 100_000, settleMs: 0 })
    try {
      const page = await small.fetch(`${site.origin}/huge`)
      expect(page.text.length).toBeLessThanOrEqual(100_000)
      expect(page.warnings?.map((warning) => warning.code)).toContain('browser-truncated')
    } finally {
      await small.close()
    }
  })

  it('reads a page that never finishes loading as far as it got, at the time budget', async () => {
    const quick = browserFetch({
      executablePath: (findChromium() as { path: string }).path,
      allowOrigins: [site.origin],
      timeoutMs: PAGE_BUDGET_MS,
      settleMs: 0,
    })
    try {
      const page = await quick.fetch(`${site.origin}/stalls`)
      expect(page.text).toContain('Kelp forests grow')
      expect(page.warnings?.map((warning) => warning.code)).toContain('browser-timeout')
    } finally {
      await quick.close()
    }
  }, 40_000)

  it('a page whose script never yields fails with a timeout at the time budget', async () => {
    const quick = browserFetch({
      executablePath: (findChromium() as { path: string }).path,
      allowOrigins: [site.origin],
      timeoutMs: PAGE_BUDGET_MS,
      settleMs: 0,
    })
    try {
      await expect(quick.fetch(`${site.origin}/spins`)).rejects.toMatchObject({ code: 'timeout' })
    } finally {
      await quick.close()
    }
  }, 40_000)

  it('an abort rejects at once and closes the page and its requests', async () => {
    const controller = new AbortController()
    const requested = sawRequest('/hangs')
    const dropped = connectionClosed('/hangs')
    const reading = reader.fetch(`${site.origin}/hangs`, { signal: controller.signal })
    await requested
    controller.abort()
    await expect(reading).rejects.toMatchObject({ code: 'aborted' })
    await dropped
  })

  it('as httpFetch fallback: reads only pages that look script-rendered, and says so', async () => {
    const fetcher = httpFetch({ allowPrivateNetwork: true, fallback: reader })
    const rendered = await fetcher.fetch(`${site.origin}/script`)
    expect(rendered.text).toContain('Kelp forests grow')
    expect(rendered.fallback).toMatch(/written by scripts/)
    const plain = await fetcher.fetch(`${site.origin}/static`)
    expect(plain.text).toContain('Kelp forests grow')
    expect(plain.fallback).toBeUndefined()
  })
})
