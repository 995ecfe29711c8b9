import { mkdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoAgent } from '../../examples/sse-server/demo.js'
import { DEMO_LABEL } from '../../examples/sse-server/server.js'
import { createLiveServer } from '../../src/node/index.js'
import { findChromium } from '../support/find-chromium.js'

const chromiumLookup = findChromium()
if (!chromiumLookup.found && !chromiumLookup.mustFail) console.warn(`[skipped] the live-page browser test: ${chromiumLookup.notice}`)
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]
const EXPECTED_ANSWER =
  'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper [1]. ' +
  'Baker was honoured for computational protein design [2], and Hassabis and Jumper for predicting protein structures with AlphaFold [3].'

describe.skipIf(!chromiumLookup.found && !chromiumLookup.mustFail)('the live page in a real browser (demo mode)', () => {
  let browser: Browser
  const server = createLiveServer({ agent: demoAgent({ tokenDelayMs: 5 }), label: DEMO_LABEL, heartbeatMs: 1000 })
  let base = ''

  beforeAll(async () => {
    if (!chromiumLookup.found) throw new Error(`${chromiumLookup.notice} (CI is set, so a missing browser fails)`)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await chromium.launch({ executablePath: chromiumLookup.path, args: ARGS })
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

    mkdirSync('test/artifacts', { recursive: true })
    await page.screenshot({ path: 'test/artifacts/sse-server-demo.png', fullPage: true })
  })
})
