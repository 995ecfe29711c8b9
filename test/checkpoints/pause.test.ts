/** Pausing for plan approval: pauseAfterPlan + resume with edited queries, and the approvePlan hook, for every built-in strategy. */
import { describe, expect, it } from 'vitest'
import { memoryCheckpoints, type JsonValue, type PlanProposal, type ResearchEvent, type ResearchRun } from '../../src/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { STRATEGIES, world } from './world.js'

async function read(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return events
}

const QUESTION = 'What happened to alpha?'

/** The run's first search is the plan's first query, and every query of the plan is searched, in order. */
function expectSearchedFirst(calls: readonly string[], queries: readonly string[]): void {
  expect(calls[0]).toBe(queries[0])
  expect(calls.filter((q) => queries.includes(q))).toEqual(queries)
}
const EDITED = ['edited first query', 'edited second query']

/** A seed whose planner proposes a search first (scratchpad's may answer at once). */
const SEED = 7
/** graph-reader explores its first nodes together, so an early answer cannot drop one. */
const OPTIONS = { graphReader: { concurrency: 2, maxSteps: 5, maxPagesPerNode: 1 } }

describe.each(STRATEGIES)('%s', (strategy) => {
  it('pauseAfterPlan ends the run paused before any search; resume runs the edited queries', async () => {
    const store = memoryCheckpoints()
    const first = world(strategy, SEED, OPTIONS)
    const run = first.agent.research(QUESTION, { checkpoints: store, pauseAfterPlan: true })
    const paused = await read(run)
    const result = await run.result
    expect(result.reason).toBe('paused')
    expect(result.answer).toBe('')
    expect(first.search.calls).toEqual([])
    const plan = paused.filter((e) => e.type === 'plan').at(-1)
    expect(plan?.type === 'plan' && plan.queries?.length).toBeGreaterThan(0)
    // The run waits for a decision on its plan: the request names it, in run-end, the result and the checkpoint.
    const request = { kind: 'plan', text: plan?.type === 'plan' && plan.text, queries: plan?.type === 'plan' && plan.queries }
    expect(result.request).toMatchObject(request)
    expect(paused.at(-1)).toMatchObject({ type: 'run-end', reason: 'paused', request })
    expect(await store.load(run.runId)).toMatchObject({ status: 'paused', seq: paused.length, request })

    const second = world(strategy, SEED, OPTIONS)
    const resumed = second.agent.resume(run.runId, { checkpoints: store, decision: { action: 'edit', queries: EDITED } })
    const rest = await read(resumed)
    assertEventInvariants([...paused, ...rest])
    expect(rest.find((e) => e.type === 'plan')).toMatchObject({ queries: EDITED })
    // The edited queries are the ones searched, first (scratchpad and deep take them one per step).
    expectSearchedFirst(second.search.calls, EDITED)
    expect(['answered', 'max-iterations']).toContain((await resumed.result).reason)
    // The planner call made before the pause is not made again.
    const plannerPrompts = (calls: string[]) => calls.filter((c) => c.startsWith('llm:'))
    expect(plannerPrompts(second.calls())).not.toContain(plannerPrompts(first.calls())[0])
  })

  it('rejecting the plan ends the run answered with nothing searched, the reason in a warning', async () => {
    const store = memoryCheckpoints()
    const run = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, pauseAfterPlan: true })
    const paused = await read(run)
    const second = world(strategy, SEED, OPTIONS)
    const resumed = second.agent.resume(run.runId, { checkpoints: store, decision: { action: 'reject', reason: 'too broad' } })
    const rest = await read(resumed)
    assertEventInvariants([...paused, ...rest])
    expect(await resumed.result).toMatchObject({ reason: 'answered', answer: '' })
    expect(rest.filter((e) => e.type === 'warning')).toEqual([
      expect.objectContaining({ code: 'plan-rejected', message: expect.stringContaining('too broad') }),
    ])
    expect(second.search.calls).toEqual([])
    expect(second.calls()).toEqual([])
    // The run is over: resumed again, it ends as it ended.
    expect((await store.load(run.runId))?.status).toBe('final')
  })

  it('resuming a paused run without a decision (or approving it) runs the saved plan', async () => {
    const store = memoryCheckpoints()
    const run = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, pauseAfterPlan: true })
    const paused = await read(run)
    const proposed = (paused.filter((e) => e.type === 'plan').at(-1) as { queries: string[] }).queries
    const second = world(strategy, SEED, OPTIONS)
    await second.agent.resume(run.runId, { checkpoints: store }).result
    expectSearchedFirst(second.search.calls, proposed)
    const again = world(strategy, SEED, OPTIONS)
    const other = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, pauseAfterPlan: true })
    await other.result
    await again.agent.resume(other.runId, { checkpoints: store, decision: { action: 'approve' } }).result
    expectSearchedFirst(again.search.calls, proposed)
  })

  it("a checkpoint whose state does not fit the strategy's schema is a ends the run in a config error naming the field; nothing runs, the checkpoint stays", async () => {
    const store = memoryCheckpoints()
    const run = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, pauseAfterPlan: true })
    await run.result
    const saved = await store.load(run.runId)
    const state = saved!.state as Record<string, JsonValue>
    // The first required field of each state, made the wrong type.
    const field = Object.keys(state).find((key) => key !== 'pendingPlan')!
    const corrupt = { ...saved!, state: { ...state, [field]: 'not what was saved' } }
    await store.save(corrupt)
    const second = world(strategy, SEED, OPTIONS)
    const resumed = second.agent.resume(run.runId, { checkpoints: store })
    expect(await resumed.result).toMatchObject({
      reason: 'error',
      error: { code: 'config', message: expect.stringContaining(`state is malformed (/${field}: `) },
    })
    expect(second.calls()).toEqual([])
    expect(await store.load(run.runId)).toEqual(corrupt)
  })

  it('approvePlan: edited queries are searched, false pauses, and it is asked once', async () => {
    const asked: PlanProposal[] = []
    const edit = world(strategy, SEED, OPTIONS)
    const result = await edit.agent.answer(QUESTION, {
      approvePlan: (plan) => {
        asked.push(plan)
        return EDITED
      },
    })
    expect(asked).toHaveLength(1)
    expect(asked[0]!.queries.length).toBeGreaterThan(0)
    expectSearchedFirst(edit.search.calls, EDITED)
    expect(['answered', 'max-iterations']).toContain(result.reason)

    const store = memoryCheckpoints()
    const refuse = world(strategy, SEED, OPTIONS)
    const refused = refuse.agent.research(QUESTION, { checkpoints: store, approvePlan: async () => false })
    expect((await refused.result).reason).toBe('paused')
    expect(refuse.search.calls).toEqual([])
    expect((await store.load(refused.runId))?.status).toBe('paused')
  })
})

it('pauseAfterPlan without a store is a config error, at once', () => {
  expect(() => world('scratchpad', SEED).agent.research(QUESTION, { pauseAfterPlan: true })).toThrow(expect.objectContaining({ code: 'config' }))
})
