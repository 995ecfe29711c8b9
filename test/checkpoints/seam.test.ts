/** The checkpoint seam with a strategy of our own: save, interrupt, resume, pause, lock, bad checkpoints. */
import { describe, expect, it } from 'vitest'
import {
  createAgent,
  memoryCheckpoints,
  type CheckpointStore,
  type InterruptDecision,
  type InterruptRequest,
  type ResearchEvent,
  type ResearchRun,
} from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'

/** Searches `steps` queries one per step, checkpointing after each, then answers with what it found. */
function counting(steps: number): Strategy {
  return {
    name: 'counting',
    async *run(question, ctx) {
      const saved = ctx.resumed?.state as { done: number; found: string[] } | undefined
      const found = saved ? [...saved.found] : []
      for (let i = saved?.done ?? 0; i < steps; i++) {
        const { results } = yield* ctx.runSearch(`${question} ${i}`)
        found.push(results[0]?.title ?? '-')
        yield { type: 'fact', fact: { id: ctx.newId('f'), text: `step ${i}: ${found.at(-1)}`, sources: [] } }
        yield* ctx.checkpoint({ done: i + 1, found })
      }
      const text = yield* ctx.streamAnswer('finalizer', { prompt: found.join(', ') })
      yield { type: 'answer', text, citations: [] }
      return { reason: 'answered' }
    },
  }
}

const world = () => ({
  llm: scriptedLLM({ replies: (req) => `answer from ${req.prompt}`, cost: 0.01 }),
  search: mockSearch({ results: (q) => [{ title: `T(${q})`, url: `https://x.example/${encodeURIComponent(q)}`, snippet: q }], searchCost: 0.1 }),
})

async function read(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return events
}

/** A store that aborts the run right after its k-th checkpoint is saved (a crash just after a step). */
function crashingAfter(store: CheckpointStore, k: number, crash: () => void): CheckpointStore {
  let saves = 0
  return {
    ...store,
    async save(checkpoint) {
      await store.save(checkpoint)
      if (checkpoint.status === 'running' && ++saves === k) crash()
    },
  }
}

