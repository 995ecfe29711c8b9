/**
 * The one way the browser tests start Chromium: found by `findChromium` (skipped with a notice
 * locally when missing, a failure in CI), headless, with the background services that call
 * public hosts switched off.
 */
import { chromium, type Browser } from 'playwright-core'
import { findChromium } from './find-chromium.js'

const lookup = findChromium()

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

/** False when the browser tests must be skipped here; says so, naming `what`. */
export function browserAvailable(what: string): boolean {
  if (lookup.found || lookup.mustFail) return true
  console.warn(`[skipped] ${what}: ${lookup.notice}`)
  return false
}

export async function launchChromium(): Promise<Browser> {
  if (!lookup.found) throw new Error(`${lookup.notice} (CI is set, so a missing browser fails)`)
  return chromium.launch({ executablePath: lookup.path, args: ARGS })
}
