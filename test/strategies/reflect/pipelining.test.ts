import { describe, expect, it } from 'vitest'
import { createAgent, memoryCheckpoints, type AgentOptions, type LLMRequest } from '../../../src/index.js'
import { gatedRig, watchedStore, type GatedRig, type Piece } from '../gated.js'
import { collect, ofType } from './helpers.js'
import { roleOf } from '../../support/roles.js'

type Script = { planner: readonly (string | Piece)[]; reflections: readonly (readonly (string | Piece)[])[] }

/** A rig whose planner and reflections stream as scripted; the finalizer answers at once. */
function reflectRig(script: (rig: GatedRig) => Script): GatedRig {
  let reflections = 0
  let built: Script | undefined
  const rig: GatedRig = gatedRig((req: LLMRequest) => {
    built ??= script(rig)
    if (roleOf(req.system) === 'reflect queries') return built.planner
    if (roleOf(req.system) === 'reflect reflection') return built.reflections[reflections++] ?? ['{"slots": {"score": "3-3 [1]"}, "need_more": false}']
    return ['It was 3-3 [1].']
  })
  return rig
}

const agent = (rig: GatedRig, options: Partial<AgentOptions> = {}) => createAgent({ llm: rig.llm, search: rig.search, strategy: 'reflect', ...options })

