/**
 * The live page in a real Chromium, served by `createLiveServer` with a real `deep` run (scripted
 * models) over a real local corpus: deep's report panel, hostile report text shown as text, and
 * a `file:` source opening in the server's plain-text view.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCorpus } from '../../src/adapters/index.js'
import { memoryCheckpoints } from '../../src/index.js'
import { createAgent } from '../../src/index.js'
import { createLiveServer } from '../../src/node/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'
import { world } from '../checkpoints/world.js'
import type { inProcessRuns } from '../../src/server/index.js'

type LiveAgent = Parameters<typeof inProcessRuns>[0]['agent']

/** Markup that would show an image and set a flag if it were ever parsed as HTML. */
const HOSTILE = `<img src=x onerror="document.body.dataset.pwned='yes'">`
const SKY_TEXT = `Rayleigh scattering sends short blue wavelengths across the whole sky. ${HOSTILE}`
const SUMMARY = 'The sky is blue because air scatters blue light most [1].'

const REPORT = {
  title: `Why the sky is blue ${HOSTILE}`,
  main_findings: ['Air molecules scatter blue light more than red [1].', `A finding with markup ${HOSTILE}`],
  conclusions: ['Scattering explains the colour [1].'],
  limitations: [`One source only ${HOSTILE}`],
  recommendations: ['Read about Mie scattering.'],
  sources_summary: 'A single local note on scattering [1].',
}

/** A fresh `deep` agent for each run: its scripted models plan one sub-question, answer it and write the report. */
function deepAgent(corpus: ReturnType<typeof localCorpus>): LiveAgent {
  return {
    research(question, options) {
      const models = {
        planner: scriptedLLM({
          replies: [
            JSON.stringify({ is_complete: false, next_question: 'Why is the sky blue?', reasoning: 'the core' }),
            '{"is_complete": true, "reasoning": "covered"}',
          ],
        }),
        extractor: scriptedLLM({
          replies: [
            JSON.stringify({
              answer: 'Air scatters blue light most [1].',
              confidence: 0.9,
              facts: [{ text: 'Air scatters blue light most', sources: [1] }],
              need_more: false,
              queries: [],
            }),
          ],
        }),
        finalizer: scriptedLLM({ replies: [SUMMARY] }),
        synthesizer: scriptedLLM({ replies: [JSON.stringify(REPORT)] }),
      }
      return createAgent({ models, search: corpus, strategy: 'deep' }).research(question, options)
    },
  }
}

