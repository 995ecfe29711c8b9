/**
 * `httpFetch({ fallback })` asks its fallback only for pages that look script-rendered, marks the
 * page it returns, and keeps the page as fetched when the fallback fails. The fallback here is a
 * provider of the test's own (the real browser is in test/browser); what is tested is httpFetch.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import { ProviderError, type FetchProvider } from '../../../src/index.js'

const ARTICLE = `<article><h1>Kelp</h1><p>${'Kelp forests grow in cold, nutrient-rich water along rocky coasts. '.repeat(8)}</p></article>`
const PAGES: Record<string, string> = {
  '/app': '<html><head><title>App</title></head><body><div id="root"></div><script src="/bundle.js"></script></body></html>',
  '/article': `<html><head><title>Kelp</title></head><body>${ARTICLE}<script></script><script></script><script></script></body></html>`,
}

let server: Server
let origin: string
beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html')
    res.end(PAGES[req.url ?? ''] ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

describe('httpFetch fallback', () => {
  it('reads a script-rendered page with the fallback, and says so', async () => {
    const asked: string[] = []
    const fallback: FetchProvider = {
      async fetch(url) {
        asked.push(url)
        return { url, title: 'App', text: 'Rendered kelp text.' }
      },
    }
    const fetcher = httpFetch({ allowPrivateNetwork: true, fallback })
    const page = await fetcher.fetch(`${origin}/app`)
    expect(page).toMatchObject({ url: `${origin}/app`, text: 'Rendered kelp text.', fallback: expect.stringMatching(/written by scripts/) })
    expect((await fetcher.fetch(`${origin}/article`)).fallback).toBeUndefined()
    expect(asked).toEqual([`${origin}/app`])
  })

  it('keeps the page as fetched, with a warning, when the fallback fails', async () => {
    const fallback: FetchProvider = {
      fetch: async () => {
        throw new ProviderError('no browser here', { code: 'config', provider: 'test' })
      },
    }
    const page = await httpFetch({ allowPrivateNetwork: true, fallback }).fetch(`${origin}/app`)
    expect(page.fallback).toBeUndefined()
    expect(page.warnings).toEqual([{ code: 'fallback-failed', message: expect.stringContaining('no browser here') }])
    expect('scriptRendered' in page).toBe(false)
  })
})
