/**
 * examples/chat in a real Chromium: the React `useChat` page, built by Vite once for the file,
 * on the example's server (the library's chat handler over a file session store) with a
 * scripted graph-reader world. Two turns where the second plans with the first's facts, Stop
 * aborting the run's model call, a failing model shown as such, a reload (and a server
 * restart) that keeps the conversation, and a report turn (the scripted report world).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import type { Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../examples/chat/build.js'
import { createChatServer } from '../../examples/chat/server.js'
import { createAgent, LaconicError, type LLMRequest } from '../../src/index.js'
import { citedAnswer, type Strategy } from '../../src/strategy.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'
import { reportRig, sectionTitle } from '../strategies/report/rig.js'
import { roleOf } from '../support/roles.js'

const NOBEL = 'https://www.nobelprize.org/prizes/chemistry/2024/summary/'
const BAKER = 'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/'
const WINNERS = 'David Baker, Demis Hassabis and John Jumper won the 2024 Nobel Prize in Chemistry'
const DESIGN = 'Baker was honoured for computational protein design'
/** Markup in a source's title: it must stay text. */
const HOSTILE = `<img src=x onerror="document.body.dataset.pwned='yes'">`
/** What the server tells the page to do when its model server does not answer. */
const UNREACHABLE = 'The model server (Ollama test at http://127.0.0.1:1) could not be reached. To fix: start it <b>now</b>.'

const CORPUS = [
  { title: `The Nobel Prize in Chemistry 2024 ${HOSTILE}`, url: NOBEL, snippet: 'Baker, Hassabis and Jumper share the 2024 chemistry prize.' },
  { title: 'David Baker wins Nobel Prize', url: BAKER, snippet: 'Baker was honoured for computational protein design.' },
]

/** How the next model calls behave: as scripted, held at the answer until aborted, or failing. */
type Mode = 'answer' | 'hold-answer' | 'fail' | 'unreachable'

/** A promise and its resolver, for events the test waits on. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/** Rejects after `ms`: a bound on a wait that has none of its own, so a hang says where it was. */
function rejectAfter(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`nothing after ${ms} ms`)), ms).unref())
}

/** The number a prompt gives a URL (`[2] Title\nurl`), as a model would read it. */
function numberOf(prompt: string, url: string): number {
  const lines = prompt.split('\n')
  for (let i = lines.findIndex((l) => l.endsWith(url)); i >= 0; i--) {
    const match = /^\[(\d+)\]/.exec(lines[i] ?? '')
    if (match) return Number(match[1])
  }
  return 1
}

/** The scripted graph-reader world: the second question is about Baker, and its research finds why he won. */
function world() {
  const state = { mode: 'answer' as Mode, answering: signal(), aborted: signal<unknown>() }
  const replies: Record<string, (req: LLMRequest) => string | Promise<string>> = {
    'graph-reader planner': (req) =>
      JSON.stringify({
        goal: 'answer the question',
        steps: ['search'],
        key_elements: ['Nobel Prize'],
        queries: [req.prompt.includes('Question: What was Baker') ? 'David Baker protein design' : '2024 Nobel Prize Chemistry winners'],
      }),
    'graph-reader extractor': (req) =>
      JSON.stringify({
        facts: req.prompt.includes('"David Baker protein design"')
          ? [{ text: DESIGN, source: numberOf(req.prompt, BAKER) }]
          : [{ text: WINNERS, source: numberOf(req.prompt, NOBEL) }],
      }),
    'graph-reader neighbor': () => '{"answerable": true, "missing": "", "queries": []}',
    'graph-reader finalizer': async (req) => {
      if (state.mode === 'hold-answer') {
        // Held until the run is aborted: the test stops it from the page.
        state.answering.resolve()
        const stopped = req.signal as AbortSignal
        await new Promise((_, reject) =>
          stopped.addEventListener(
            'abort',
            () => {
              state.aborted.resolve(stopped.reason)
              reject(stopped.reason)
            },
            { once: true },
          ),
        )
      }
      return req.prompt.includes(DESIGN) && req.prompt.includes('Question: What was Baker')
        ? `Baker won for computational protein design [${numberOf(req.prompt, BAKER)}].`
        : `Baker, Hassabis and Jumper won [${numberOf(req.prompt, NOBEL)}].`
    },
  }
  const llm = scriptedLLM({
    replies: (req) => {
      // A provider error that names an internal endpoint: the page must not see it.
      if (state.mode === 'fail') return { text: '', error: new Error('HTTP 500 from http://10.0.0.7:11434/api/chat (internal)') }
      if (state.mode === 'unreachable') return { text: '', error: new LaconicError('fetch failed: ECONNREFUSED', { code: 'network' }) }
      return (replies[roleOf(req.system) ?? ''] ?? (() => ''))(req)
    },
  })
  const search = mockSearch({ corpus: CORPUS })
  const agent = createAgent({ llm, search, strategy: 'graph-reader', graphReader: { concurrency: 1, maxSteps: 2 } })
  const plannerPrompts = () => llm.calls.filter((call) => roleOf(call.system) === 'graph-reader planner').map((call) => call.prompt)
  return { agent, llm, state, plannerPrompts }
}

