/** The live page in a real browser, served by a `laconic serve` web node: POST /runs, then SSE. */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResearchWorker, type ResearchWorker } from '../../src/redis/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'
import { SKY_ANSWER, skyAgent } from './fixtures/sky-agent.js'
import { startWebNode, type WebNode } from './processes.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'

describe.skipIf(!redisAvailable() || !browserAvailable("the web node's live page in a browser"))('the live page through a web node', () => {
  let server: RedisServer
  let worker: ResearchWorker
  let node: WebNode
  let browser: Browser

  beforeAll(async () => {
    server = await startRedis()
    worker = createResearchWorker({ connection: server.url, name: 'page', agent: skyAgent({ latencyMs: 2 }) })
    await worker.ready()
    node = await startWebNode(server.url, 'page')
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await node?.kill()
    await worker?.close({ force: true })
    await server?.close()
  })

  it('starts a run with the page token and draws its events to the answer', async () => {
    const page = await browser.newPage()
    await page.goto(`${node.url}/`)
    await page.fill('#question', 'Why is the sky blue?')
    await page.click('button[type=submit]')
    await page.waitForSelector('body[data-state=ended]', { timeout: 20_000 })
    expect(await page.locator('#status').textContent()).toMatch(/^Done\./)
    expect(await page.locator('#answer').textContent()).toBe(SKY_ANSWER)
    expect(await page.locator('.query > strong').allTextContents()).toEqual(['why is the sky blue'])
  })
})
