/**
 * Target: the HTML report opens in Chromium with no console error and shows every
 * configuration: in the summary table and in each chart. Hostile text (a configuration name,
 * a question, an answer) stays text: no script runs, no element is injected.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EvalRowResult, htmlReport } from '../../src/eval/index.js'
import { browserAvailable, launchChromium } from '../support/browser.js'

const HOSTILE = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`
const CONFIGS = ['scratchpad/qwen3:4b', 'graph-reader/qwen3:4b', `react/${HOSTILE}`]

function rows(): EvalRowResult[] {
  return CONFIGS.flatMap((config, c) =>
    Array.from({ length: 12 }, (_, n) => {
      const correct = (n + c) % 3 !== 0
      return {
        config,
        id: `q${n}`,
        question: n === 0 ? `What is ${HOSTILE}?` : `Question ${n}?`,
        answers: ['x'],
        answer: n === 1 ? `</td></tr></table>${HOSTILE}` : correct ? 'x' : 'y',
        reason: 'answered',
        grades: { exact: correct, f1: correct ? 1 : 0.2, contains: correct },
        correct,
        notAttempted: false,
        cost: n === 5 && c === 2 ? null : 0.001 * (c + 1),
        wallMs: 800 + n * 150 * (c + 1),
        llmCalls: 4,
        inputTokens: 1200,
        outputTokens: 80,
        searches: 2,
        fetches: 1,
        citations: 2,
        tags: [n % 2 ? 'history' : 'science', ...(n === 3 ? [HOSTILE] : [])],
        ...(c === 0 ? { evidenceRecall: n % 2 } : {}),
      }
    }),
  )
}

describe.skipIf(!browserAvailable('the eval HTML report in Chromium'))('the eval HTML report in Chromium', () => {
  let browser: Browser
  let url: string

  beforeAll(async () => {
    browser = await launchChromium()
    const dir = await mkdtemp(join(tmpdir(), 'laconic-report-'))
    const file = join(dir, 'report.html')
    await writeFile(file, htmlReport(rows(), { title: `eval of ${HOSTILE}` }))
    url = pathToFileURL(file).href
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('opens with no console error and shows every configuration in the table and in each chart', async () => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    page.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`))
    await page.goto(url, { waitUntil: 'load' })
    expect(problems).toEqual([])
    expect(await page.title()).toBe(`eval of ${HOSTILE}`)
    expect(await page.locator('script').count()).toBe(0)
    expect(await page.locator('img').count()).toBe(0)

    const tableConfigs = await page.locator('table.summary tbody tr td:first-child').allTextContents()
    expect(tableConfigs).toEqual([...CONFIGS].sort())
    const charts = page.locator('svg')
    expect(await charts.count()).toBe(3)
    for (const [index, label] of ['accuracy against cost', 'latency distribution'].entries()) {
      const chart = page.locator(`svg[aria-label="${label}"]`)
      expect(await chart.locator('g.config').count(), `chart ${index}`).toBe(CONFIGS.length)
      const text = await chart.textContent()
      for (const config of CONFIGS) expect(text).toContain(config)
    }
    // Each configuration has a bar per tag it answered, drawn inside the chart's box.
    const bars = page.locator('svg[aria-label="accuracy per tag"] rect')
    expect(new Set(await bars.evaluateAll((rects) => rects.map((rect) => rect.getAttribute('data-config'))))).toEqual(new Set(CONFIGS))
    const boxes = await page.locator('svg').evaluateAll((svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect()
        return [...svg.querySelectorAll('circle, rect')].every((shape) => {
          const inner = shape.getBoundingClientRect()
          return inner.left >= box.left - 1 && inner.right <= box.right + 1 && inner.top >= box.top - 1 && inner.bottom <= box.bottom + 1
        })
      }),
    )
    expect(boxes).toEqual([true, true, true])
    // Every row is in the rows table, hostile answers as text.
    expect(await page.locator('table.rows tbody tr').count()).toBe(36)
    expect(await page.locator('table.rows').textContent()).toContain('</td></tr></table>')
    await page.close()
  })
})