describe('checkpoints through the runtime', () => {
  it('a run interrupted after a checkpoint resumes to the same result, with no finished call repeated', async () => {
    const whole = world()
    const reference = await createAgent({ ...whole, strategy: counting(4) }).answer('q')

    const store = memoryCheckpoints()
    const first = world()
    const agent = createAgent({ ...first, strategy: counting(4) })
    let run!: ResearchRun
    run = agent.research('q', { checkpoints: crashingAfter(store, 2, () => run.abort()) })
    const before = await read(run)
    expect(before.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    const saved = (await store.load(run.runId))!
    expect(saved).toMatchObject({ status: 'running', state: { done: 2 }, question: 'q', strategy: 'counting' })

    const second = world()
    const resumed = createAgent({ ...second, strategy: counting(4) }).resume(run.runId, { checkpoints: store })
    const after = await read(resumed)
    const result = await resumed.result
    expect(resumed.runId).toBe(run.runId)
    expect(after[0]).toMatchObject({ type: 'run-start', seq: saved.seq, resumed: { cost: saved.cost } })
    assertEventInvariants([...before.filter((e) => e.seq < saved.seq), ...after])

    expect(result.answer).toBe(reference.answer)
    expect(result.facts).toEqual(reference.facts)
    expect(result.cost).toEqual(reference.cost)
    expect([...first.search.calls, ...second.search.calls]).toEqual(whole.search.calls)
    expect(first.llm.calls.length + second.llm.calls.length).toBe(whole.llm.calls.length)
    expect((await store.load(run.runId))!.status).toBe('final')
  })

  it('resuming a finished run returns its result and calls nothing', async () => {
    const store = memoryCheckpoints()
    const first = world()
    const run = createAgent({ ...first, strategy: counting(2) }).research('q', { checkpoints: store })
    const done = await run.result
    const again = world()
    const resumed = createAgent({ ...again, strategy: counting(2) }).resume(run.runId, { checkpoints: store })
    const events = await read(resumed)
    assertEventInvariants(events)
    expect(events.map((e) => e.type)).toEqual(['run-start', 'run-end'])
    expect(await resumed.result).toEqual(done)
    expect(again.search.calls).toEqual([])
    expect(again.llm.calls).toEqual([])
  })

  const request: InterruptRequest = { kind: 'tool-call', callId: 'c1', name: 'pay', args: { amount: 5 } }
  const pausing: Strategy = {
    name: 'pausing',
    async *run(_question, ctx) {
      if (!ctx.resumed) {
        yield* ctx.checkpoint({ waiting: 'tool' })
        return { reason: 'paused', request }
      }
      expect(ctx.resumed).toMatchObject({ paused: true, state: { waiting: 'tool' }, request })
      const text = `decided: ${JSON.stringify(ctx.resumed.decision ?? null)}`
      yield { type: 'answer-token', text }
      yield { type: 'answer', text, citations: [] }
      return { reason: 'answered' }
    },
  }

  it('a strategy that returns paused ends the run paused with its request in run-end, the result and the checkpoint; a decision resumes it', async () => {
    const store = memoryCheckpoints()
    const agent = createAgent({ ...world(), strategy: pausing })
    const run = agent.research('q', { checkpoints: store })
    const paused = await read(run)
    expect(await run.result).toMatchObject({ reason: 'paused', request })
    expect(paused.at(-1)).toMatchObject({ type: 'run-end', reason: 'paused', request })
    expect(await store.load(run.runId)).toMatchObject({ status: 'paused', seq: paused.length, request })
    const resumed = agent.resume(run.runId, { checkpoints: store, decision: { action: 'edit', args: { amount: 3 } } })
    const rest = await read(resumed)
    assertEventInvariants([...paused, ...rest])
    expect(await resumed.result).toMatchObject({ answer: 'decided: {"action":"edit","args":{"amount":3}}' })
    expect((await resumed.result).request).toBeUndefined()
  })

  it('a decision that does not fit the request, or a run that waits for nothing, is a config error; the checkpoint stays', async () => {
    const store = memoryCheckpoints()
    const agent = createAgent({ ...world(), strategy: pausing })
    const run = agent.research('q', { checkpoints: store })
    await run.result
    const saved = await store.load(run.runId)
    for (const decision of [{ action: 'edit', queries: ['x'] }, { action: 'maybe' }, { action: 'reject', reason: 5 }, 'yes']) {
      const resumed = agent.resume(run.runId, { checkpoints: store, decision: decision as InterruptDecision })
      await expect(resumed.result).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('cannot take this decision') })
    }
    expect(await store.load(run.runId)).toEqual(saved)
    // Answered, the run waits for nothing: a decision for it is refused too.
    await agent.resume(run.runId, { checkpoints: store, decision: { action: 'approve' } }).result
    const done = agent.resume(run.runId, { checkpoints: store, decision: { action: 'approve' } })
    await expect(done.result).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('not paused') })
  })

  it('resume refuses the fields that came before `decision` (plan, approval), naming it', () => {
    const agent = createAgent({ ...world(), strategy: pausing })
    const store = memoryCheckpoints()
    for (const old of [{ plan: { queries: ['x'] } }, { approval: { approved: true } }]) {
      expect(() => agent.resume('r', { checkpoints: store, ...old } as never)).toThrow(
        expect.objectContaining({ code: 'config', message: expect.stringContaining('`decision`') }),
      )
    }
  })

  it('a strategy that pauses without a request ends the run in a config error', async () => {
    const mute: Strategy = {
      name: 'mute',
      // biome-ignore lint/correctness/useYield: a strategy with no events, only an outcome
      async *run() {
        return { reason: 'paused' } as never
      },
    }
    const result = await createAgent({ ...world(), strategy: mute }).answer('q', { checkpoints: memoryCheckpoints() })
    expect(result).toMatchObject({ reason: 'error', error: { code: 'config' } })
  })

  it('a run’s result settles only once its lock is given back, so it can be resumed at once', async () => {
    const inner = memoryCheckpoints()
    let openLock!: () => void
    const lockOpen = new Promise<void>((resolve) => (openLock = resolve))
    let releasing!: () => void
    const releaseAsked = new Promise<void>((resolve) => (releasing = resolve))
    // A store whose lock is given back only when the test says so.
    const store: CheckpointStore = {
      ...inner,
      async acquire(runId) {
        const release = await inner.acquire(runId)
        return (
          release &&
          (async () => {
            releasing()
            await lockOpen
            await release()
          })
        )
      },
    }
    const { llm, search } = world()
    const agent = createAgent({ llm, search, strategy: counting(1) })
    const run = agent.research('q', { checkpoints: store })
    let settled = false
    const result = run.result.then((r) => {
      settled = true
      return r
    })
    await releaseAsked
    // Every promise reaction queued so far has run by the next macrotask turn: none settled the result.
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(false)
    openLock()
    expect((await result).reason).toBe('answered')
    // Given back: a resume right away takes the lock (a finished run replays its result).
    expect((await agent.resume(run.runId, { checkpoints: store }).result).answer).toBe((await result).answer)
  })

  it('two resumes of one run at once: the second is refused, not run twice', async () => {
    const store = memoryCheckpoints()
    let run!: ResearchRun
    run = createAgent({ ...world(), strategy: counting(3) }).research('q', { checkpoints: crashingAfter(store, 1, () => run.abort()) })
    await run.result
    const w = world()
    const agent = createAgent({ ...w, strategy: counting(3) })
    const one = agent.resume(run.runId, { checkpoints: store })
    const two = agent.resume(run.runId, { checkpoints: store })
    const [a, b] = await Promise.allSettled([one.result, two.result])
    const outcomes = [a, b].map((o) => o.status).sort()
    expect(outcomes).toEqual(['fulfilled', 'rejected'])
    const refused = [a, b].find((o) => o.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toMatchObject({ name: 'LaconicError', code: 'locked' })
    expect(w.search.calls).toEqual(['q 1', 'q 2'])
  })

  it('a resume refused its lock, read by iterating only (its result never awaited), throws there and nowhere else', async () => {
    const store = memoryCheckpoints()
    const run = createAgent({ ...world(), strategy: counting(1) }).research('q', { checkpoints: store })
    await run.result
    const release = await store.acquire(run.runId)
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const events = createAgent({ ...world(), strategy: counting(1) })
        .resume(run.runId, { checkpoints: store })
        [Symbol.asyncIterator]()
      await expect(events.next()).rejects.toMatchObject({ code: 'locked' })
      // Unhandled rejections are reported before the next macrotask turn.
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('unhandledRejection', onUnhandled)
      await release?.()
    }
    expect(unhandled).toEqual([])
  })

  it('a corrupt, unknown-version or mismatched checkpoint is a config error, and the checkpoint is left as it was', async () => {
    const store = memoryCheckpoints()
    const run = createAgent({ ...world(), strategy: counting(1) }).research('q', { checkpoints: store })
    await run.result
    const good = (await store.load(run.runId))!
    const cases: [string, CheckpointStore, Record<string, unknown>, RegExp][] = [
      ['version', { ...store, load: async () => ({ ...good, version: 99 }) as never }, {}, /schema version 99/],
      ['strategy', store, { strategy: { ...counting(1), name: 'other' } }, /`counting` strategy/],
      ['options', store, { searchLimit: 9 }, /`searchLimit` differ/],
      ['missing', { ...store, load: async () => undefined }, {}, /no checkpoint/],
    ]
    for (const [, checkpoints, agentOptions, message] of cases) {
      const agent = createAgent({ ...world(), strategy: counting(1), ...agentOptions })
      await expect(agent.resume(run.runId, { checkpoints }).result).rejects.toMatchObject({ code: 'config', message: expect.stringMatching(message) })
    }
    await expect(
      createAgent({ ...world(), strategy: counting(1) }).resume(run.runId, { checkpoints: store, question: 'another' }).result,
    ).rejects.toMatchObject({
      code: 'config',
      message: expect.stringMatching(/question "q"/),
    })
    expect(await store.load(run.runId)).toEqual(good)
  })

  it('a resumed run’s budget counts what was spent before the checkpoint', async () => {
    // One search ($0.10) before the checkpoint; after it, the strategy asks whether the budget is spent.
    const spender: Strategy = {
      name: 'spender',
      async *run(question, ctx) {
        if (!ctx.resumed) {
          yield* ctx.runSearch(question)
          yield* ctx.checkpoint({ searched: true })
        }
        const text = ctx.budgetExhausted() ? 'over budget' : 'within budget'
        yield { type: 'answer-token', text }
        yield { type: 'answer', text, citations: [] }
        return { reason: 'answered' }
      },
    }
    const store = memoryCheckpoints()
    let run!: ResearchRun
    run = createAgent({ ...world(), strategy: spender, budget: { usd: 0.1 } }).research('q', { checkpoints: crashingAfter(store, 1, () => run.abort()) })
    expect((await run.result).reason).toBe('aborted')
    const resumed = await createAgent({ ...world(), strategy: spender, budget: { usd: 0.1 } }).resume(run.runId, { checkpoints: store }).result
    expect(resumed.cost.search).toBeCloseTo(0.1)
    expect(resumed.answer).toBe('over budget')
  })
})

