import { delimiter } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findChromium } from './find-chromium.js'

const only =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path)

describe('findChromium', () => {
  it('takes CHROMIUM_PATH first, even with a browser on PATH', () => {
    const found = findChromium({ CHROMIUM_PATH: '/opt/chrome/chrome', PATH: '/usr/bin' }, only('/opt/chrome/chrome', '/usr/bin/chromium'))
    expect(found).toEqual({ found: true, path: '/opt/chrome/chrome' })
  })

  it('searches PATH for chromium, chromium-browser and google-chrome in that order', () => {
    const PATH = ['/a', '/b'].join(delimiter)
    expect(findChromium({ PATH }, only('/b/chromium-browser', '/a/google-chrome'))).toEqual({ found: true, path: '/b/chromium-browser' })
    expect(findChromium({ PATH }, only('/a/google-chrome'))).toEqual({ found: true, path: '/a/google-chrome' })
    expect(findChromium({ PATH: '/snap/bin' }, only('/snap/bin/chromium'))).toEqual({ found: true, path: '/snap/bin/chromium' })
  })

  it('says how to run the test when nothing is found, and must fail only in CI', () => {
    const local = findChromium({ PATH: '/usr/bin' }, () => false)
    expect(local).toMatchObject({ found: false, mustFail: false })
    if (!local.found) expect(local.notice).toMatch(/CHROMIUM_PATH/)
    expect(findChromium({ PATH: '/usr/bin', CI: 'true' }, () => false)).toMatchObject({ found: false, mustFail: true })
  })

  it('does not fall back to PATH when CHROMIUM_PATH names a missing file', () => {
    const lookup = findChromium({ CHROMIUM_PATH: '/nope', PATH: '/usr/bin' }, only('/usr/bin/chromium'))
    expect(lookup).toMatchObject({ found: false })
    if (!lookup.found) expect(lookup.notice).toContain('/nope')
  })
})