describe.skipIf(!browserAvailable('the live page browser tests (report panel, source view)'))(
  'the live page in a real browser (deep over a local corpus)',
  () => {
    let browser: Browser
    let folder = ''
    let base = ''
    let skyUrl = ''
    let server: ReturnType<typeof createLiveServer>

    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'laconic-live-page-'))
      await writeFile(join(folder, 'sky.md'), `# Why the sky is blue\n\n${SKY_TEXT}\n`)
      await writeFile(join(folder, 'bread.md'), '# Baking bread\n\nYeast makes dough rise.\n')
      skyUrl = pathToFileURL(join(folder, 'sky.md')).href
      const corpus = localCorpus({ dir: folder })
      server = createLiveServer({ agent: deepAgent(corpus), readSource: (url, signal) => corpus.fetch(url, { signal }) })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await launchChromium()
    })

    afterAll(async () => {
      await browser?.close()
      server?.closeAllConnections()
      await new Promise((resolve) => server?.close(resolve))
      await rm(folder, { recursive: true, force: true })
    })

    /** A new page that asked the question and saw its run end. */
    async function finishedRun(): Promise<Page> {
      const page = await browser.newPage()
      await page.goto(base)
      await page.fill('#question', 'Why is the sky blue?')
      await page.click('button[type=submit]')
      await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
      expect(await page.locator('#status').textContent()).toMatch(/^Done\./)
      return page
    }

    it("shows deep's report: its title, the summary, and each section's text, hostile markup as text", async () => {
      const page = await finishedRun()
      expect(await page.locator('#report-title').textContent()).toBe(REPORT.title)
      expect(await page.locator('#answer').textContent()).toBe(SUMMARY)
      const sections = await page.locator('#report .report-section').evaluateAll((nodes) =>
        nodes.map((node) => ({
          heading: node.querySelector('h3')?.textContent,
          items: [...node.querySelectorAll('li, p')].map((item) => item.textContent),
        })),
      )
      expect(sections).toEqual([
        { heading: 'Main findings', items: REPORT.main_findings },
        { heading: 'Conclusions', items: REPORT.conclusions },
        { heading: 'Limitations', items: REPORT.limitations },
        { heading: 'Recommendations', items: REPORT.recommendations },
        { heading: 'About the sources', items: [REPORT.sources_summary] },
      ])
      // The report sits in the answer panel, above the research.
      const panel = page.locator('#answer-panel')
      expect(await panel.locator('#report').count()).toBe(1)
      // The markup stayed text: no element was made of it, and its handler never ran.
      expect(await page.locator('#answer-panel img').count()).toBe(0)
      expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
      expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined()
    })

    it("a file: source links to the server's text view, which opens in a new tab as plain text", async () => {
      const page = await finishedRun()
      const result = page.locator('.query .results a', { hasText: 'Why the sky is blue' }).first()
      const href = (await result.getAttribute('href')) ?? ''
      expect(href).toMatch(/^\/runs\/[\w-]+\/source\?url=/)
      expect(new URL(href, base).searchParams.get('url')?.startsWith(skyUrl)).toBe(true)
      expect(await result.getAttribute('target')).toBe('_blank')
      // The cited source in the answer links to the same view.
      expect(await page.locator('#answer a.citation').first().getAttribute('href')).toMatch(/^\/runs\/[\w-]+\/source\?url=/)

      const [view] = await Promise.all([page.context().waitForEvent('page'), result.click()])
      await view.waitForLoadState('load')
      expect(view.url().startsWith(`${base}/runs/`)).toBe(true)
      expect(await view.evaluate(() => document.contentType)).toBe('text/plain')
      const shown = await view.evaluate(() => document.body.innerText)
      expect(shown.startsWith(`Why the sky is blue\n${skyUrl}\n`)).toBe(true)
      expect(shown).toContain(SKY_TEXT)
      // The document's markup is shown, not run.
      expect(await view.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
    })

    it('other schemes stay text, web URLs stay links', async () => {
      const page = await finishedRun()
      const tags = await page.evaluate(
        `['https://example.org/', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,x', 'ftp://example.org/x'].map((url) => [link(url, {}, 'x').tagName, link(url, {}, 'x').getAttribute('href')])`,
      )
      expect(tags).toEqual([
        ['A', 'https://example.org/'],
        // A file: URL links to the view (which serves it only if this run named it).
        ['A', expect.stringMatching(/^\/runs\/[\w-]+\/source\?url=file%3A%2F%2F%2Fetc%2Fpasswd$/)],
        ['SPAN', null],
        ['SPAN', null],
        ['SPAN', null],
      ])
    })
  },
)

