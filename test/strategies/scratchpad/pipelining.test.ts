import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type AgentOptions, type LLMRequest } from '../../../src/index.js'
import { gatedRig, watchedStore, type GatedRig, type Piece } from '../gated.js'
import { collect, ofType } from '../reflect/helpers.js'
import { splitAt } from '../../support/split.js'
import { roleOf } from '../../support/roles.js'
import { runReplying } from '../replying.js'

type Reply = readonly (string | Piece)[]

/** A rig whose planner streams as scripted (then: answer); the synthesizer and finalizer reply at once. */
function scratchpadRig(script: (rig: GatedRig) => Reply[]): GatedRig {
  let planned = 0
  let built: Reply[] | undefined
  const rig: GatedRig = gatedRig((req: LLMRequest) => {
    built ??= script(rig)
    if (roleOf(req.system) === 'scratchpad planner') return built[planned++] ?? ['Action: Answer']
    if (roleOf(req.system) === 'scratchpad finalizer') return ['The score was 3-3.']
    return [`Notes after "${req.prompt.length}" characters.`]
  })
  return rig
}

const agent = (rig: GatedRig, options: AgentOptions = {}) => createAgent({ llm: rig.llm, search: rig.search, ...options, strategy: 'scratchpad' })

/**
 * What a scratchpad run did with a planner whose first reply streams in `pieces`: the queries
 * searched early (their `query` events come before the `plan` that follows the reply; a search
 * started after the reply comes after it), and what the parse of the whole reply decided.
 */
async function planned(pieces: readonly string[]) {
  const { events } = await runReplying('scratchpad', {
    'scratchpad planner': (_req, n) => (n === 0 ? { pieces } : 'Action: Answer'),
    'scratchpad synthesizer': 'Notes [1].',
    'scratchpad finalizer': 'The score was 3-3 [1].',
  })
  const plan = events.findIndex((e) => e.type === 'plan')
  const early = events.slice(0, plan).flatMap((e) => (e.type === 'query' ? [e.query] : []))
  const warned = events.slice(0, plan).flatMap((e) => (e.type === 'warning' ? [e.code] : []))
  const decided = warned.includes('unparseable-output') || warned.includes('forced-search') ? undefined : (events[plan] as { queries?: string[] }).queries?.[0]
  return { early, decided }
}

