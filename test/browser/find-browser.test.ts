/**
 * Where `browserFetch()` finds the system's Chromium when no `executablePath` is given: the usual
 * names on `PATH`, in order. The folders here are temporary ones on `PATH`, and the "browsers" in
 * them are scripts that note which one was started and exit, so no real browser is needed.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { browserFetch } from '../../src/browser/index.js'

let root: string
let savedPath: string | undefined
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'laconic-find-browser-'))
  savedPath = process.env.PATH
})
afterEach(async () => {
  process.env.PATH = savedPath
  await rm(root, { recursive: true, force: true })
})

/** A folder holding a fake browser for each of `names`: started, it writes its own path to `started` and exits. */
async function folderWith(name: string, names: readonly string[]): Promise<string> {
  const dir = join(root, name)
  await mkdir(dir)
  for (const browser of names) {
    const file = join(dir, browser)
    await writeFile(file, `#!/bin/sh\necho "$0" >> "${join(root, 'started')}"\nexit 1\n`)
    await chmod(file, 0o755)
  }
  return dir
}

/** What browserFetch() ends with on its first page, once PATH is `dirs`. */
async function firstFetch(dirs: readonly string[]): Promise<unknown> {
  process.env.PATH = dirs.join(delimiter)
  return browserFetch({ allowPrivateNetwork: true })
    .fetch('http://127.0.0.1:9/')
    .then(
      () => undefined,
      (error: unknown) => error,
    )
}

describe('browserFetch without an executablePath', () => {
  it('takes the first name in order, searching every PATH folder for it', async () => {
    const first = await folderWith('usr-bin', [])
    const second = await folderWith('usr-local-bin', ['chromium-browser'])
    const third = await folderWith('opt-bin', ['google-chrome'])
    await firstFetch([first, second, third])
    // The name's order wins over the folders': chromium-browser in a later folder beats google-chrome in an earlier one.
    const earlier = await folderWith('earlier', ['google-chrome'])
    const later = await folderWith('later', ['chromium-browser'])
    await firstFetch([earlier, later])
    expect((await readFile(join(root, 'started'), 'utf8')).trim().split('\n')).toEqual([join(second, 'chromium-browser'), join(later, 'chromium-browser')])
  })

  it('without one, a config error naming what it looked for and how to fix it', async () => {
    expect(await firstFetch([await folderWith('usr-bin', [])])).toEqual(
      expect.objectContaining({ code: 'config', message: expect.stringMatching(/chromium, chromium-browser, google-chrome.*executablePath/) }),
    )
  })
})
