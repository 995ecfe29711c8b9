import { describe, expect, it } from 'vitest'
import { findSystemBrowser } from '../../src/browser/find-browser.js'

describe('findSystemBrowser', () => {
  it('takes the first name in order, searching every PATH folder for it', () => {
    const present = new Set(['/opt/bin/google-chrome', '/usr/local/bin/chromium-browser'])
    expect(findSystemBrowser('/usr/bin:/usr/local/bin:/opt/bin', (file) => present.has(file))).toBe('/usr/local/bin/chromium-browser')
  })

  it('without one, a config error naming what it looked for and how to fix it', () => {
    expect(() => findSystemBrowser('/usr/bin', () => false)).toThrow(
      expect.objectContaining({ code: 'config', message: expect.stringMatching(/chromium, chromium-browser, google-chrome.*executablePath/) }),
    )
  })
})
