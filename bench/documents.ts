/**
 * Reading documents on the extraction pool (issue 26): pages per second for a 100-page text
 * PDF, beside web pages per second for an ordinary article, and the longest time the main
 * thread was blocked while they were parsed (`monitorEventLoopDelay`, 1 ms resolution). Target:
 * the main thread never blocked more than 50 ms (on a loaded machine the OS not scheduling the
 * process counts too: compare with the HTML row, whose parse is off the thread as well). Each workload is timed after one warm-up read,
 * so thread start-up and module loading are left out. No network.
 */
import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { readDocument } from '../src/adapters/fetch/read-document.js'
import { readableText } from '../src/adapters/fetch/readable-text.js'
import { textPdf } from '../test/support/make-pdf.js'
import { round } from './stats.js'

const PAGES = 100
const ROUNDS = 3
const ARTICLES = 50
const MAX_BLOCK_MS = 50

/** A report-like page: 45 lines of ordinary words. */
const book = textPdf(
  Array.from({ length: PAGES }, (_, page) =>
    Array.from({ length: 45 }, (_, line) => `Page ${page + 1}, line ${line + 1}: revenue, staff and output figures for the northern region.`),
  ),
)
const article = readFileSync(new URL('../test/adapters/fetch/fixtures/article.html', import.meta.url), 'utf8')
const limits = { timeoutMs: 120_000, maxPages: 1_000, maxChars: 10_000_000 }

/** Runs `work` `times` times; its wall time and the longest main-thread block meanwhile. */
interface Measured {
  seconds: number
  maxBlockMs: number
  p99BlockMs: number
}

async function measure(times: number, work: () => Promise<unknown>): Promise<Measured> {
  await work()
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const started = performance.now()
  for (let i = 0; i < times; i++) await work()
  const seconds = (performance.now() - started) / 1000
  delay.disable()
  // The histogram counts the delay past its 1 ms sampling interval.
  return { seconds, maxBlockMs: delay.max / 1e6, p99BlockMs: delay.percentile(99) / 1e6 }
}

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[]; details: unknown }> {
  const pdf = await measure(ROUNDS, () => readDocument('bench.pdf', 'pdf', book, limits))
  const html = await measure(ARTICLES, () => readableText(article, { timeoutMs: 60_000 }))
  // The same measure over an idle wait as long as one PDF read: what the machine itself adds (context, no target).
  const idle = await measure(1, () => new Promise((resolve) => setTimeout(resolve, (pdf.seconds * 1000) / ROUNDS)))
  const row = (workload: string, units: number, unit: string, { seconds, maxBlockMs, p99BlockMs }: Measured) => ({
    workload,
    perSecond: round(units / seconds, 1),
    unit,
    p99BlockMs: round(p99BlockMs, 1),
    maxBlockMs: round(maxBlockMs, 1),
    target: `main thread blocked ≤ ${MAX_BLOCK_MS} ms`,
    met: maxBlockMs <= MAX_BLOCK_MS,
  })
  return {
    name: 'documents',
    rows: [
      row(`${PAGES}-page text PDF (${book.length} bytes), ${ROUNDS} reads`, PAGES * ROUNDS, 'pages', pdf),
      row(`article.html, ${ARTICLES} reads`, ARTICLES, 'web pages', html),
      {
        workload: 'idle wait, no parsing (the machine itself)',
        perSecond: '',
        unit: '',
        p99BlockMs: round(idle.p99BlockMs, 1),
        maxBlockMs: round(idle.maxBlockMs, 1),
        target: '',
      },
    ],
    details: { pdfBytes: book.length, articleChars: article.length },
  }
}
