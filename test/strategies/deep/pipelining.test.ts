import { describe, expect, it } from 'vitest'
import { createAgent, type AgentOptions, type LLMRequest } from '../../../src/index.js'
import { gatedRig, watchedStore, type GatedRig, type Piece } from '../gated.js'
import { collect, ofType } from '../reflect/helpers.js'
import { roleOf } from '../../support/roles.js'

type Reply = readonly (string | Piece)[]
const DONE = '{"is_complete": true, "reasoning": "covered"}'
const ANSWERED = '{"answer": "A is x [1].", "confidence": 0.8, "facts": [{"text": "A is x", "sources": [1]}], "need_more": false, "queries": []}'

/** A rig whose planner and extractor stream as scripted (then: complete, answered); the final answer comes at once. */
function deepRig(script: (rig: GatedRig) => { planner: Reply[]; extractor: Reply[] }): GatedRig {
  let planned = 0
  let extracted = 0
  let built: { planner: Reply[]; extractor: Reply[] } | undefined
  const rig: GatedRig = gatedRig((req: LLMRequest) => {
    built ??= script(rig)
    if (roleOf(req.system) === 'deep planner') return built.planner[planned++] ?? [DONE]
    if (roleOf(req.system) === 'deep sub-answer') return built.extractor[extracted++] ?? [ANSWERED]
    return ['A is x [1].']
  })
  return rig
}

const agent = (rig: GatedRig, options: AgentOptions = {}) =>
  createAgent({
    llm: rig.llm,
    search: rig.search,
    ...options,
    strategy: 'deep',
    deep: { mode: 'conversational', searchesPerQuestion: 3, ...options.deep },
  })

describe('deep: pipelining', () => {
  it("searches the sub-question as soon as next_question closes, and the extractor's follow-ups as each closes", async () => {
    // Each held piece is sent only once the search before it started: only pipelining gets there.
    const rig = deepRig((r) => ({
      planner: [['{"is_complete": false, "next_question": "What is A?"', { text: ', "reasoning": "needed"}', after: () => r.started('What is A?') }]],
      extractor: [
        [
          '{"answer": "A is x [1].", "confidence": 0.5, "facts": [], "need_more": true, "queries": ["A origin"',
          { text: ', "what is a?", "A size"]}', after: () => r.started('A origin') },
        ],
      ],
    }))
    const store = watchedStore(rig)
    const { events, result } = await collect(agent(rig), 'What is A?', { checkpoints: store })

    expect(rig.log.indexOf('search What is A?')).toBeLessThan(rig.log.indexOf('piece 0.1'))
    expect(rig.log.indexOf('search A origin')).toBeLessThan(rig.log.indexOf('piece 1.1'))
    expect(rig.log.indexOf('search A size')).toBeLessThan(rig.log.indexOf('end 1'))
    // The sub-question, searched first, is not searched again as a follow-up.
    expect(rig.searches()).toEqual(['What is A?', 'A origin', 'A size'])
    const plan = ofType(events, 'plan')[0]!
    expect(plan.queries).toEqual(['What is A?'])
    expect(events.findIndex((e) => e.type === 'query')).toBeLessThan(events.indexOf(plan))
    expect(ofType(events, 'result').every((r) => r.error === undefined)).toBe(true)
    expect(result).toMatchObject({ reason: 'answered', cost: { searches: 3 } })
    expect(store.inFlightAtSaves.length).toBeGreaterThan(0)
    expect(store.inFlightAtSaves.every((open) => open.length === 0)).toBe(true)
  })

  it('cancels what the parse drops: follow-ups of an answer that needs no more, the question of a complete plan', async () => {
    const rig = deepRig((r) => ({
      planner: [
        ['{"is_complete": false, "next_question": "What is A?", "reasoning": "needed"}'],
        ['{"next_question": "What is B?"', { text: ', "is_complete": true, "reasoning": "covered"}', after: () => r.started('What is B?') }],
      ],
      extractor: [
        ['{"answer": "A is x [1].", "confidence": 0.9, "queries": ["A origin"', { text: '], "need_more": false}', after: () => r.started('A origin') }],
      ],
    }))
    const { events, result } = await collect(agent(rig), 'What is A?')
    for (const query of ['A origin', 'What is B?']) {
      expect(rig.log).toContain(`aborted ${query}`)
      const announced = ofType(events, 'query').find((q) => q.query === query)!
      expect(ofType(events, 'result').find((r) => r.queryId === announced.queryId)).toMatchObject({ results: [], error: { code: 'aborted' } })
    }
    expect(result).toMatchObject({ reason: 'answered', answer: 'A is x [1].', cost: { searches: 1 } })
  })

  it('reads a planner that writes lines instead of JSON: the sub-question starts once its line ends', async () => {
    const rig = deepRig((r) => ({
      planner: [['Complete: no\n**Next question:** What is A?\n', { text: 'Reasoning: nothing is known yet.', after: () => r.started('What is A?') }]],
      extractor: [],
    }))
    const { result } = await collect(agent(rig), 'What is A?')
    expect(rig.log.indexOf('search What is A?')).toBeLessThan(rig.log.indexOf('piece 0.1'))
    expect(rig.searches()).toEqual(['What is A?'])
    expect(result).toMatchObject({ reason: 'answered', cost: { searches: 1 } })
  })

  it('with pipelining off, searches only once the reply that names the query has ended', async () => {
    const rig = deepRig(() => ({
      planner: [['{"is_complete": false, "next_question": "What is A?"', ', "reasoning": "needed"}']],
      extractor: [['{"answer": "A is x [1].", "need_more": true, "queries": ["A origin"', ']}']],
    }))
    const { result } = await collect(agent(rig, { pipelining: false }), 'What is A?')
    expect(rig.searches()).toEqual(['What is A?', 'A origin'])
    expect(rig.log.indexOf('search What is A?')).toBeGreaterThan(rig.log.indexOf('end 0'))
    expect(rig.log.indexOf('search A origin')).toBeGreaterThan(rig.log.indexOf('end 1'))
    expect(result.reason).toBe('answered')
  })

  it('does not search the sub-question put to the caller (review.plan) early; the later ones are', async () => {
    const rig = deepRig((r) => ({
      planner: [
        ['{"is_complete": false, "next_question": "What is A?"', ', "reasoning": "needed"}'],
        ['{"is_complete": false, "next_question": "What is B?"', { text: ', "reasoning": "needed"}', after: () => r.started('What is B?') }],
      ],
      extractor: [],
    }))
    const asked: string[][] = []
    const { result } = await collect(agent(rig), 'What are A and B?', {
      review: { plan: true },
      decide: async (plan) => {
        if (plan.kind === 'plan') asked.push(plan.queries)
        // Nothing of the plan may be searched before the caller has seen it.
        expect(rig.searches()).toEqual([])
        return { action: 'approve' }
      },
    })
    expect(asked).toEqual([['What is A?']])
    expect(rig.searches()).toEqual(['What is A?', 'What is B?'])
    // Calls: planner 0, extractor 1, planner 2.
    expect(rig.log.indexOf('search What is B?')).toBeLessThan(rig.log.indexOf('end 2'))
    expect(result.reason).toBe('answered')
  })
})
