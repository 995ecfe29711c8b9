/**
 * examples/hono: the research handler mounted in a Hono app, driven through `app.request()` as a
 * user's code or Hono's own tests would: the page, a run started with its token and streamed to
 * its end, the app's own route beside it, and the guard refusing a start from another site.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { fromSSE } from '../../src/streams/index.js'
import { createApp } from '../../examples/hono/app.js'
import { demoAgent } from '../../examples/sse-server/demo.js'

const closers: (() => void)[] = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

function demoApp() {
  const { app, runs } = createApp(demoAgent({ tokenDelayMs: 0 }), { label: 'Scripted demo' })
  closers.push(() => runs.close())
  return app
}

async function tokenOf(app: ReturnType<typeof demoApp>): Promise<string> {
  const page = await (await app.request('/')).text()
  return /<meta name="laconic-token" content="([^"]+)">/.exec(page)?.[1] ?? ''
}

describe('the research handler in a Hono app', () => {
  it('serves the live page with its policy, and the app keeps its own routes', async () => {
    const app = demoApp()
    const page = await app.request('/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(await page.text()).toContain('<p class="banner" id="label">Scripted demo</p>')
    expect(await (await app.request('/health')).json()).toEqual({ ok: true })
  })

  it('starts a run with the page token and streams it to its run-end and the end frame', async () => {
    const app = demoApp()
    const started = await app.request('/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-laconic-token': await tokenOf(app) },
      body: JSON.stringify({ question: 'Who won the 2024 Nobel Prize in Chemistry?' }),
    })
    expect(started.status).toBe(201)
    const { runId } = (await started.json()) as { runId: string }
    const stream = await app.request(`/runs/${runId}/events`)
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events: ResearchEvent[] = []
    for await (const event of fromSSE(stream.body!)) events.push(event)
    expect(events[0]).toMatchObject({ type: 'run-start', question: 'Who won the 2024 Nobel Prize in Chemistry?' })
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    expect(await (await app.request(`/runs/${runId}`)).json()).toMatchObject({ runId, state: 'done', result: { reason: 'answered' } })
  })

  it('refuses a start from another site, token and all, with a JSON 403', async () => {
    const app = demoApp()
    const refused = await app.request('/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-laconic-token': await tokenOf(app), 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      body: JSON.stringify({ question: 'spend' }),
    })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ code: 'forbidden' })
  })
})
