/**
 * The resume property, for every built-in strategy: a run interrupted right after its k-th
 * checkpoint and resumed (in a fresh world, as after a crash) ends exactly as the uninterrupted
 * run did (answer, citations, facts, report, cost), no call that finished is made again, and
 * the events up to the checkpoint joined with the resumed run's pass the invariants.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryCheckpoints, type CheckpointStore, type ResearchEvent, type ResearchRun } from '../../src/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { STRATEGIES, world } from './world.js'

async function read(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return events
}

/** Counts the running checkpoints saved; calls `crash` right after the k-th. */
function counting(store: CheckpointStore, k = Infinity, crash: () => void = () => undefined): CheckpointStore & { saves: () => number } {
  let saves = 0
  return {
    ...store,
    saves: () => saves,
    async save(checkpoint) {
      await store.save(checkpoint)
      if (checkpoint.status === 'running' && ++saves === k) crash()
    },
  }
}

const QUESTION = 'What happened to alpha?'

describe.each(STRATEGIES)('%s: interrupt after the k-th checkpoint, then resume', (strategy) => {
  it('gives the uninterrupted result, with no finished call repeated', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.nat(), async (seed, pick) => {
        const whole = world(strategy, seed)
        const reference = counting(memoryCheckpoints())
        const referenceRun = whole.agent.research(QUESTION, { checkpoints: reference })
        assertEventInvariants(await read(referenceRun))
        const expected = await referenceRun.result
        if (reference.saves() === 0) return
        const k = 1 + (pick % reference.saves())

        const store = memoryCheckpoints()
        const first = world(strategy, seed)
        let run!: ResearchRun
        run = first.agent.research(QUESTION, { checkpoints: counting(store, k, () => run.abort()) })
        const before = await read(run)
        expect((await run.result).reason).toBe('aborted')
        const checkpoint = (await store.load(run.runId))!
        expect(checkpoint.status).toBe('running')

        const second = world(strategy, seed)
        const resumed = second.agent.resume(run.runId, { checkpoints: store })
        const after = await read(resumed)
        const result = await resumed.result

        assertEventInvariants([...before.filter((e) => e.seq < checkpoint.seq), ...after])
        const { answer, citations, facts, cost, reason, report, knowledge } = result
        expect({ answer, citations, facts, cost, reason, report, knowledge }).toEqual({
          answer: expected.answer,
          citations: expected.citations,
          facts: expected.facts,
          cost: expected.cost,
          reason: expected.reason,
          report: expected.report,
          knowledge: expected.knowledge,
        })
        expect([...first.calls(), ...second.calls()]).toEqual(whole.calls())
      }),
      { numRuns: 15 },
    )
  })
})
