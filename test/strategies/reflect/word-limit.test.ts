/**
 * reflect's answer stops at `reflect.maxWords` words, met through reflect runs whose synthesizer
 * streams its answer in any pieces: a word or a citation is never cut, and the citations and
 * punctuation of the last word stay with it.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { citationFilter } from '../../../src/strategy.js'
import { mockSearch } from '../../../src/testing/index.js'
import { splitAt } from '../../support/split.js'
import { ofType, runReplying } from '../replying.js'

/** Four results for any query: sources [1] to [4] exist. */
const search = mockSearch({
  results: (query) => [1, 2, 3, 4].map((i) => ({ title: `R${i}`, url: `https://r${i}.example/${encodeURIComponent(query)}`, snippet: `Result ${i}.` })),
})

/** The answer of a reflect run whose synthesizer streams `chunks`, within `maxWords`. */
async function answered(chunks: readonly string[], maxWords: number): Promise<string> {
  const { events } = await runReplying(
    'reflect',
    {
      'reflect queries': '["the final"]',
      'reflect reflection': '{"slots": {}, "need_more": false}',
      'reflect synthesizer': { pieces: chunks },
    },
    { search, reflect: { maxWords } },
  )
  const [answer] = ofType(events, 'answer')
  return answer!.text
}

/** A token that counts as a word: it holds a letter or a digit and is not made of citation markers (and closing punctuation). */
const isWord = (token: string) => /[\p{L}\p{N}]/u.test(token) && !(/[[\]]/.test(token) && /^[\d,[\]]+$/.test(token.replace(/[.,;:!?)]+$/, '')))
const countWords = (text: string) => (text.match(/\S+/g) ?? []).filter(isWord).length
/** Tokens with their citation markers written one number each, the numbers left out (the answer renumbers its sources). */
const shapes = (text: string) => {
  const filter = citationFilter((n) => n)
  const marked = filter.push(text) + filter.flush()
  return marked
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => token.replace(/\[\d+\]/g, '[#]'))
}

const token = fc.oneof(
  fc.constantFrom('Argentina', 'won', '2022', 'final,', 'score:', '3–3.', 'très', '—', 'x[1]', 'France[2].'),
  fc.constantFrom('[1]', '[2][3].', '[4],', '[1, 2]'),
)
const space = fc.constantFrom(' ', '  ', '\n', ' \n\n')
const answer = fc.array(fc.tuple(token, space), { minLength: 1, maxLength: 40 }).map((parts) =>
  parts
    .map(([t, s]) => t + s)
    .join('')
    .trim(),
)

describe("reflect's word limit", () => {
  it('keeps the citations and punctuation of the last word, and nothing after it', async () => {
    expect(await answered(['One two [1][2]. three four'], 2)).toBe('One two [1][2].')
    expect(await answered(['One', ' t', 'wo', ' [', '1]', ' three'], 2)).toBe('One two [1]')
    expect(await answered(['Short answer [1].'], 80)).toBe('Short answer [1].')
    expect(await answered(['In 2022 the final [1]'], 2)).toBe('In 2022')
  })

  it('never cuts a word or a citation, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(answer, fc.integer({ min: 1, max: 12 }), fc.array(fc.nat(), { maxLength: 10 }), async (text, maxWords, cuts) => {
        fc.pre(countWords(text) > 0)
        const whole = await answered([text], maxWords)
        expect(await answered(splitAt(text, cuts), maxWords)).toBe(whole)
        expect(countWords(whole)).toBe(Math.min(maxWords, countWords(text)))
        // Every output token is a whole token of the input, in order (its citations renumbered).
        const tokens = shapes(text)
        const kept = shapes(whole)
        expect(kept).toEqual(tokens.slice(0, kept.length))
        expect(whole).toBe(whole.trimEnd())
      }),
    )
  })
})