describe('scratchpad: pipelining', () => {
  it("searches the planner's query as soon as its line ends (or its JSON string closes), before the reply ends", async () => {
    // Each held piece is sent only once the search before it started: only pipelining gets there.
    const rig = scratchpadRig((r) => [
      ['Action: Search\nQuery: final score\n', { text: 'Reason: nothing is known yet.', after: () => r.started('final score') }],
      ['{"action": "search", "query": "penalty shootout"', { text: '}', after: () => r.started('penalty shootout') }],
    ])
    const store = watchedStore(rig)
    const { events, result } = await collect(agent(rig), 'What was the score?', { checkpoints: store })

    expect(rig.log.indexOf('search final score')).toBeLessThan(rig.log.indexOf('piece 0.1'))
    // Calls: planner 0, synthesizer 1, planner 2.
    expect(rig.log.indexOf('search penalty shootout')).toBeLessThan(rig.log.indexOf('piece 2.1'))
    expect(rig.searches()).toEqual(['final score', 'penalty shootout'])
    const plan = ofType(events, 'plan')[0]!
    expect(plan.queries).toEqual(['final score'])
    expect(events.findIndex((e) => e.type === 'query')).toBeLessThan(events.indexOf(plan))
    expect(result).toMatchObject({ reason: 'answered', answer: 'The score was 3-3.', cost: { searches: 2 } })
    expect(store.inFlightAtSaves.length).toBeGreaterThan(0)
    expect(store.inFlightAtSaves.every((open) => open.length === 0)).toBe(true)
  })

  it('cancels a query the parse does not keep: the reply goes on to answer (with nothing known, the question is searched)', async () => {
    const rig = scratchpadRig((r) => [['Query: final score\n', { text: 'Action: Answer', after: () => r.started('final score') }]])
    const { events, result } = await collect(agent(rig), 'What was the score?')
    expect(rig.log).toContain('aborted final score')
    const announced = ofType(events, 'query').find((q) => q.query === 'final score')!
    expect(ofType(events, 'result').find((r) => r.queryId === announced.queryId)).toMatchObject({ results: [], error: { code: 'aborted' } })
    // The planner wanted to answer with empty knowledge: the question itself is searched instead.
    expect(rig.searches()).toEqual(['final score', 'What was the score?'])
    expect(result).toMatchObject({ reason: 'answered', cost: { searches: 1 } })
  })

  it('does not start a query searched before', async () => {
    const rig = scratchpadRig(() => [
      ['Query: final score\n', 'Reason: first.'],
      ['Query: Final Score\n', 'Reason: again.'],
    ])
    const { result } = await collect(agent(rig), 'What was the score?')
    // The repeat is neither searched early nor by the loop, which answers from its knowledge.
    expect(rig.searches()).toEqual(['final score'])
    expect(result.reason).toBe('answered')
  })

  it('with pipelining off, searches only once the reply has ended', async () => {
    const rig = scratchpadRig(() => [['Action: Search\nQuery: final score\n', 'Reason: nothing is known yet.']])
    const { result } = await collect(agent(rig, { pipelining: false }), 'What was the score?')
    expect(rig.searches()).toEqual(['final score'])
    expect(rig.log.indexOf('search final score')).toBeGreaterThan(rig.log.indexOf('end 0'))
    expect(result.reason).toBe('answered')
  })

  it('does not search the query put to the caller (review.plan) early; the later ones are', async () => {
    const rig = scratchpadRig((r) => [
      ['Query: final score\n', 'Reason: first.'],
      ['Query: penalty shootout\n', { text: 'Reason: second.', after: () => r.started('penalty shootout') }],
    ])
    const asked: string[][] = []
    const { result } = await collect(agent(rig), 'What was the score?', {
      review: { plan: true },
      decide: async (plan) => {
        if (plan.kind === 'plan') asked.push(plan.queries)
        // Nothing of the plan may be searched before the caller has seen it.
        expect(rig.searches()).toEqual([])
        return { action: 'approve' }
      },
    })
    expect(asked).toEqual([['final score']])
    expect(rig.searches()).toEqual(['final score', 'penalty shootout'])
    // Calls: planner 0, synthesizer 1, planner 2.
    expect(rig.log.indexOf('search penalty shootout')).toBeLessThan(rig.log.indexOf('piece 2.1'))
    expect(result.reason).toBe('answered')
  })

  it("the stream's query is the parse's, for any split of a text-protocol reply whose query line ends", async () => {
    const word = fc.stringMatching(/^[a-z0-9][a-z0-9 ?'-]{0,30}$/)
    const label = fc.constantFrom('Query: ', '**Query:** ', '- query = ', 'Search query: ', 'Action: Search: ')
    const reply = fc
      .tuple(
        fc.constantFrom('Action: Search\n', 'Action: Search\r\n', '', 'Thought: look it up\n'),
        label,
        word,
        fc.constantFrom('\n', '\r\n'),
        fc.string({ maxLength: 20 }),
      )
      .map(([head, l, q, end, tail]) => `${head}${l}${q}${end}${tail.replace(/[\r\n]/g, ' ')}`)
    await fc.assert(
      fc.asyncProperty(reply, fc.array(fc.nat(), { maxLength: 8 }), async (text, cuts) => {
        const split = await planned(splitAt(text, cuts))
        const whole = await planned([text])
        // The parse's search is the one started early, whatever the split; no other starts early.
        if (split.decided !== undefined) expect(split.early).toEqual([split.decided])
        else expect(split.early).toEqual([])
        expect(split).toEqual(whole)
      }),
    )
  })
})
