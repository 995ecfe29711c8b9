import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseBareList, parseLooseJson } from '../../../src/strategy.js'

describe('parseLooseJson', () => {
  it.each([
    ['```json\n{"queries": ["a", "b"]}\n```', 'object', { queries: ['a', 'b'] }],
    ['Step 1: look [1]. Step 2: compare [2].\n{"queries": ["x"]}', 'object', { queries: ['x'] }],
    ['Step 1 [1], Step 2 [2]: ["real query one", "real query two"]', 'array', ['real query one', 'real query two']],
    ['<think>{"wrong": true}</think>{"right": true}', 'object', { right: true }],
    ['{"a": [1, 2,], "b": 3,}', 'object', { a: [1, 2], b: 3 }],
    ["{'goal': 'find it', 'done': True, 'note': None}", 'object', { goal: 'find it', done: true, note: null }],
    ['{goal: "unquoted keys"}', 'object', { goal: 'unquoted keys' }],
    ['{"steps": ["a", "b"', 'object', { steps: ['a', 'b'] }],
    ['no json here', 'any', undefined],
  ] as const)('%j', (text, expect_, expected) => {
    expect(parseLooseJson(text, expect_)).toEqual(expected)
  })

  it('reads back any JSON value written inside prose', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })), fc.string({ maxLength: 30 }), (value, prose) => {
        const cleanProse = prose.replace(/[[\]{}"'<>]/g, '')
        expect(parseLooseJson(`${cleanProse}\n${JSON.stringify(value)}\n${cleanProse}`, 'object')).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
  })

  it('never throws on any string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(() => parseLooseJson(text)).not.toThrow()
        expect(() => parseBareList(text)).not.toThrow()
      }),
      { numRuns: 1000 },
    )
    const token = fc.constantFrom('{', '}', '[', ']', '"', "'", ',', ':', 'a', '1', 'True', '\\', ' ', '\n', '```')
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => void parseLooseJson(tokens.join(''))),
      { numRuns: 1000 },
    )
  })
})

describe('parseBareList', () => {
  it('reads dashes, stars, bullets and numbers', () => {
    expect(parseBareList('Here are queries:\n- first one\n2) second\n* "third"\n• fourth\nnot an item')).toEqual(['first one', 'second', 'third', 'fourth'])
  })
})
