import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { safeUrl } from '../../src/otel/safe-url.js'

describe('safeUrl', () => {
  it('drops credentials and keeps the rest', () => {
    expect(safeUrl('https://user:pw@a.example/p?q=1#f')).toBe('https://a.example/p?q=1#f')
  })

  it('strips any credentials from any web URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string(), fc.string(), (url, user, password) => {
        const withCredentials = url.replace('://', `://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`)
        const out = safeUrl(withCredentials)
        expect(out).toBeDefined()
        expect([new URL(out!).username, new URL(out!).password]).toEqual(['', ''])
        expect(new URL(out!).hostname).toBe(new URL(url).hostname)
      }),
    )
  })

  it('is undefined for text that is not a URL, and never throws', () => {
    expect(safeUrl('not a url')).toBeUndefined()
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const out = safeUrl(raw)
        if (out !== undefined) expect([new URL(out).username, new URL(out).password]).toEqual(['', ''])
      }),
    )
  })
})
