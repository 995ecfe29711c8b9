/** The AI SDK chat example in a real browser: its page reads the UI message stream of a demo run. */
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatServer } from '../../examples/ai-sdk-chat/server.js'
import { demoAgent } from '../../examples/sse-server/demo.js'
import type { Agent } from '../../src/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'

type SessionOptions = NonNullable<Parameters<Agent['session']>[1]>

const EXPECTED_ANSWER =
  'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper [1]. ' +
  'Baker was honoured for computational protein design [2], and Hassabis and Jumper for predicting protein structures with AlphaFold [3].'

describe.skipIf(!browserAvailable('examples/ai-sdk-chat in Chromium'))('examples/ai-sdk-chat in Chromium', () => {
  let browser: Browser
  const demo = demoAgent({ tokenDelayMs: 5 })
  // The sessions the chat handler opens, to see what a follow-up carries.
  const opened: (SessionOptions | undefined)[] = []
  const server = createChatServer({
    ...demo,
    session(chatId, options) {
      opened.push(options)
      return demo.session(chatId, options)
    },
  })
  let port = 0

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('shows the research as it goes, then the streamed answer with its sources and cost', async () => {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${port}/`)
    await page.click('button[type=submit]')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })

    expect(await page.locator('#status').textContent()).toBe('Done: answered.')
    expect(await page.locator('.assistant .answer').textContent()).toBe(EXPECTED_ANSWER)
    expect(Number(await page.locator('body').getAttribute('data-deltas'))).toBeGreaterThan(10)
    expect(await page.locator('.assistant .sources a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([
      'https://www.nobelprize.org/prizes/chemistry/2024/summary/',
      'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/',
      'https://deepmind.google/technologies/alphafold/',
    ])
    expect(await page.locator('.assistant .query').allTextContents()).toEqual([
      '2024 Nobel Prize Chemistry winners (3 results)',
      'AlphaFold protein structure prediction Nobel (3 results)',
      'David Baker computational protein design (3 results)',
    ])
    expect(await page.locator('.assistant .fact.superseded').allTextContents()).toEqual(['2024'])
    expect(await page.locator('.assistant .cost').textContent()).toMatch(/^\$0\.\d{4} · 3 searches$/)
  })

  it('asks a follow-up in the same conversation: the page sends the chat back, and the second turn carries the first answer', async () => {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${port}/`)
    opened.length = 0
    await page.click('button[type=submit]')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
    await page.fill('#question', 'What did Baker do?')
    await page.click('button[type=submit]')
    await page.waitForFunction(() => document.querySelectorAll('.assistant').length === 2 && document.body.dataset.state === 'ended', undefined, {
      timeout: 15_000,
    })

    expect(await page.locator('#status').textContent()).toBe('Done: answered.')
    expect(opened[0]?.state?.priorAnswers).toEqual([])
    expect(opened[1]?.state?.priorAnswers.map((p) => [p.query, p.answer])).toEqual([
      ['Who won the 2024 Nobel Prize in Chemistry, and for what?', EXPECTED_ANSWER],
    ])
    expect(opened[1]?.state?.citations).toHaveLength(3)
    expect(opened[1]?.state?.facts.map((f) => f.text)).toContain('Baker was honoured for computational protein design')
  })

  it('starts runs only for its own page: without its token, from another site or to another host, a post is refused', async () => {
    const body = JSON.stringify({ messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] })
    const url = `http://127.0.0.1:${port}/api/chat`
    const page = await (await fetch(`http://127.0.0.1:${port}/`)).text()
    const token = /name="laconic-token" content="([^"]+)"/.exec(page)?.[1] ?? ''
    expect(token.length).toBeGreaterThan(16)
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) =>
        request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => resolve(res.resume().statusCode ?? 0))
          .on('error', reject)
          .end(body),
      )
    expect(await post({})).toBe(403)
    expect(await post({ 'x-laconic-token': token, origin: 'https://evil.example' })).toBe(403)
    expect(await post({ 'x-laconic-token': token, 'sec-fetch-site': 'cross-site' })).toBe(403)
    // node:http sets Host as asked, as a rebinding attacker's browser would send it.
    expect(await post({ 'x-laconic-token': token, host: 'evil.example' })).toBe(403)
    // A GET never starts a run.
    expect((await fetch(url)).status).toBe(405)
  })
})
