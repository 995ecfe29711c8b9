/**
 * Claim verification on the live page, in a real Chromium served by `createLiveServer`: each
 * checked sentence is marked by its verdict, an unsupported one shows the passage it was checked
 * against on hover and on keyboard focus, the revision replaces the answer while the first one
 * stays below it, and hostile text from the model or the source stays text.
 */
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import { citedAnswer, type Strategy } from '../../src/strategy.js'
import { createLiveServer } from '../../src/node/index.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'
import type { inProcessRuns } from '../../src/server/index.js'

type LiveAgent = Parameters<typeof inProcessRuns>[0]['agent']

/** Markup that would show an image and set a flag if it were ever parsed as HTML. */
const HOSTILE = `<img src=x onerror="document.body.dataset.pwned='yes'">`
const SOURCE = `The longest chain serves as proof of the sequence of events witnessed. It came from the largest pool of CPU power in 2008. ${HOSTILE}`
const SUPPORTED = 'The longest chain serves as proof of the sequence of events [1].'
const UNSUPPORTED = `It came from the largest pool of CPU power in 2009 ${HOSTILE} [1].`
const ANSWER = `${SUPPORTED} ${UNSUPPORTED}`
const REVISION = SUPPORTED

const cited: Strategy = {
  name: 'cited',
  async *run(_q, ctx) {
    yield* citedAnswer(ctx, {
      from: { request: { prompt: 'answer' } },
      source: () => ({ url: 'https://bitcoin.example/paper', title: 'Bitcoin', text: SOURCE }),
      empty: {},
    })
  },
}

function verifiedAgent(verify: 'annotate' | 'revise'): LiveAgent {
  return {
    research: (question, options) => createAgent({ llm: scriptedLLM({ replies: [ANSWER, REVISION] }), strategy: cited, verify }).research(question, options),
  }
}

describe.skipIf(!browserAvailable('the live page claim tests'))('claims on the live page, in a real browser', () => {
  let browser: Browser
  const servers: ReturnType<typeof createLiveServer>[] = []

  beforeAll(async () => {
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    for (const server of servers) {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  async function finishedRun(verify: 'annotate' | 'revise'): Promise<Page> {
    const server = createLiveServer({ agent: verifiedAgent(verify) })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    await page.fill('#question', 'Where did the longest chain come from?')
    await page.click('button[type=submit]')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
    return page
  }

  it('marks each checked sentence by its verdict; an unsupported one shows its evidence on hover and on focus, as text', async () => {
    const page = await finishedRun('annotate')
    const marked = await page
      .locator('#answer .claim')
      .evaluateAll((spans) => spans.map((s) => [s.className, s.textContent, (s as HTMLElement).dataset.evidence ?? '']))
    expect(marked.map(([className, text]) => [className, text])).toEqual([
      ['claim supported', SUPPORTED],
      ['claim unsupported', UNSUPPORTED],
    ])
    expect(marked[1]?.[2]).toContain('the source does not give the number 2009')
    expect(marked[1]?.[2]).toContain('in 2008')
    expect(await page.locator('#claims-summary').textContent()).toBe('Claims checked: 1 supported · 1 unsupported (support rate 50%)')
    // The evidence is shown by CSS from the attribute when the sentence is hovered or focused.
    const unsupported = page.locator('#answer .claim.unsupported')
    const shown = () => unsupported.evaluate((span) => getComputedStyle(span, '::after').content)
    expect(await shown()).toBe('none')
    await unsupported.focus()
    expect(await shown()).toContain('the source does not give the number 2009')
    await page.locator('#question').focus()
    await unsupported.hover()
    expect(await shown()).toContain('in 2008')
    // Citations inside a marked sentence are still links to their source.
    expect(await unsupported.locator('a.citation').getAttribute('href')).toBe('https://bitcoin.example/paper')
    expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
    expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined()
  })

  it('revise: the rewrite takes the answer’s place, and the first answer stays below it with its sentences marked', async () => {
    const page = await finishedRun('revise')
    expect(await page.locator('#answer').textContent()).toBe(REVISION)
    expect(await page.locator('#answer .claim').count()).toBe(0)
    expect(await page.locator('#draft-panel').isHidden()).toBe(false)
    expect(await page.locator('#draft').textContent()).toBe(ANSWER)
    expect(await page.locator('#draft .claim.unsupported').textContent()).toBe(UNSUPPORTED)
    expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined()
  })
})
