import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { LLMRequest } from '../../../src/index.js'
import { createJsonStreamReader, type ClosedValue } from '../../../src/strategies/shared/json-stream.js'
import type { Role } from '../../support/roles.js'
import { splitAt } from '../../support/split.js'
import { runReplying } from '../replying.js'

function readAll(pieces: readonly string[]): ClosedValue[] {
  const reader = createJsonStreamReader()
  return pieces.flatMap((piece) => reader.push(piece))
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

/**
 * What a run did with a planner whose first reply streams in `pieces`: the queries it searched
 * early (their `query` events come before the `plan` that follows the reply; a search started
 * after the reply comes after it) and kept (one the parse did not keep is cancelled: its result
 * is an aborted one), and those the parse of the whole reply planned ([] when it read none and
 * fell back).
 */
async function streamedPlan(strategy: 'graph-reader' | 'reflect' | 'deep', role: Role, pieces: readonly string[]) {
  const { events } = await runReplying(strategy, { [role]: (_req: LLMRequest, n: number) => (n === 0 ? { pieces } : '{"is_complete": true}') })
  const plan = events.findIndex((e) => e.type === 'plan')
  expect(plan).toBeGreaterThanOrEqual(0)
  const aborted = new Set(events.flatMap((e) => (e.type === 'result' && e.error?.code === 'aborted' ? [e.queryId] : [])))
  const early = events.slice(0, plan).flatMap((e) => (e.type === 'query' && !aborted.has(e.queryId) ? [e.query] : []))
  const fellBack = events.slice(0, plan).some((e) => e.type === 'warning' && e.code === 'unparseable-output')
  return { early, planned: fellBack ? [] : ((events[plan] as { queries?: string[] }).queries ?? []) }
}

describe('the query stream, as the strategies start searches from it', () => {
  const query = fc.string({ minLength: 1, maxLength: 40 }).filter((q) => q.trim() !== '')

  it("sees, in any split, the queries the parse of the whole plan reads (graph-reader's plan)", async () => {
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
    await fc.assert(
      fc.asyncProperty(plan, fc.constantFrom(0, 2), fc.array(fc.nat(), { maxLength: 10 }), async (value, indent, cuts) => {
        const reply = `\`\`\`json\n${JSON.stringify(value, null, indent)}\n\`\`\``
        const { early, planned } = await streamedPlan('graph-reader', 'graph-reader planner', splitAt(reply, cuts))
        expect(early).toEqual(planned)
      }),
    )
  })

  it("sees the queries of a top-level list and of a bare list, line by line (reflect's planner)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(query, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 10 }), async (queries, cuts) => {
        const json = JSON.stringify(queries)
        const listed = await streamedPlan('reflect', 'reflect queries', splitAt(json, cuts))
        expect(listed.early).toEqual(listed.planned)
        const clean = queries.map((q) => q.replace(/[\r\n[\]{}]/g, ' ').trim() || 'q')
        const bare = `Queries:\n${clean.map((q, i) => `${i + 1}. ${q}`).join('\n')}\n`
        const lines = await streamedPlan('reflect', 'reflect queries', splitAt(bare, cuts))
        expect(lines.early).toEqual(lines.planned)
      }),
    )
  })

  it('cleans a query to a fixed point: trailing commas and edges go together ("0, ," is "0", as the bare list parse reads it)', async () => {
    expect(await streamedPlan('reflect', 'reflect queries', ['Queries:\n1. 0, ,\n'])).toEqual({ early: ['0'], planned: ['0'] })
    // The stream's query and the parse's are cleaned alike: the search started early is the one planned.
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom(...'a0 ,."\'*`'), maxLength: 30 }), async (raw) => {
        const { early, planned } = await streamedPlan('reflect', 'reflect queries', [JSON.stringify({ queries: [raw] })])
        expect(early).toEqual(planned)
      }),
    )
  })

  it("reads one query from a top-level string field, not from nested ones (deep's planner)", async () => {
    const { early, planned } = await streamedPlan('deep', 'deep planner', [
      '{"is_complete": false, "nested": {"next_question": "no"}, "next_question": "What is ',
      'it?", "reasoning": "because"}',
    ])
    expect(early).toEqual(['What is it?'])
    expect(planned).toEqual(['What is it?'])
  })

  it('leaves a bare list once JSON appears (the JSON is the reply)', async () => {
    const pieces = ['- first\n{"queries": ["second"]}\n- third\n']
    const { events } = await runReplying('reflect', { 'reflect queries': (_req: LLMRequest, n: number) => (n === 0 ? { pieces } : '[]') })
    // The bare list's first line and the JSON's query start; "third", after the JSON, never does.
    const plan = events.findIndex((e) => e.type === 'plan')
    expect(events.slice(0, plan).flatMap((e) => (e.type === 'query' ? [e.query] : []))).toEqual(['first', 'second'])
    expect(events[plan]).toMatchObject({ queries: ['second'] })
  })
})
