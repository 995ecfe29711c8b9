/**
 * Where `browserFetch` finds the system's Chromium when no `executablePath` is given: the usual
 * executable names on `PATH`, in order. None found is a `config` error that says what to install.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { LaconicError } from '../core/contracts/laconic-error.js'

export const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The first of `BROWSER_NAMES` found in a `PATH` folder, or a `config` error. */
export function findSystemBrowser(path: string = process.env.PATH ?? '', executable: (file: string) => boolean = isExecutable): string {
  const dirs = path.split(delimiter).filter(Boolean)
  for (const name of BROWSER_NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name)
      if (executable(candidate)) return candidate
    }
  }
  throw new LaconicError(`browserFetch found no browser: none of ${BROWSER_NAMES.join(', ')} is on PATH`, {
    code: 'config',
    hint: 'install Chromium (`apt-get install chromium`) or pass `executablePath` to browserFetch',
  })
}
