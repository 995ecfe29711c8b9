/**
 * The line splitter under every reader of lines and events: exact text out however the bytes
 * are cut, a cap in characters, and what it holds bounded in bytes (issue 29: bound memory,
 * not only characters).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createLineSplitter, FrameTooLongError } from '../../src/wire/index.js'
import { splitBytesAt } from '../support/split.js'

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const text = fc.string({ unit: fc.constantFrom('a', 'é', '東', '🏔', '\n', '\r', ' ') })
/** What `'any'` breaks hand on for `text`: every CR, LF or CRLF as one LF. */
const anyBreaks = (input: string) => input.replace(/\r\n?/g, '\n')

describe('createLineSplitter', () => {
  it('hands on exactly the input, in whole lines (with any breaks, each as an LF), however the bytes are cut', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 30 }), fc.constantFrom('lf' as const, 'any' as const), (input, cuts, breaks) => {
        const splitter = createLineSplitter({ maxChars: 1_000, breaks })
        let out = ''
        for (const piece of splitBytesAt(encoder.encode(input), cuts)) {
          const complete = splitter.push(piece)
          if (complete !== '') expect(complete.endsWith('\n')).toBe(true)
          out += complete
        }
        expect(out + splitter.end()).toBe(breaks === 'lf' ? input : anyBreaks(input))
      }),
    )
  })

  it('with any breaks, hands on every line as soon as its break arrives, a lone CR last in a chunk too', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 30 }), (input, cuts) => {
        const splitter = createLineSplitter({ maxChars: 1_000, breaks: 'any' })
        const bytes = encoder.encode(input)
        let out = ''
        let received = 0
        for (const piece of splitBytesAt(bytes, cuts)) {
          out += splitter.push(piece)
          received += piece.length
          // Everything up to the last CR or LF received so far is out, and nothing after it.
          const seen = bytes.subarray(0, received)
          const through = Math.max(seen.lastIndexOf(0x0a), seen.lastIndexOf(0x0d)) + 1
          expect(out).toBe(anyBreaks(decoder.decode(seen.subarray(0, through))))
        }
      }),
    )
  })

  it('with any breaks, an LF after a CR that ended a chunk is that CRLF, not an empty line', () => {
    const splitter = createLineSplitter({ breaks: 'any' })
    expect(splitter.push(encoder.encode('a\r'))).toBe('a\n')
    expect(splitter.push(encoder.encode('\n'))).toBe('')
    expect(splitter.push(encoder.encode('\nb\r'))).toBe('\nb\n')
    expect(splitter.push(encoder.encode('c\n'))).toBe('c\n')
    expect(splitter.end()).toBe('')
  })

  it('drops a byte order mark at the start of the stream only', () => {
    const splitter = createLineSplitter()
    expect(splitter.push(new Uint8Array([0xef, 0xbb]))).toBe('')
    expect(splitter.push(new Uint8Array([0xbf, ...encoder.encode('a\n\ufeffb\n')]))).toBe('a\n\ufeffb\n')
  })

  it('accepts a line of exactly the cap and refuses one character more, whatever the break and the cuts', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('x', 'é', '東', '🏔'),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (unit, eol, cuts, over) => {
          const maxChars = 24
          const line = unit.repeat(maxChars / unit.length) + (over ? 'x' : '')
          const splitter = createLineSplitter({ maxChars, breaks: eol === '\r' ? 'any' : 'lf' })
          const feed = () => {
            let out = ''
            for (const piece of splitBytesAt(encoder.encode(`${line}${eol}next${eol}`), cuts)) out += splitter.push(piece)
            return out + splitter.end()
          }
          if (over) expect(feed).toThrow(FrameTooLongError)
          else expect(feed()).toBe(`${line}${eol === '\r' ? '\n' : eol}next${eol === '\r' ? '\n' : eol}`)
        },
      ),
    )
  })

  it('refuses a line past the cap even when it arrives in one piece with others', () => {
    const splitter = createLineSplitter({ maxChars: 10 })
    expect(splitter.push(encoder.encode('short\n'))).toBe('short\n')
    expect(() => splitter.push(encoder.encode('0123456789ab\nok\n'))).toThrow(/longer than 10 characters/)
  })

  it('never holds more bytes than the cap allows, however small the chunks (one byte each here)', () => {
    for (const [unit, bytesPerChar] of [
      ['x', 1],
      ['é', 2],
      ['東', 3],
    ] as const) {
      const maxChars = 1_000
      const splitter = createLineSplitter({ maxChars })
      const bytes = encoder.encode(unit.repeat(maxChars + 10))
      let held = 0
      let fedChars = 0
      const feed = () => {
        for (let i = 0; i < bytes.length; i++) {
          splitter.push(bytes.subarray(i, i + 1))
          held = Math.max(held, splitter.pendingBytes)
          if ((i + 1) % bytesPerChar === 0) fedChars++
        }
      }
      expect(feed).toThrow(FrameTooLongError)
      // Refused at the first character past the cap, having held the line's bytes and no more.
      expect(fedChars).toBe(maxChars)
      expect(held).toBe(maxChars * bytesPerChar)
    }
  })

  it('bounds bytes that decode to nothing countable too (stray continuation bytes)', () => {
    const splitter = createLineSplitter({ maxChars: 100 })
    let held = 0
    expect(() => {
      for (let i = 0; i < 10_000; i++) {
        splitter.push(new Uint8Array(16).fill(0x80))
        held = Math.max(held, splitter.pendingBytes)
      }
    }).toThrow(FrameTooLongError)
    expect(held).toBeLessThanOrEqual(3 * 100 + 3 + 16)
  })
})
