import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { redactUrl } from '../../src/core/util/urls.js'

describe('redactUrl', () => {
  it('drops credentials and keeps the rest', () => {
    expect(redactUrl('https://user:pw@a.example/p?q=1#f')).toBe('https://a.example/p?q=1#f')
  })

  it('redacts credential-looking query values', () => {
    expect(redactUrl('https://a.example/p?api_key=SECRET&q=sky&sig=abc')).toBe('https://a.example/p?api_key=%5Bredacted%5D&q=sky&sig=%5Bredacted%5D')
  })

  it('strips any credentials from any web URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string(), fc.string(), (url, user, password) => {
        const withCredentials = url.replace('://', `://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`)
        const out = redactUrl(withCredentials)
        expect(out).toBeDefined()
        expect([new URL(out!).username, new URL(out!).password]).toEqual(['', ''])
        expect(new URL(out!).hostname).toBe(new URL(url).hostname)
      }),
    )
  })

  it('is undefined for text that is not a URL, and never throws', () => {
    expect(redactUrl('not a url')).toBeUndefined()
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const out = redactUrl(raw)
        if (out !== undefined) expect([new URL(out).username, new URL(out).password]).toEqual(['', ''])
      }),
    )
  })
})
