import { mkdirSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoAgent } from '../../examples/sse-server/demo.js'
import { DEMO_LABEL } from '../../examples/sse-server/server.js'
import { createLiveServer } from '../../src/node/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'

const EXPECTED_ANSWER =
  'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper [1]. ' +
  'Baker was honoured for computational protein design [2], and Hassabis and Jumper for predicting protein structures with AlphaFold [3].'

describe.skipIf(!browserAvailable('the live-page browser test'))('the live page in a real browser (demo mode)', () => {
  let browser: Browser
  const demo = demoAgent({ tokenDelayMs: 5 })
  const questions: string[] = []
  const agent = {
    research(question: string, options: { signal: AbortSignal }) {
      questions.push(question)
      return demo.research(question, options)
    },
  }
  const server = createLiveServer({ agent, label: DEMO_LABEL, heartbeatMs: 1000 })
  const received: { method: string; url: string; headers: IncomingHttpHeaders }[] = []
  server.on('request', (req) => received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers }))
  let base = ''

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('shows the plan, the queries with results, the facts and the streamed, cited answer', async () => {
    const page = await browser.newPage()
    await page.goto(base)
    await expect(page.locator('#label').textContent()).resolves.toMatch(/scripted demo/i)
    await page.click('button[type=submit]')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })

    expect(await page.locator('#plan li').first().textContent()).toContain('2024 chemistry laureates')
    expect(await page.locator('.query > strong').allTextContents()).toEqual([
      '2024 Nobel Prize Chemistry winners',
      'AlphaFold protein structure prediction Nobel',
      'David Baker computational protein design',
    ])
    expect(await page.locator('.query .results a').count()).toBeGreaterThan(0)

    // The bare "2024" fact was superseded and replaced by the full sentence.
    const facts = await page.locator('#facts li').allTextContents()
    expect(facts).toHaveLength(3)
    expect(facts.some((fact) => fact.startsWith('The 2024 Nobel Prize in Chemistry went to'))).toBe(true)
    expect(facts.some((fact) => fact.trim().startsWith('2024 ['))).toBe(false)

    expect(await page.locator('#knowledge').textContent()).toContain('computational protein design')
    expect(await page.locator('#answer').textContent()).toBe(EXPECTED_ANSWER)
    // Streamed token by token, not painted at once.
    expect(Number(await page.locator('#answer').getAttribute('data-tokens'))).toBeGreaterThan(10)
    const citation = page.locator('#answer a.citation').first()
    expect(await citation.textContent()).toBe('[1]')
    expect(await citation.getAttribute('href')).toBe('https://www.nobelprize.org/prizes/chemistry/2024/summary/')
    // 7 or 8 calls: a node's answer check still running when another says "answerable" is aborted.
    expect(await page.locator('#status').textContent()).toMatch(/^Done\. · \$0\.\d{4} · [78] model calls · 3 searches/)

    // Only web URLs become links: a javascript: or data: URL from a custom provider is text.
    const tags = await page.evaluate(
      `['https://example.org/', 'javascript:alert(1)', 'data:text/html,x', ' javascript:x'].map((url) => link(url, {}, 'x').tagName)`,
    )
    expect(tags).toEqual(['A', 'SPAN', 'SPAN', 'SPAN'])

    // A query shows as soon as it starts; one with no results says why (a pipelined query the plan dropped is cancelled).
    const outcomes = await page.evaluate(`(() => {
      const show = (queryId, error) => {
        handlers.query({ type: 'query', queryId, query: 'q ' + queryId })
        const searching = document.querySelector('#query-' + queryId + ' .results').textContent
        handlers.result({ type: 'result', queryId, results: [], ...(error ? { error } : {}) })
        return [searching, document.querySelector('#query-' + queryId + ' .results').textContent]
      }
      return [show('x1'), show('x2', { code: 'aborted', message: 'dropped' }), show('x3', { code: 'search-failed', message: 'HTTP 503 <b>x</b>' })]
    })()`)
    expect(outcomes).toEqual([
      ['searching…', 'no results'],
      ['searching…', 'cancelled'],
      ['searching…', 'search failed: HTTP 503 <b>x</b>'],
    ])

    // The answer is where the eye lands: above the plan and the results.
    const answerTop = (await page.locator('#answer-panel').boundingBox())?.y ?? Number.POSITIVE_INFINITY
    const planTop = (await page.locator('#plan').boundingBox())?.y ?? 0
    expect(answerTop).toBeLessThan(planTop)

    mkdirSync('test/artifacts', { recursive: true })
    await page.screenshot({ path: 'test/artifacts/sse-server-demo.png', fullPage: true })
  })

  it('a page on another site cannot start a run: not with an <img>, an EventSource, a form or fetch', async () => {
    const before = questions.length
    const seen = received.length
    // The attacker's page, on another origin (localhost vs 127.0.0.1: another site too).
    const evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><body>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${base}/runs" enctype="text/plain" target="sink"><input name='{"question":"form","x":"' value='"}'></form>
<script>
const target = ${JSON.stringify(base)}
const attempts = [
  new Promise((done) => { const img = new Image(); img.onload = img.onerror = done; img.src = target + '/runs?question=img' }),
  new Promise((done) => { const es = new EventSource(target + '/runs?question=eventsource'); es.onerror = () => { es.close(); done() } }),
  fetch(target + '/runs', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"question":"no-cors"}' }).catch(() => {}),
  fetch(target + '/runs', { method: 'POST', headers: { 'content-type': 'application/json', 'x-laconic-token': 'guessed' }, body: '{"question":"cors"}' }).catch(() => {}),
  new Promise((done) => { document.querySelector('iframe').onload = done; document.getElementById('f').submit() }),
]
Promise.all(attempts).then(() => { document.body.dataset.done = 'yes' })
</script></body>`)
    })
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
    try {
      const page = await browser.newPage()
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`)
      await page.waitForSelector('body[data-done=yes]', { timeout: 15_000 })
      const attempts = received.slice(seen)
      // The requests did reach the server, marked by the browser as cross-site...
      expect(attempts.filter((r) => r.method === 'POST').length).toBeGreaterThanOrEqual(2)
      expect(attempts.some((r) => r.method === 'GET' && r.url.startsWith('/runs?question='))).toBe(true)
      for (const attempt of attempts) expect(attempt.headers['sec-fetch-site']).toBe('cross-site')
      // ...and not one started a run.
      expect(questions.length).toBe(before)
    } finally {
      evil.closeAllConnections()
      await new Promise((resolve) => evil.close(resolve))
    }
  })
})