describe('what a checkpoint copies', () => {
  /** Checkpoints a state that counts how often it is serialised, and one given as a function that counts its calls. */
  function copying(counts: { serialised: number; built: number }): Strategy {
    return {
      name: 'copying',
      async *run(_question, ctx) {
        for (let i = 0; i < 3; i++) {
          const serialised = () => {
            counts.serialised++
            return { step: i }
          }
          yield* ctx.checkpoint({ step: i, toJSON: serialised })
          yield* ctx.checkpoint(() => {
            counts.built++
            return { built: i }
          })
        }
        return { reason: 'answered' }
      },
    }
  }

  it('nothing without a store: the state is neither copied nor built (a long run copied its whole state at every step)', async () => {
    const counts = { serialised: 0, built: 0 }
    const events = await read(createAgent({ ...world(), strategy: copying(counts) }).research('q'))
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    expect(counts).toEqual({ serialised: 0, built: 0 })
  })

  it('with a store, every state as it was when checkpointed; one given as a function, what it returns', async () => {
    const counts = { serialised: 0, built: 0 }
    const store = memoryCheckpoints()
    const saved: unknown[] = []
    const recording: CheckpointStore = {
      ...store,
      async save(checkpoint) {
        if (checkpoint.status === 'running') saved.push(checkpoint.state)
        await store.save(checkpoint)
      },
    }
    await read(createAgent({ ...world(), strategy: copying(counts) }).research('q', { checkpoints: recording }))
    expect(counts).toEqual({ serialised: 3, built: 3 })
    expect(saved).toEqual([{ step: 0 }, { built: 0 }, { step: 1 }, { built: 1 }, { step: 2 }, { built: 2 }])
  })
})
