import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countWords, wordLimitFilter } from '../../../src/strategies/reflect/word-limit.js'
import { splitAt } from '../../support/split.js'

function runFilter(chunks: readonly string[], maxWords: number): string {
  const filter = wordLimitFilter(maxWords)
  return chunks.map((c) => filter.push(c)).join('') + filter.flush()
}

const token = fc.oneof(
  fc.constantFrom('Argentina', 'won', '2022', 'final,', 'score:', '3–3.', 'très', '—', 'x[1]', 'France[2].'),
  fc.constantFrom('[1]', '[2][3].', '[4],', '[1, 2]'),
)
const space = fc.constantFrom(' ', '  ', '\n', ' \n\n')
const answer = fc.array(fc.tuple(token, space), { maxLength: 40 }).map((parts) =>
  parts
    .map(([t, s]) => t + s)
    .join('')
    .trim(),
)

describe('wordLimitFilter', () => {
  it('keeps the citations and punctuation of the last word, and nothing after it', () => {
    expect(runFilter(['One two [1][2]. three four'], 2)).toBe('One two [1][2].')
    expect(runFilter(['One', ' t', 'wo', ' [', '1]', ' three'], 2)).toBe('One two [1]')
    expect(runFilter(['Short answer [1].'], 80)).toBe('Short answer [1].')
    expect(runFilter(['In 2022 the final [1]'], 2)).toBe('In 2022')
  })

  it('never cuts a word or a citation, whatever the chunking', () => {
    fc.assert(
      fc.property(answer, fc.integer({ min: 1, max: 12 }), fc.array(fc.nat(), { maxLength: 10 }), (text, maxWords, cuts) => {
        const whole = runFilter([text], maxWords)
        expect(runFilter(splitAt(text, cuts), maxWords)).toBe(whole)
        expect(countWords(whole)).toBe(Math.min(maxWords, countWords(text)))
        // Every output token is a whole token of the input, in order.
        const tokens = text.split(/\s+/).filter(Boolean)
        const kept = whole.split(/\s+/).filter(Boolean)
        expect(kept).toEqual(tokens.slice(0, kept.length))
        expect(whole).toBe(whole.trimEnd())
      }),
    )
  })
})
