/**
 * The live page showing a long report (the `report` strategy) in a real browser: its contents
 * from the outline, each section marked as it streams and ends, the report's text as the answer.
 */
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLiveServer } from '../../src/node/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'
import { reportRig } from '../strategies/report/rig.js'

describe.skipIf(!browserAvailable('the live page report browser test'))('the live page with a long report', () => {
  let browser: Browser
  let base = ''
  let server: ReturnType<typeof createLiveServer>
  // Section 1 is held until the test has seen section 0 streamed and section 1 not yet done.
  let releaseSection1!: () => void
  const section1 = new Promise<void>((resolve) => (releaseSection1 = resolve))
  const rig = reportRig({ sections: 3, writerGate: (k) => (k === 1 ? section1 : Promise.resolve()) })

  beforeAll(async () => {
    server = createLiveServer({ agent: rig.agent() })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchChromium()
  })

  afterAll(async () => {
    releaseSection1()
    await browser?.close()
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  })

  it('lists the sections from the outline and marks each as it streams, then shows the report', async () => {
    const page = await browser.newPage()
    await page.goto(base)
    await page.fill('#question', 'Tell me about three topics')
    await page.click('button[type=submit]')
    await page.waitForSelector('#toc-0.done', { timeout: 15_000 })
    expect(await page.locator('#toc').isVisible()).toBe(true)
    expect(await page.locator('#toc-list li').allTextContents()).toEqual(['Section 0', 'Section 1', 'Section 2'])
    expect(await page.locator('#report-title').textContent()).toBe('The whole report')
    // Section 1's text has not come yet; section 2 may be written already, but it waits for section 1.
    expect(await page.locator('#toc-1').getAttribute('class')).toBe('pending')
    expect(await page.locator('#toc-2').getAttribute('class')).toBe('pending')
    expect(await page.locator('#answer').textContent()).toContain('## Section 0')
    expect(await page.locator('#answer').textContent()).not.toContain('## Section 2')
    releaseSection1()
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
    expect(await page.locator('#toc-list li.done').count()).toBe(3)
    const answer = await page.locator('#answer').textContent()
    expect(answer).toContain('## Section 2')
    expect(answer).toContain('## References')
    expect(await page.locator('#report').textContent()).toBe('')
  })
})
