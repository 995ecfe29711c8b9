import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseQueries, parseReflection } from '../../../src/strategies/reflect/parse.js'

describe('parseQueries', () => {
  it.each([
    ['["a b", "c d", "a  B"]', ['a b', 'c d']],
    ['```json\n["x", {"query": "y"}]\n```', ['x', 'y']],
    ['<think>hmm ["no"]</think>{"queries": ["one", "two"]}', ['one', 'two']],
    ['Queries:\n1. first query\n2. "second query"', ['first query', 'second query']],
    ['["one", "two", "three", "four", "five", "six"]', ['one', 'two', 'three', 'four', 'five']],
    ['no queries here', []],
    ['[1, 2, null]', []],
  ])('reads %j', (reply, expected) => {
    expect(parseQueries(reply)).toEqual(expected)
  })

  it('never throws and returns at most five non-empty strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.anything().map((v) => JSON.stringify(v) ?? ''),
        ),
        (reply) => {
          const queries = parseQueries(reply)
          expect(queries.length).toBeLessThanOrEqual(5)
          for (const q of queries) expect(q.trim()).not.toBe('')
        },
      ),
    )
  })
})

describe('parseReflection', () => {
  it('reads slots as an object of evidence', () => {
    expect(
      parseReflection('{"slots": {"winner": "Argentina [1]", "score": null, "date": "unknown"}, "need_more": true, "new_queries": ["final score"]}'),
    ).toEqual({
      slots: [{ name: 'winner', evidence: 'Argentina [1]' }, { name: 'score' }, { name: 'date' }],
      needMore: true,
      newQueries: ['final score'],
    })
  })

  it('reads the design document shape: slot names and the filled ones', () => {
    expect(
      parseReflection('{"slots": ["winner", "score", "date"], "filled": ["winner"], "need_more": true, "new_queries": ["argentina goals 2022 final"]}'),
    ).toEqual({
      slots: [{ name: 'winner', evidence: 'found' }, { name: 'score' }, { name: 'date' }],
      needMore: true,
      newQueries: ['argentina goals 2022 final'],
    })
  })

  it('reads slots as objects and infers need_more from empty slots', () => {
    expect(parseReflection("{slots: [{name: 'winner', evidence: 'Argentina'}, {name: 'score', value: None}]}")).toEqual({
      slots: [{ name: 'winner', evidence: 'Argentina' }, { name: 'score' }],
      needMore: true,
      newQueries: [],
    })
    expect(parseReflection('{"slots": {"winner": "Argentina"}, "need_more": "no"}')?.needMore).toBe(false)
  })

  it('returns undefined when nothing is a reflection', () => {
    expect(parseReflection('All good.')).toBeUndefined()
    expect(parseReflection('{"answer": 42}')).toBeUndefined()
  })

  it('never throws on any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.anything().map((v) => JSON.stringify(v) ?? ''),
        ),
        (reply) => {
          const reflection = parseReflection(reply)
          if (reflection) {
            expect(typeof reflection.needMore).toBe('boolean')
            for (const q of reflection.newQueries) expect(typeof q).toBe('string')
          }
        },
      ),
    )
  })
})
