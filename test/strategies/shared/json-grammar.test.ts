/**
 * One grammar for both loose-JSON readers: whatever `parseLooseJson` reads out of a whole text,
 * the incremental reader reports too, for the same brackets; and both read every loose rendering
 * of a JSON value (single and curly quotes, bare keys, Python literals, trailing commas, raw line
 * breaks in strings, prose and fences around, the end cut off) as that value.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { stripThink } from '../../../src/strategy.js'
import { createJsonStreamReader } from '../../../src/strategies/shared/json-stream.js'
import { parseLooseJson } from '../../../src/strategy.js'
import { splitAt } from '../../support/split.js'

/** Every value the incremental reader reports for `text`, pushed in `pieces`, at any depth. */
function streamValues(pieces: readonly string[]): unknown[] {
  const reader = createJsonStreamReader({ reportDepth: Number.POSITIVE_INFINITY })
  return [...pieces.flatMap((piece) => reader.push(piece)), ...reader.end()].map((closed) => closed.value)
}

/** Characters that make up loose JSON and the prose around it. */
const jsonish = fc.string({ unit: fc.constantFrom(...'{}[]:,"\'“”‘’\\ \n\tabq_01-.eE+TrueNonefalsenull'), maxLength: 80 })

/** A JSON value written loosely, as a small model might: each choice made at random. */
function loose(value: unknown): fc.Arbitrary<string> {
  const space = fc.constantFrom('', ' ', '\n  ')
  if (value === null) return fc.constantFrom('null', 'None')
  if (value === true) return fc.constantFrom('true', 'True')
  if (value === false) return fc.constantFrom('false', 'False')
  if (typeof value === 'number') return fc.constant(JSON.stringify(value))
  if (typeof value === 'string') return looseString(value)
  if (Array.isArray(value)) {
    return fc
      .tuple(
        fc.tuple(...value.map(loose)).map((items) => items),
        space,
        fc.boolean(),
      )
      .map(([items, s, trailing]) => `[${s}${items.join(`,${s}`)}${trailing && items.length > 0 ? ',' : ''}${s}]`)
  }
  const entries = Object.entries(value as Record<string, unknown>)
  return fc
    .tuple(fc.tuple(...entries.map(([key, v]) => fc.tuple(looseKey(key), loose(v)).map(([k, text]) => `${k}: ${text}`))), space, fc.boolean())
    .map(([items, s, trailing]) => `{${s}${items.join(`,${s}`)}${trailing && items.length > 0 ? ',' : ''}${s}}`)
}

function looseString(text: string): fc.Arbitrary<string> {
  const forms = [fc.constant(JSON.stringify(text))]
  // Raw line breaks, as models write them inside strings.
  forms.push(
    fc.constant(
      `"${text
        .split('\n')
        .map((line) => JSON.stringify(line).slice(1, -1))
        .join('\n')}"`,
    ),
  )
  if (!/["“”]/.test(text)) forms.push(fc.constant(`“${JSON.stringify(text).slice(1, -1)}”`))
  if (!/['‘’\\]/.test(text)) forms.push(fc.constantFrom(`'${text}'`, `‘${text}’`))
  return fc.oneof(...forms)
}

function looseKey(key: string): fc.Arbitrary<string> {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? fc.oneof(fc.constant(key), looseString(key)) : looseString(key)
}

const text = fc.string({ unit: fc.oneof(fc.constantFrom('é', '“', '’', '\\', '\n', '\t', "'", '"'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 12 })
const key = fc.oneof(fc.constantFrom('queries', 'goal', 'a_b', 'x-y', 'True'), text)
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
})).value
const container = fc.oneof(fc.array(jsonValue, { maxLength: 4 }), fc.dictionary(key, jsonValue, { maxKeys: 4 }))
const prose = fc.constantFrom('', 'Here is the plan:\n', "Sure, here's what I'd search:\n", '```json\n', '<think>I should use {"x": 1}</think>\n')

describe('the loose JSON grammar', () => {
  it('both readers read a loosely written value as that value, however the text is split', () => {
    fc.assert(
      fc.property(
        container.chain((value) => fc.tuple(fc.constant(value), loose(value))),
        prose,
        fc.array(fc.nat(), { maxLength: 8 }),
        ([value, written], before, cuts) => {
          const expected = JSON.parse(JSON.stringify(value))
          const reply = `${before}${written}\n\`\`\`\nThat's it.`
          expect(parseLooseJson(reply)).toEqual(expected)
          const values = streamValues(splitAt(stripThink(reply), cuts))
          expect(values.at(-1)).toEqual(expected)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('a reply cut off mid-value: both complete it the same way', () => {
    fc.assert(
      fc.property(
        container.chain((value) => loose(value)),
        fc.nat(),
        (written, cut) => {
          const reply = written.slice(0, 1 + (cut % written.length))
          const whole = parseLooseJson(reply)
          if (whole !== undefined) expect(streamValues([reply])).toContainEqual(whole)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('on every text: what parseLooseJson reads, the incremental reader reports', () => {
    fc.assert(
      fc.property(fc.oneof(jsonish, fc.string({ maxLength: 60 })), fc.array(fc.nat(), { maxLength: 6 }), (reply, cuts) => {
        const whole = parseLooseJson(reply)
        if (whole !== undefined) expect(streamValues(splitAt(stripThink(reply), cuts))).toContainEqual(whole)
      }),
      { numRuns: 2000 },
    )
  })
})