describe.skipIf(!browserAvailable('the live page browser tests (a paused run answered)'))('a paused run answered on the live page', () => {
  let browser: Browser
  let base = ''
  let server: ReturnType<typeof createLiveServer>

  beforeAll(async () => {
    // A scratchpad run on a scripted world that pauses after its plan (seed 7 plans a search first).
    server = createLiveServer({ agent: world('scratchpad', 7).agent, checkpoints: memoryCheckpoints(), review: { plan: true } })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  })

  async function pausedRun(): Promise<Page> {
    const page = await browser.newPage()
    await page.goto(base)
    await page.fill('#question', 'Why is the sky blue?')
    await page.click('#ask button[type=submit]')
    await page.waitForSelector('body[data-state=paused]', { timeout: 15_000 })
    return page
  }

  it('shows what the run waits for as text, and Approve goes on with the research to its end', async () => {
    const page = await pausedRun()
    expect(await page.locator('#status').textContent()).toMatch(/^Paused: the run waits for your decision\./)
    const request = (await page.locator('#request').textContent()) ?? ''
    expect(request).toMatch(/^The plan waits for approval:\n/)
    expect(request).toMatch(/Queries:\n- \S/)
    expect(await page.locator('#approve').isVisible()).toBe(true)
    expect(await page.locator('.query').count()).toBe(0)
    await page.click('#approve')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
    expect(await page.locator('#decision').isVisible()).toBe(false)
    expect(await page.locator('.query').count()).toBeGreaterThan(0)
    expect(await page.locator('#status').textContent()).toMatch(/^(Done\.|Stopped: max-iterations)/)
    expect(await page.locator('#answer').textContent()).not.toBe('')
  })

  it('Reject sends the reason: the run ends with nothing searched and the reason among its warnings', async () => {
    const page = await pausedRun()
    await page.fill('#reason', 'ask about sunsets instead')
    await page.click('#reject')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
    expect(await page.locator('.query').count()).toBe(0)
    expect(await page.locator('#warnings').textContent()).toContain('ask about sunsets instead')
  })
})

describe.skipIf(!browserAvailable('the live page browser tests (a follow-up question)'))('a follow-up question on the live page', () => {
  let browser: Browser
  let base = ''
  let server: ReturnType<typeof createLiveServer>
  // A scratchpad agent: the first question searches, the follow-up answers from what it learned.
  const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer', 'Action: Answer'] })
  const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France.', 'Paris.', 'About 2.1 million people.'] })
  const search = mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example/', snippet: 'The capital of France is Paris.' }] })

  beforeAll(async () => {
    server = createLiveServer({ agent: createAgent({ models: { planner, synthesizer }, search }) })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  })

  it('after a run, the follow-up box continues the conversation: the earlier turn stays above, and the new run builds on it', async () => {
    const page = await browser.newPage()
    await page.goto(base)
    expect(await page.locator('#follow-up').isVisible()).toBe(false)
    await page.fill('#question', 'What is the capital of France?')
    await page.click('#ask button[type=submit]')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
    expect(await page.locator('#answer').textContent()).toBe('Paris.')
    // Counts agree with their numbers: one search.
    expect(await page.locator('#status').textContent()).toMatch(/ · 1 search · /)
    // A first question needs no label: the box above says it.
    expect(await page.locator('#shown-question').isVisible()).toBe(false)

    await page.fill('#follow-up-question', 'How many people live there?')
    await page.click('#follow-up button[type=submit]')
    // The earlier turn moves up in the same task that starts the follow-up (data-state is 'running' by then).
    await page.waitForSelector('#earlier li')
    await page.waitForSelector('body[data-state=ended]', { timeout: 15_000 })
    expect(await page.locator('#answer').textContent()).toBe('About 2.1 million people.')
    expect(await page.locator('#earlier .earlier-question').allTextContents()).toEqual(['What is the capital of France?'])
    expect(await page.locator('#earlier .earlier-answer').allTextContents()).toEqual(['Paris.'])
    // The follow-up's answer says which question it answers, and so does the box at the top.
    expect(await page.locator('#shown-question').textContent()).toBe('How many people live there?')
    expect(await page.locator('#shown-question').isVisible()).toBe(true)
    expect(await page.locator('#question').inputValue()).toBe('How many people live there?')
    // The follow-up's planner was told what the first run found, and searched nothing more.
    expect(planner.calls[2]?.prompt).toContain('Paris is the capital of France.')
    expect(search.calls).toHaveLength(1)
    expect(await page.locator('#follow-up').isVisible()).toBe(true)
  })
})
