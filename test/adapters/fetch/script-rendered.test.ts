import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { looksScriptRendered, TINY_TEXT } from '../../../src/adapters/fetch/script-rendered.js'

describe('looksScriptRendered', () => {
  it('sees an empty app root, a noscript hint, or several scripts around tiny text', () => {
    expect(looksScriptRendered('<div id="root"></div><script src="/app.js"></script>', '')).toBe(true)
    expect(looksScriptRendered('<noscript>Enable JavaScript</noscript><script></script>', 'Enable JavaScript')).toBe(true)
    expect(looksScriptRendered('<p>Hi</p><script></script><script></script><script></script>', 'Hi')).toBe(true)
  })

  it('leaves pages without scripts, or with one script and no hint, alone', () => {
    expect(looksScriptRendered('<div id="root"></div>', '')).toBe(false)
    expect(looksScriptRendered('<p>Short note.</p><script></script>', 'Short note.')).toBe(false)
  })

  it('never calls a page with enough readable text script-rendered, whatever its markup', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: TINY_TEXT }), (html, text) => {
        fc.pre(text.trim().length >= TINY_TEXT)
        expect(looksScriptRendered(`<noscript></noscript><div id="root"></div><script></script>${html}`, text)).toBe(false)
      }),
    )
  })
})
