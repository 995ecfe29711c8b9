import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePlan } from '../../../src/strategies/graph-reader/parse.js'
import { parseQueries } from '../../../src/strategies/reflect/parse.js'
import { createJsonStreamReader, type ClosedValue } from '../../../src/strategies/shared/json-stream.js'
import { createQueryStream, type QueryStreamOptions } from '../../../src/strategies/shared/query-stream.js'
import { distinctQueries } from '../../../src/strategies/shared/read.js'
import { splitAt } from '../../support/split.js'

function readAll(pieces: readonly string[]): ClosedValue[] {
  const reader = createJsonStreamReader()
  return pieces.flatMap((piece) => reader.push(piece))
}

function queriesOf(pieces: readonly string[], options: QueryStreamOptions): string[] {
  const stream = createQueryStream(options)
  return pieces.flatMap((piece) => stream.push(piece))
}

/** Text that looks like what models write: JSON-ish characters, words, quotes of every kind. */
const jsonish = fc.string({ unit: fc.constantFrom(...'{}[]:,"\'“”‘’\\ \nabq01-.TrueNone'), maxLength: 120 })

describe('createJsonStreamReader', () => {
  it('reports the same values however the text is split', () => {
    fc.assert(
      fc.property(fc.oneof(jsonish, fc.string({ maxLength: 80 })), fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        expect(readAll(splitAt(text, cuts))).toEqual(readAll([text]))
      }),
    )
  })

  it('reads any JSON object or array back whole, with each value where it sits', () => {
    const top = fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 })), fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }))
    fc.assert(
      fc.property(top, fc.constantFrom(0, 2), fc.array(fc.nat(), { maxLength: 8 }), (value, indent, cuts) => {
        const text = `Here is the plan:\n${JSON.stringify(value, null, indent)}\nDone.`
        const closed = readAll(splitAt(text, cuts))
        const whole = closed.filter((c) => c.path.length === 0)
        expect(whole).toHaveLength(1)
        expect(whole[0]!.value).toEqual(JSON.parse(JSON.stringify(value)))
        // Every value reported is the value at its path.
        const parsed: unknown = JSON.parse(JSON.stringify(value))
        for (const { path, value: at } of closed) {
          const expected = path.reduce<unknown>((v, key) => (v as Record<string | number, unknown>)[key], parsed)
          expect(at).toEqual(expected)
        }
      }),
    )
  })

  it('reports a string the moment its closing quote arrives', () => {
    const reader = createJsonStreamReader()
    expect(reader.push('{"queries": ["first que')).toEqual([])
    expect(reader.push('ry", "sec')).toEqual([{ path: ['queries', 0], value: 'first query' }])
    expect(reader.push('ond"')).toEqual([{ path: ['queries', 1], value: 'second' }])
    expect(reader.push(']}')).toEqual([
      { path: ['queries'], value: ['first query', 'second'] },
      { path: [], value: { queries: ['first query', 'second'] } },
    ])
  })

  it('reads the loose forms: single and curly quotes, bare keys, Python literals, trailing commas', () => {
    const closed = readAll(["```json\n{queries: ['it\\'s one', “two”,], done: True, note: None,}\n```"])
    expect(closed.at(-1)).toEqual({ path: [], value: { queries: ["it's one", 'two'], done: true, note: null } })
  })

  it('ignores quotes and words in the prose around the JSON', () => {
    const closed = readAll(['Let\'s see: it\'s "quoted" here.\n{"a": 1}'])
    expect(closed).toEqual([
      { path: ['a'], value: 1 },
      { path: [], value: { a: 1 } },
    ])
  })

  it('stays linear on adversarial input (1 MB of open brackets, an unterminated string)', () => {
    const reader = createJsonStreamReader()
    expect(reader.push('['.repeat(1_000_000))).toEqual([])
    expect(reader.push(`"${'x'.repeat(1_000_000)}`)).toEqual([])
  })
})

describe('createQueryStream', () => {
  const PLAN_LISTS = ['queries', 'initial_queries', 'initialQueries', 'search_queries', 'searchQueries', 'nodes']
  const query = fc.string({ minLength: 1, maxLength: 40 }).filter((q) => q.trim() !== '')

  it('sees, in any split, the queries the parse of the whole plan reads', () => {
    const plan = fc.record({
      goal: fc.string({ maxLength: 30 }),
      steps: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
      key_elements: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
      // Strings, or `{ query }` objects (a list mixing both is read by its strings alone).
      queries: fc.oneof(
        fc.array(query, { minLength: 1, maxLength: 7 }),
        fc.array(
          query.map((q) => ({ query: q })),
          { minLength: 1, maxLength: 7 },
        ),
      ),
    })
    fc.assert(
      fc.property(plan, fc.constantFrom(0, 2), fc.array(fc.nat(), { maxLength: 10 }), (value, indent, cuts) => {
        const reply = `\`\`\`json\n${JSON.stringify(value, null, indent)}\n\`\`\``
        const seen = queriesOf(splitAt(reply, cuts), { lists: PLAN_LISTS })
        expect(distinctQueries(seen, 5)).toEqual(parsePlan(reply)?.queries ?? [])
      }),
    )
  })

  it('sees the queries of a top-level list and of a bare list, line by line', () => {
    fc.assert(
      fc.property(fc.array(query, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 10 }), (queries, cuts) => {
        const json = JSON.stringify(queries)
        expect(distinctQueries(queriesOf(splitAt(json, cuts), { topLevelList: true }), 5)).toEqual(parseQueries(json))
        const clean = queries.map((q) => q.replace(/[\r\n[\]{}]/g, ' ').trim() || 'q')
        const bare = `Queries:\n${clean.map((q, i) => `${i + 1}. ${q}`).join('\n')}\n`
        expect(distinctQueries(queriesOf(splitAt(bare, cuts), { bareList: true }), 5)).toEqual(parseQueries(bare))
      }),
    )
  })

  it('cleans a query to a fixed point: trailing commas and edges go together ("0, ," is "0", as the bare list parse reads it)', () => {
    expect(distinctQueries(['0, ,'], 5)).toEqual(['0'])
    expect(queriesOf(['Queries:\n1. 0, ,\n'], { bareList: true }).flatMap((q) => distinctQueries([q], 5))).toEqual(parseQueries('Queries:\n1. 0, ,\n'))
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'a0 ,."\'*`'), maxLength: 30 }), (raw) => {
        const once = distinctQueries([raw], 1)
        expect(distinctQueries(once, 1)).toEqual(once)
      }),
    )
  })

  it('reads one query from a top-level string field, not from nested ones', () => {
    const stream = createQueryStream({ fields: ['next_question'] })
    expect(stream.push('{"is_complete": false, "nested": {"next_question": "no"}, "next_question": "What is ')).toEqual([])
    expect(stream.push('it?", "reasoning": "because"}')).toEqual(['What is it?'])
  })

  it('leaves a bare list once JSON appears (the JSON is the reply)', () => {
    const stream = createQueryStream({ lists: ['queries'], bareList: true })
    expect(stream.push('- first\n{"queries": ["second"]}\n- third\n')).toEqual(['first', 'second'])
  })
})
