import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createThinkFilter, stripThink, truncateAtSentence, normalizeText } from '../../src/strategy.js'
import { splitAt } from '../support/split.js'

/**
 * An independent statement of the rule, one character at a time: blocks removed, an unclosed
 * block dropped, stray closers removed, leading whitespace trimmed.
 */
function reference(text: string): string {
  const lower = text.toLowerCase()
  const tagAt = (i: number, tags: string[]) => tags.find((t) => lower.startsWith(t, i))
  let out = ''
  let inside = false
  for (let i = 0; i < text.length; ) {
    const close = tagAt(i, ['</thinking>', '</think>'])
    const open = tagAt(i, ['<thinking>', '<think>'])
    if (close) {
      inside = false
      i += close.length
    } else if (open && !inside) {
      inside = true
      i += open.length
    } else {
      if (!inside) out += text[i]
      i++
    }
  }
  return out.trimStart()
}

function runSplit(text: string, cuts: number[]): string {
  const filter = createThinkFilter()
  return (
    splitAt(text, cuts)
      .map((piece) => filter.push(piece))
      .join('') + filter.flush()
  )
}

const pieces = fc.constantFrom(
  '<think>',
  '</think>',
  '<THINK>',
  '</Think>',
  '<thinking>',
  '</thinking>',
  '<',
  '>',
  'think',
  ' ',
  '\n',
  'The answer',
  ' is 42.',
  'é',
  '🙂',
  '</',
  '<th',
)

describe('think stripping on a token stream', () => {
  it('removes a block split across chunks', () => {
    const filter = createThinkFilter()
    const out = ['<thi', 'nk>secret reasoning</th', 'ink>\n\nThe ', 'answer.'].map((c) => filter.push(c)).join('') + filter.flush()
    expect(out).toBe('The answer.')
  })

  it('drops an unclosed block until the stream ends, keeping text before it', () => {
    expect(stripThink('Visible. <think>never closed, still thinking')).toBe('Visible. ')
  })

  it('keeps text that only looks like the start of a tag', () => {
    expect(stripThink('a < b and x<th')).toBe('a < b and x<th')
  })

  it('gives the same output for every split of the same stream', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 25 }), fc.array(fc.nat(), { maxLength: 8 }), (parts, cuts) => {
        const text = parts.join('')
        expect(runSplit(text, cuts)).toBe(reference(text))
      }),
      { numRuns: 500 },
    )
  })

  it('never throws and never emits a think tag on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.nat(), { maxLength: 5 }), (text, cuts) => {
        const out = runSplit(text, cuts)
        expect(out).toBe(reference(text))
      }),
    )
  })
})

describe('truncateAtSentence', () => {
  it('cuts at the last sentence end inside the budget', () => {
    expect(truncateAtSentence('One fact here. Two facts here. Three facts here.', 35)).toBe('One fact here. Two facts here.')
  })

  it('a sentence ends after its closing quote or bracket, which it keeps', () => {
    const text = 'He said it would “protect livelihoods.” Others disagreed strongly with that view, and said so.'
    expect(truncateAtSentence(text, 60)).toBe('He said it would “protect livelihoods.”')
    expect(truncateAtSentence('A note (see the annex.) Then more words follow here', 40)).toBe('A note (see the annex.)')
  })

  it('never exceeds the budget', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 0, max: 200 }), (text, max) => {
        expect(truncateAtSentence(text, max).length).toBeLessThanOrEqual(Math.max(max, 0))
      }),
    )
  })
})

describe('normalizeText', () => {
  it('folds case, width, punctuation and whitespace', () => {
    expect(normalizeText('  The ２０２４ Nobel-Prize,\n went to  BAKER! ')).toBe('the 2024 nobel prize went to baker')
  })
})

describe('normalizeText on ASCII and Unicode alike', () => {
  it('gives ASCII text the same key as the general Unicode path', () => {
    const general = (text: string) =>
      text
        .normalize('NFKC')
        .toLowerCase()
        .replace(/[\p{P}\p{S}\p{Cc}\s]+/gu, ' ')
        .trim()
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 80 }), (text) => {
        expect(normalizeText(text)).toBe(general(text))
      }),
      { numRuns: 1000 },
    )
  })
})
