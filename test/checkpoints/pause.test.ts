/** Plan review for every built-in strategy: `review.plan` pauses (resume with a decision), or `decide` answers in process. */
import { describe, expect, it } from 'vitest'
import { type CheckpointStore, memoryCheckpoints, type InterruptRequest, type ResearchEvent, type ResearchRun } from '../../src/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { STRATEGIES, world } from './world.js'

/** A value a checkpoint's state holds. */
type JsonValue = NonNullable<Awaited<ReturnType<CheckpointStore['load']>>>['state']

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
  it('review.plan without decide ends the run paused before any search; resume runs the edited queries', async () => {
    const store = memoryCheckpoints()
    const first = world(strategy, SEED, OPTIONS)
    const run = first.agent.research(QUESTION, { checkpoints: store, review: { plan: true } })
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
    const run = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, review: { plan: true } })
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
    const run = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, review: { plan: true } })
    const paused = await read(run)
    const proposed = (paused.filter((e) => e.type === 'plan').at(-1) as { queries: string[] }).queries
    const second = world(strategy, SEED, OPTIONS)
    await second.agent.resume(run.runId, { checkpoints: store }).result
    expectSearchedFirst(second.search.calls, proposed)
    const again = world(strategy, SEED, OPTIONS)
    const other = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, review: { plan: true } })
    await other.result
    await again.agent.resume(other.runId, { checkpoints: store, decision: { action: 'approve' } }).result
    expectSearchedFirst(again.search.calls, proposed)
  })

  it("a checkpoint whose state does not fit the strategy's schema is a ends the run in a config error naming the field; nothing runs, the checkpoint stays", async () => {
    const store = memoryCheckpoints()
    const run = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: store, review: { plan: true } })
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

  it('decide answers the plan in process: approve, edit, reject and pause, asked once per run and only when review.plan is on', async () => {
    const proposed = (await read(world(strategy, SEED, OPTIONS).agent.research(QUESTION, { checkpoints: memoryCheckpoints(), review: { plan: true } })))
      .filter((e) => e.type === 'plan')
      .map((e) => (e as { queries: string[] }).queries)[0]!
    const asked: InterruptRequest[] = []
    const edit = world(strategy, SEED, OPTIONS)
    const result = await edit.agent.answer(QUESTION, {
      review: { plan: true },
      decide: (request) => {
        asked.push(request)
        return { action: 'edit', queries: EDITED }
      },
    })
    expect(asked).toEqual([expect.objectContaining({ kind: 'plan', queries: proposed })])
    expectSearchedFirst(edit.search.calls, EDITED)
    expect(['answered', 'max-iterations']).toContain(result.reason)

    const approve = world(strategy, SEED, OPTIONS)
    await approve.agent.answer(QUESTION, { review: { plan: true }, decide: () => ({ action: 'approve' }) })
    expectSearchedFirst(approve.search.calls, proposed)

    // Off, `decide` is never asked about the plan.
    const off = world(strategy, SEED, OPTIONS)
    let offAsked = 0
    await off.agent.answer(QUESTION, {
      decide: () => {
        offAsked++
        return { action: 'reject' }
      },
    })
    expect(offAsked).toBe(0)
    expect(off.search.calls.length).toBeGreaterThan(0)

    const reject = world(strategy, SEED, OPTIONS)
    const rejected = reject.agent.research(QUESTION, { review: { plan: true }, decide: () => ({ action: 'reject', reason: 'off topic' }) })
    const rejectedEvents = await read(rejected)
    assertEventInvariants(rejectedEvents)
    expect(await rejected.result).toMatchObject({ reason: 'answered', answer: '' })
    expect(rejectedEvents.filter((e) => e.type === 'warning')).toEqual([
      expect.objectContaining({ code: 'plan-rejected', message: expect.stringContaining('off topic') }),
    ])
    expect(reject.search.calls).toEqual([])

    const store = memoryCheckpoints()
    const pause = world(strategy, SEED, OPTIONS)
    const paused = pause.agent.research(QUESTION, { checkpoints: store, review: { plan: true }, decide: async () => ({ action: 'pause' }) })
    expect(await paused.result).toMatchObject({ reason: 'paused', request: { kind: 'plan', queries: proposed } })
    expect(pause.search.calls).toEqual([])
    expect((await store.load(paused.runId))?.status).toBe('paused')
    const resumed = world(strategy, SEED, OPTIONS)
    await resumed.agent.resume(paused.runId, { checkpoints: store, decision: { action: 'edit', queries: EDITED } }).result
    expectSearchedFirst(resumed.search.calls, EDITED)
  })

  it("decide's answer is checked like a resume's decision: an edit that does not fit the plan is a config error", async () => {
    const run = world(strategy, SEED, OPTIONS).agent.research(QUESTION, { review: { plan: true }, decide: () => ({ action: 'edit', args: { q: 1 } }) })
    expect(await run.result).toMatchObject({ reason: 'error', error: { code: 'config', message: expect.stringContaining('edited with `queries`') } })
  })
})

it('review.plan without decide or a store is a config error, at once', () => {
  expect(() => world('scratchpad', SEED).agent.research(QUESTION, { review: { plan: true } })).toThrow(expect.objectContaining({ code: 'config' }))
})

it('the removed plan options are refused with a config error naming what replaced them', () => {
  const { agent } = world('scratchpad', SEED)
  expect(() => agent.research(QUESTION, { approvePlan: () => true } as never)).toThrow(
    expect.objectContaining({ code: 'config', message: expect.stringMatching(/`approvePlan` was replaced: use `decide` with `review: \{ plan: true \}`/) }),
  )
  expect(() => agent.research(QUESTION, { pauseAfterPlan: true, checkpoints: memoryCheckpoints() } as never)).toThrow(
    expect.objectContaining({ code: 'config', message: expect.stringContaining('`review: { plan: true }`') }),
  )
})