describe.skipIf(!browserAvailable('examples/chat in Chromium'))('examples/chat: a React useChat page in Chromium', () => {
  let browser: Browser
  let folder = ''
  let server: Server | undefined
  let base = ''
  const scripted = world()
  /** The full text of every failure the page was not shown. */
  const hidden: string[] = []

  /** The server's requests not yet answered in full, by response: a failure's message names them. */
  const unanswered = new Map<ServerResponse, string>()

  async function startServer(): Promise<void> {
    server = await createChatServer({
      agent: scripted.agent,
      appDir: join(folder, 'app'),
      dataDir: join(folder, 'data'),
      onError: (error) => hidden.push(error.message),
      unreachable: UNREACHABLE,
    })
    server.on('request', (request, response) => {
      unanswered.set(response, `${request.method} ${request.url}`)
      response.once('close', () => unanswered.delete(response))
    })
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  async function stopServer(): Promise<void> {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  }

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'laconic-chat-example-'))
    await buildApp(join(folder, 'app'))
    await startServer()
    browser = await launchChromium()
  }, 60_000)

  /** The pages of the test running: closed after it, so no page of an earlier test runs beside a later one. */
  const pages: Page[] = []
  async function newPage(): Promise<Page> {
    const page = await browser.newPage()
    pages.push(page)
    return page
  }
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((page) => page.context().close()))
  })

  /** Waits as `wait` does; when it fails, the error says what the page showed and what the server had not answered. */
  async function orSayWhy<T>(page: Page, doing: string, wait: Promise<T>): Promise<T> {
    try {
      return await wait
    } catch (error) {
      const shown = await page
        .evaluate(() => `status ${document.querySelector('main')?.dataset.status ?? '(no chat yet)'}: ${document.body.innerText.slice(-500)}`)
        .catch((cause: unknown) => `(the page could not be read: ${String(cause)})`)
      throw new Error(`${doing}: ${String(error)}\nthe page showed ${shown}\nthe server had not answered: ${[...unanswered.values()].join(', ') || 'none'}`)
    }
  }

  afterAll(async () => {
    await browser?.close()
    await stopServer()
    await rm(folder, { recursive: true, force: true })
  })

  /** A page on the chat (a new one without `chatId`), once the conversation is loaded. */
  async function open(chatId?: string): Promise<Page> {
    const page = await newPage()
    await page.goto(chatId ? `${base}/?chat=${chatId}` : `${base}/`)
    await loaded(page)
    return page
  }

  /** Waits until the page's chat is loaded and ready for a question. */
  async function loaded(page: Page): Promise<void> {
    await orSayWhy(page, 'the chat did not load', page.waitForSelector('main[data-status=ready]', { timeout: 10_000 }))
  }

  /** Asks on the page and waits until the turn is over: the question is shown and the chat is ready again (or failed). */
  async function ask(page: Page, question: string): Promise<void> {
    const asked = await page.locator('.user').count()
    await page.fill('input[aria-label=Question]', question)
    await page.click('button[type=submit]')
    await orSayWhy(
      page,
      `the turn "${question}" did not end`,
      page.waitForFunction(
        (count) => document.querySelectorAll('.user').length > count && ['ready', 'error'].includes(document.querySelector('main')?.dataset.status ?? ''),
        asked,
        { timeout: 10_000 },
      ),
    )
  }

  const answers = (page: Page) => page.locator('.assistant .answer').allTextContents()

  it('two turns: the second plans with what the first found, and a reload (then a restart) keeps the conversation', async () => {
    scripted.state.mode = 'answer'
    const page = await open()
    const chatId = new URL(page.url()).searchParams.get('chat') ?? ''
    expect(chatId).toMatch(/^[0-9a-f]{32}$/)

    const before = scripted.plannerPrompts().length
    await ask(page, 'Who won the 2024 Nobel Prize in Chemistry?')
    expect(await answers(page)).toEqual(['Baker, Hassabis and Jumper won [1].'])
    expect(await page.locator('.assistant .fact').allTextContents()).toEqual([WINNERS])
    const sources = page.locator('.assistant .sources a')
    expect(await sources.evaluateAll((links) => links.map((a) => [a.getAttribute('href'), a.textContent]))).toEqual([
      [NOBEL, `The Nobel Prize in Chemistry 2024 ${HOSTILE}`],
    ])

    await ask(page, 'What was Baker honoured for?')
    expect(await answers(page)).toEqual(['Baker, Hassabis and Jumper won [1].', 'Baker won for computational protein design [2].'])
    const prompts = scripted.plannerPrompts().slice(before)
    expect(prompts).toHaveLength(2)
    expect(prompts[0]).not.toContain(WINNERS)
    // The second turn's planner was told what the first turn found.
    expect(prompts[1]).toContain(WINNERS)

    await page.reload()
    await loaded(page)
    expect(await answers(page)).toEqual(['Baker, Hassabis and Jumper won [1].', 'Baker won for computational protein design [2].'])
    expect(await page.locator('.user').allTextContents()).toEqual(['Who won the 2024 Nobel Prize in Chemistry?', 'What was Baker honoured for?'])
    // Every saved message has an id of its own (the page keys messages by it).
    const saved = (await (await fetch(`${base}/api/chats/${chatId}/messages`)).json()) as { id: string; role: string }[]
    expect(saved.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(new Set(saved.map((message) => message.id)).size).toBe(4)
    expect(saved.every((message) => message.id !== '')).toBe(true)

    // A new server process on the same folder: the file stores have the whole conversation.
    await stopServer()
    await startServer()
    const again = await open(chatId)
    expect(await answers(again)).toHaveLength(2)
    await ask(again, 'What was Baker honoured for, again?')
    expect(scripted.plannerPrompts().at(-1)).toContain(WINNERS)
    expect(scripted.plannerPrompts().at(-1)).toContain(DESIGN)
    // The markup in a source's title stayed text.
    expect(await again.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
    expect(await again.evaluate(() => document.body.dataset.pwned)).toBeUndefined()
  })

  it('Stop aborts the run: its model call is cancelled, and the page is ready for the next question', async () => {
    Object.assign(scripted.state, { mode: 'hold-answer', answering: signal(), aborted: signal() })
    const page = await open()
    await page.fill('input[aria-label=Question]', 'Who won the 2024 Nobel Prize in Chemistry?')
    await page.click('button[type=submit]')
    await orSayWhy(page, 'the answer was never asked for', Promise.race([scripted.state.answering.promise, rejectAfter(10_000)]))
    const answerCall = scripted.llm.calls.at(-1) as LLMRequest
    expect(answerCall.signal?.aborted).toBe(false)
    await page.click('button.stop')
    // The browser's abort reached the model call the run was waiting on.
    await scripted.state.aborted.promise
    expect(answerCall.signal?.aborted).toBe(true)
    await loaded(page)
    expect(await page.locator('button[type=submit]').isVisible()).toBe(true)
  })

  it('a failing model: the page says the research failed, with no provider detail and no "No facts were found"', async () => {
    scripted.state.mode = 'fail'
    const page = await open()
    await ask(page, 'Who won the 2024 Nobel Prize in Chemistry?')
    // The page says the research failed, with the error's code; the provider's text went to the server's log.
    expect(await page.locator('[role=alert]').textContent()).toMatch(/^the research failed \(\S+\)$/)
    expect(await page.locator('body').textContent()).not.toContain('10.0.0.7')
    expect(await page.locator('body').textContent()).not.toContain('No facts were found')
    expect(hidden.some((message) => message.includes('10.0.0.7'))).toBe(true)

    // After a reload the saved turn still says how it ended (its metadata), not an empty answer.
    await page.reload()
    await loaded(page)
    expect(await page.locator('.assistant .ending.error').textContent()).toMatch(/^the research failed \(\S+\)$/)
    expect(await page.locator('body').textContent()).not.toContain('10.0.0.7')
    // Not a network failure: no word about the model server.
    expect(await page.locator('.assistant .help').count()).toBe(0)
  })

  it('an unreachable model server: the page says which server, and how to fix it (as text)', async () => {
    scripted.state.mode = 'unreachable'
    const page = await open()
    await ask(page, 'Who won the 2024 Nobel Prize in Chemistry?')
    expect(await page.locator('[role=alert]').textContent()).toBe('the research failed (network)')
    expect(await page.locator('.help').textContent()).toBe(UNREACHABLE)
    expect(await page.locator('.help b').count()).toBe(0)
    // Not the demo: no banner.
    expect(await page.locator('.demo-banner').count()).toBe(0)
    // After a reload the saved turn says it too (its metadata keeps the code).
    await page.reload()
    await loaded(page)
    expect(await page.locator('.assistant .ending.error').textContent()).toBe('the research failed (network)')
    expect(await page.locator('.assistant .help').textContent()).toBe(UNREACHABLE)
  })

  it('claims: each checked sentence marked by its verdict, the evidence on focus (as text); a revision shown with the first answer below it', async () => {
    const source = `The longest chain serves as proof of the sequence of events witnessed. It came from the largest pool of CPU power in 2008. ${HOSTILE}`
    const supported = 'The longest chain serves as proof of the sequence of events [1].'
    const unsupported = `It came from the largest pool of CPU power in 2009 ${HOSTILE} [1].`
    const cited: Strategy = {
      name: 'cited',
      async *run(_q, ctx) {
        yield* citedAnswer(ctx, { from: { request: { prompt: 'answer' } }, source: () => ({ url: 'https://bitcoin.example/paper', text: source }), empty: {} })
      },
    }
    const verified = await createChatServer({
      agent: createAgent({ llm: scriptedLLM({ replies: [`${supported} ${unsupported}`, supported] }), strategy: cited, verify: 'revise' }),
      appDir: join(folder, 'app'),
      dataDir: join(folder, 'verified'),
    })
    await new Promise<void>((resolve) => verified.listen(0, '127.0.0.1', resolve))
    try {
      const page = await newPage()
      await page.goto(`http://127.0.0.1:${(verified.address() as AddressInfo).port}/`)
      await loaded(page)
      await ask(page, 'Where did the longest chain come from?')
      expect(await page.locator('.assistant > .answer').textContent()).toBe(supported)
      const draft = page.locator('.assistant .draft .answer')
      expect(await draft.textContent()).toBe(`${supported} ${unsupported}`)
      expect(await draft.locator('.claim').evaluateAll((spans) => spans.map((s) => [s.className, s.textContent]))).toEqual([
        ['claim supported', supported],
        ['claim unsupported', unsupported],
      ])
      expect(await page.locator('.claims-summary').textContent()).toBe('Claims checked: 1 supported · 1 unsupported (support rate 50%)')
      await page.locator('.draft summary').click()
      const flagged = draft.locator('.claim.unsupported')
      await flagged.focus()
      const note = await flagged.evaluate((span) => getComputedStyle(span, '::after').content)
      expect(note).toContain('the source does not give the number 2009')
      expect(await flagged.getAttribute('title')).toContain('in 2008')
      expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
      expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined()
    } finally {
      verified.closeAllConnections()
      await new Promise((resolve) => verified.close(resolve))
    }
  })

  it('a report turn (the Report toggle): the contents link to the sections, which stream in outline order under their headings, then the summary, conclusion and references', async () => {
    const held = signal()
    const rig = reportRig({
      sections: 3,
      // Section 0 is written last: sections 1 and 2 wait for it before they are shown.
      writerGate: (k) => (k === 0 ? held.promise : Promise.resolve()),
      outline: JSON.stringify({
        title: `Three topics ${HOSTILE}`,
        sections: [0, 1, 2].map((k) => ({ title: sectionTitle(k), goal: `explain topic ${k}`, questions: [`topic ${k}`] })),
      }),
    })
    const reporting = await createChatServer({ agent: scripted.agent, reportAgent: rig.agent(), appDir: join(folder, 'app'), dataDir: join(folder, 'report') })
    await new Promise<void>((resolve) => reporting.listen(0, '127.0.0.1', resolve))
    try {
      const page = await newPage()
      await page.goto(`http://127.0.0.1:${(reporting.address() as AddressInfo).port}/`)
      await loaded(page)
      await page.check('.report-toggle input')
      await page.fill('input[aria-label=Question]', 'What about the three topics?')
      await page.click('button[type=submit]')

      // The contents show before any section; sections 1 and 2 are written but wait for section 0.
      await page.waitForSelector('.report nav a')
      await expect.poll(() => rig.written.slice().sort()).toEqual([1, 2])
      expect(await page.locator('.report h2').textContent()).toBe(`Three topics ${HOSTILE}`)
      expect(await page.locator('.report section').count()).toBe(0)
      held.resolve()
      await page.waitForFunction(() => document.querySelector('main')?.dataset.status === 'ready', undefined, { timeout: 15_000 })

      expect(await page.locator('.report h3').allTextContents()).toEqual(['Section 0', 'Section 1', 'Section 2', 'Summary', 'Conclusion', 'References'])
      // Each contents entry links to its section's heading.
      const links = await page
        .locator('.report nav a')
        .evaluateAll((as) => as.map((a) => [a.textContent, document.getElementById((a as HTMLAnchorElement).hash.slice(1))?.textContent]))
      expect(links).toEqual([0, 1, 2].map((k) => [sectionTitle(k), sectionTitle(k)]))
      const bodies = await page.locator('.report section[aria-labelledby] .answer').allTextContents()
      expect(bodies).toHaveLength(3)
      for (const [k, body] of bodies.entries())
        expect(body).toMatch(new RegExp(`^Topic ${k} has its own fact \\[\\d+\\]\\. Every topic has a shared fact \\[\\d+\\]\\.$`))
      const rest = await page.locator('.report section:not([aria-labelledby]) .answer').allTextContents()
      expect(rest[0]).toBe('This report covers every topic.')
      expect(rest[1]).toBe('All topics matter.')
      expect(rest[2]).toContain('https://shared.example/')
      expect(await page.locator('.assistant .sources a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toContain('https://shared.example/')
      // The markup in the report's title stayed text.
      expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
      expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined()

      // After a reload the saved report shows the same.
      await page.reload()
      await loaded(page)
      expect(await page.locator('.report h3').allTextContents()).toEqual(['Section 0', 'Section 1', 'Section 2', 'Summary', 'Conclusion', 'References'])
    } finally {
      reporting.closeAllConnections()
      await new Promise((resolve) => reporting.close(resolve))
    }
  })
})
