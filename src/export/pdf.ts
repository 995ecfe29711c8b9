import { LaconicError } from '../core/contracts/laconic-error.js'
import type { ExportableResult } from './document.js'
import { toHTML } from './html.js'

/** Where a headless Chromium is looked for when `executablePath` is not given. */
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']

export interface PdfOptions {
  /** The Chromium (or Chrome) to print with. @defaultValue the first of /usr/bin/chromium, chromium-browser, google-chrome that starts */
  executablePath?: string
}

const noPdf = (why: string, cause?: unknown) =>
  new LaconicError(`toPDF cannot print: ${why}`, {
    code: 'config',
    hint: 'export HTML instead (toHTML, or --output report.html) and print it from a browser',
    ...(cause !== undefined ? { cause } : {}),
  })

/**
 * The result as a PDF (bytes), printed from `toHTML`'s page by a headless Chromium through
 * `playwright-core` (an optional peer). Without either, a `config` error suggests HTML. The page
 * loads nothing (its own policy forbids it), so printing it reaches no network.
 */
export async function toPDF(result: ExportableResult, options: PdfOptions = {}): Promise<Uint8Array> {
  let playwright: typeof import('playwright-core')
  try {
    playwright = await import('playwright-core')
  } catch (error) {
    throw noPdf('the `playwright-core` package is not installed (npm install playwright-core)', error)
  }
  const paths = options.executablePath ? [options.executablePath] : CHROMIUM_PATHS
  let browser: Awaited<ReturnType<typeof playwright.chromium.launch>> | undefined
  let lastError: unknown
  for (const executablePath of paths) {
    try {
      browser = await playwright.chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
      break
    } catch (error) {
      lastError = error
    }
  }
  if (!browser) throw noPdf(`no headless Chromium starts (tried ${paths.join(', ')})`, lastError)
  try {
    const page = await browser.newPage()
    await page.setContent(toHTML(result), { waitUntil: 'load' })
    return new Uint8Array(await page.pdf({ format: 'A4', printBackground: true, margin: { top: '2cm', bottom: '2cm', left: '2cm', right: '2cm' } }))
  } finally {
    await browser.close()
  }
}