describe('reflect: pipelining', () => {
  it("searches the planner's queries and a reflection's gaps as each closes, before the reply ends", async () => {
    // Each held piece is sent only once the search before it started: only pipelining gets there.
    const rig = reflectRig((r) => ({
      planner: ['{"queries": ["alpha"', { text: ', "beta"', after: () => r.started('alpha') }, { text: ']}', after: () => r.started('beta') }],
      reflections: [
        ['{"slots": {"score": null}, "need_more": true, "new_queries": ["gamma"', { text: ', "Alpha", "delta"]}', after: () => r.started('gamma') }],
      ],
    }))
    const store = watchedStore(rig)
    const { events, result } = await collect(agent(rig), 'What was the score?', { checkpoints: store })

    expect(rig.log.indexOf('search alpha')).toBeLessThan(rig.log.indexOf('piece 0.1'))
    expect(rig.log.indexOf('search beta')).toBeLessThan(rig.log.indexOf('end 0'))
    expect(rig.log.indexOf('search gamma')).toBeLessThan(rig.log.indexOf('piece 1.1'))
    expect(rig.log.indexOf('search delta')).toBeLessThan(rig.log.indexOf('end 1'))
    // Each query once: "Alpha" was searched in round 1, so the gap round skips it, early or not.
    expect(rig.searches()).toEqual(['alpha', 'beta', 'gamma', 'delta'])
    const plans = ofType(events, 'plan')
    expect(plans.map((p) => p.queries)).toEqual([['alpha', 'beta'], ['gamma', 'delta'], undefined])
    const firstQuery = events.findIndex((e) => e.type === 'query')
    expect(firstQuery).toBeLessThan(events.indexOf(plans[0]!))
    expect(ofType(events, 'result').every((r) => r.error === undefined)).toBe(true)
    expect(result).toMatchObject({ reason: 'answered', cost: { searches: 4 } })
    // A checkpoint comes after a round's searches: none is in flight when it is saved.
    expect(store.inFlightAtSaves.length).toBeGreaterThan(0)
    expect(store.inFlightAtSaves.every((open) => open.length === 0)).toBe(true)
  })

  it('cancels the gaps of a reflection that needs no more: each still gets its result, aborted', async () => {
    const rig = reflectRig((r) => ({
      planner: ['{"queries": ["alpha"]}'],
      reflections: [['{"slots": {"score": "3-3 [1]"}, "new_queries": ["gamma"', { text: '], "need_more": false}', after: () => r.started('gamma') }]],
    }))
    const { events, result } = await collect(agent(rig), 'What was the score?')
    expect(rig.log).toContain('aborted gamma')
    const gamma = ofType(events, 'query').find((q) => q.query === 'gamma')!
    expect(ofType(events, 'result').find((r) => r.queryId === gamma.queryId)).toMatchObject({ results: [], error: { code: 'aborted' } })
    expect(ofType(events, 'plan').at(-1)!.queries).toBeUndefined()
    expect(result).toMatchObject({ reason: 'answered', answer: 'It was 3-3 [1].', cost: { searches: 1 } })
  })

  it("starts nothing while the last round's reflection streams: its gaps would never be searched", async () => {
    const rig = reflectRig(() => ({
      planner: ['{"queries": ["alpha"]}'],
      reflections: [['{"slots": {"score": null}, "need_more": true, "new_queries": ["gamma"]}']],
    }))
    const { result } = await collect(agent(rig, { reflect: { maxSteps: 1 } }), 'What was the score?')
    expect(rig.searches()).toEqual(['alpha'])
    expect(result.reason).toBe('max-iterations')
  })

  it('with pipelining off, searches each round only once its reply has ended', async () => {
    const rig = reflectRig(() => ({
      planner: ['{"queries": ["alpha"', ', "beta"]}'],
      reflections: [['{"slots": {"score": null}, "need_more": true, "new_queries": ["gamma"', ', "delta"]}']],
    }))
    const { result } = await collect(agent(rig, { pipelining: false }), 'What was the score?')
    expect(rig.searches()).toEqual(['alpha', 'beta', 'gamma', 'delta'])
    for (const query of ['alpha', 'beta']) expect(rig.log.indexOf(`search ${query}`)).toBeGreaterThan(rig.log.indexOf('end 0'))
    for (const query of ['gamma', 'delta']) expect(rig.log.indexOf(`search ${query}`)).toBeGreaterThan(rig.log.indexOf('end 1'))
    expect(result.reason).toBe('answered')
  })

  it('does not search a plan put to the caller (review.plan) early; the gap rounds still are', async () => {
    const rig = reflectRig((r) => ({
      planner: ['{"queries": ["alpha"', ', "beta"]}'],
      reflections: [['{"slots": {"score": null}, "need_more": true, "new_queries": ["gamma"', { text: ']}', after: () => r.started('gamma') }]],
    }))
    const approved: string[][] = []
    const { result } = await collect(agent(rig), 'What was the score?', {
      review: { plan: true },
      decide: async (plan) => {
        if (plan.kind === 'plan') approved.push(plan.queries)
        // Nothing of the plan may be searched before the caller has seen it.
        expect(rig.searches()).toEqual([])
        return { action: 'edit', queries: ['beta'] }
      },
    })
    expect(approved).toEqual([['alpha', 'beta']])
    expect(rig.searches()).toEqual(['beta', 'gamma'])
    expect(rig.log.indexOf('search gamma')).toBeLessThan(rig.log.indexOf('end 1'))
    expect(result.reason).toBe('answered')
  })

  it('resumes a checkpoint saved before its round searched (the earlier place of the first checkpoint)', async () => {
    const rig = reflectRig(() => ({ planner: ['{"queries": ["alpha", "beta"]}'], reflections: [] }))
    const store = memoryCheckpoints()
    const paused = agent(rig).research('What was the score?', { checkpoints: store, review: { plan: true } })
    for await (const _ of paused);
    const saved = (await store.load(paused.runId))!
    // The state as it was once saved right after planning: round 1's queries still to search.
    const { pendingPlan: _pending, ...state } = saved.state as { pendingPlan: string[] }
    await store.save({ ...saved, status: 'running', state: { ...state, queries: ['alpha', 'beta'] } })

    const resumed = agent(rig).resume(paused.runId, { checkpoints: store })
    for await (const _ of resumed);
    expect(rig.searches()).toEqual(['alpha', 'beta'])
    expect(await resumed.result).toMatchObject({ reason: 'answered', answer: 'It was 3-3 [1].', cost: { searches: 2 } })
  })
})
