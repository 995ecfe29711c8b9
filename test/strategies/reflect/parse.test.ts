/**
 * How reflect reads its model: the planner's queries are the first `plan`'s (a reply with none is
 * an `unparseable-output` warning, and the question is searched); a reflection is the next `plan`
 * (its slots named, filled ✓ or not ✗, the gaps it searches next) and the checklist the
 * synthesizer is shown (each slot's evidence, its citation markers dropped).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../../src/index.js'
import type { ScriptedLLM } from '../../../src/testing/index.js'
import { roleOf } from '../../support/roles.js'
import { ofType, runReplying, warningCodes } from '../replying.js'

const QUESTION = 'Who won the 2022 world cup final?'

/** The queries reflect searches first when its planner says `reply`; [] when it read none. */
async function queriesOf(reply: string): Promise<string[]> {
  const { events } = await runReplying('reflect', { 'reflect queries': reply, 'reflect reflection': '{"slots": {}, "need_more": false}' }, {}, QUESTION)
  expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
  const [plan] = ofType(events, 'plan')
  if (warningCodes(events).includes('unparseable-output')) {
    // Read nothing: the question itself is searched.
    expect(plan?.queries).toEqual([QUESTION])
    return []
  }
  expect(plan?.text).toBe(`Search: ${plan?.queries?.join(' | ')}`)
  return plan?.queries ?? []
}

interface Read {
  slots: { name: string; evidence?: string }[]
  /** The gaps searched next: the new queries, when the reflection needs more. */
  searchesNext: string[]
}

/** What reflect read from a reflection that says `reply` (every time it is asked); undefined when it read none. */
async function reflectionOf(reply: string): Promise<{ read: Read | undefined; events: ResearchEvent[]; llm: ScriptedLLM }> {
  const { events, llm } = await runReplying(
    'reflect',
    { 'reflect queries': '["first search"]', 'reflect reflection': reply, 'reflect synthesizer': 'Argentina won [1].' },
    {},
    QUESTION,
  )
  expect(events.at(-1)).toMatchObject({ type: 'run-end' })
  expect(['answered', 'max-iterations']).toContain((events.at(-1) as { reason: string }).reason)
  if (warningCodes(events).includes('unparseable-output')) return { read: undefined, events, llm }
  const reflected = ofType(events, 'plan')[1]!
  const synthesizer = llm.calls.find((req) => roleOf(req.system) === 'reflect synthesizer')!
  const checklist = /What the answer needs:\n([\s\S]*?)\n\n/.exec(synthesizer.prompt)?.[1]
  const slots = (checklist ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, name, evidence] = /^- (.*?): (.*)$/.exec(line)!
      return evidence === '(not found)' ? { name: name! } : { name: name!, evidence: evidence! }
    })
  // The plan names the same slots, each filled or not.
  expect(reflected.keyElements).toEqual(slots.map((s) => s.name))
  for (const slot of slots) expect(reflected.text).toContain(`${slot.name} ${slot.evidence === undefined ? '✗' : '✓'}`)
  return { read: { slots, searchesNext: reflected.queries ?? [] }, events, llm }
}

const anyReply = fc.oneof(
  fc.string(),
  fc.json(),
  fc.anything().map((v) => JSON.stringify(v) ?? ''),
)

describe('the queries of reflect planner', () => {
  it.each([
    ['["a b", "c d", "a  B"]', ['a b', 'c d']],
    ['```json\n["x", {"query": "y"}]\n```', ['x', 'y']],
    ['<think>hmm ["no"]</think>{"queries": ["one", "two"]}', ['one', 'two']],
    ['Queries:\n1. first query\n2. "second query"', ['first query', 'second query']],
    ['["one", "two", "three", "four", "five", "six"]', ['one', 'two', 'three', 'four', 'five']],
    ['no queries here', []],
    ['[1, 2, null]', []],
  ])('reads %j', async (reply, expected) => {
    expect(await queriesOf(reply)).toEqual(expected)
  })

  it('never throws and returns at most five non-empty strings', async () => {
    await fc.assert(
      fc.asyncProperty(anyReply, async (reply) => {
        const queries = await queriesOf(reply)
        expect(queries.length).toBeLessThanOrEqual(5)
        for (const q of queries) expect(q.trim()).not.toBe('')
      }),
    )
  })
})

describe('the reflection', () => {
  it('reads slots as an object of evidence', async () => {
    const { read } = await reflectionOf(
      '{"slots": {"winner": "Argentina [1]", "score": null, "date": "unknown"}, "need_more": true, "new_queries": ["final score"]}',
    )
    expect(read).toEqual({
      // The synthesizer is shown the evidence without its citation markers.
      slots: [{ name: 'winner', evidence: 'Argentina' }, { name: 'score' }, { name: 'date' }],
      searchesNext: ['final score'],
    })
  })

  it('reads the design document shape: slot names and the filled ones', async () => {
    const { read } = await reflectionOf(
      '{"slots": ["winner", "score", "date"], "filled": ["winner"], "need_more": true, "new_queries": ["argentina goals 2022 final"]}',
    )
    expect(read).toEqual({
      slots: [{ name: 'winner', evidence: 'found' }, { name: 'score' }, { name: 'date' }],
      searchesNext: ['argentina goals 2022 final'],
    })
  })

  it('reads slots as objects and infers need_more from empty slots', async () => {
    const objects = "{slots: [{name: 'winner', evidence: 'Argentina'}, {name: 'score', value: None}]"
    expect((await reflectionOf(`${objects}}`)).read).toEqual({
      slots: [{ name: 'winner', evidence: 'Argentina' }, { name: 'score' }],
      searchesNext: [],
    })
    // No need_more, an empty slot: it needs more, so the gaps it names are searched.
    expect((await reflectionOf(`${objects}, new_queries: ['final score']}`)).read?.searchesNext).toEqual(['final score'])
    // need_more "no": nothing more is searched, whatever gaps it names.
    const enough = await reflectionOf('{"slots": {"winner": "Argentina"}, "need_more": "no", "new_queries": ["final score"]}')
    expect(enough.read?.searchesNext).toEqual([])
    // No second round: the reflection is asked once.
    expect(enough.llm.calls.filter((req) => roleOf(req.system) === 'reflect reflection')).toHaveLength(1)
  })

  it('reads nothing when nothing is a reflection', async () => {
    expect((await reflectionOf('All good.')).read).toBeUndefined()
    expect((await reflectionOf('{"answer": 42}')).read).toBeUndefined()
  })

  it('never throws on any string', async () => {
    await fc.assert(
      fc.asyncProperty(anyReply, async (reply) => {
        const { read } = await reflectionOf(reply)
        if (read) for (const q of read.searchesNext) expect(typeof q).toBe('string')
      }),
    )
  })
})
