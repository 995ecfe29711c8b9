/**
 * Where the browser tests find Chromium: `CHROMIUM_PATH` first, then the usual executable names
 * on `PATH`. Missing locally is a visible skip; missing in CI (`CI` set) is a failure.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const

export type ChromiumLookup = { found: true; path: string } | { found: false; notice: string; mustFail: boolean }

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export function findChromium(
  env: Readonly<Record<string, string | undefined>> = process.env,
  executable: (path: string) => boolean = isExecutable,
): ChromiumLookup {
  const explicit = env.CHROMIUM_PATH
  if (explicit) {
    if (executable(explicit)) return { found: true, path: explicit }
    return missing(env, `CHROMIUM_PATH is set to ${explicit}, which is not an executable file`)
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean)
  for (const name of CHROMIUM_NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name)
      if (executable(candidate)) return { found: true, path: candidate }
    }
  }
  return missing(env, `no ${CHROMIUM_NAMES.join(', ')} on PATH`)
}

function missing(env: Readonly<Record<string, string | undefined>>, why: string): ChromiumLookup {
  const notice = `Chromium not found (${why}). Install it (\`apt-get install chromium\`) or point CHROMIUM_PATH at a Chromium or Chrome binary to run it.`
  return { found: false, notice, mustFail: Boolean(env.CI) }
}
