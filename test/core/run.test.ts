import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, registerStrategy, type EventOf, type ResearchEvent, type ResearchRun } from '../../src/index.js'
import { defineStrategy, type Strategy, type StrategyEvent } from '../../src/strategy.js'
import { createMerge } from '../../src/strategy.js'
import { assertEventInvariants, mockSearch, scriptedLLM, searchFailure } from '../../src/testing/index.js'

async function collect(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

const corpus = [
  { title: 'Rayleigh scattering', url: 'https://physics.example/rayleigh', snippet: 'Short blue wavelengths scatter more: why the sky is blue.' },
  { title: 'Sunsets', url: 'https://physics.example/sunset', snippet: 'At sunset light crosses more air, so the sky turns red.' },
]

describe('the run runtime', () => {
  it('keeps every invariant and ends, for arbitrary planner, synthesizer and search behaviour', async () => {
    const reply = fc.oneof(
      fc.constant('Action: Answer'),
      fc.string({ maxLength: 40 }).map((q) => `Action: Search\nQuery: ${q}`),
      fc.string({ maxLength: 80 }),
      fc.constant('<think>hmm</think>Action: Search\nQuery: sky'),
      fc.constant(''),
    )
    const searchBehaviour = fc.constantFrom('results', 'empty', 'fail')
    await fc.assert(
      fc.asyncProperty(
        fc.array(reply, { minLength: 1, maxLength: 8 }),
        fc.array(fc.string({ maxLength: 60 }), { minLength: 1, maxLength: 8 }),
        fc.array(searchBehaviour, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 4 }),
        async (plannerReplies, synthReplies, searchModes, maxIterations) => {
          const planner = scriptedLLM({ replies: (_req, i) => plannerReplies[i % plannerReplies.length]!, cost: 0.001 })
          const synthesizer = scriptedLLM({ replies: (_req, i) => synthReplies[i % synthReplies.length]!, cost: 0.002 })
          const search = mockSearch({
            results: (_q, i) => (searchModes[i % searchModes.length] === 'results' ? corpus : []),
            fail: (_q, i) => (searchModes[i % searchModes.length] === 'fail' ? searchFailure() : undefined),
            searchCost: 0.005,
          })
          const run = createAgent({ models: { planner, synthesizer }, search, scratchpad: { maxSteps: maxIterations } }).research('Why is the sky blue?')
          const events = await collect(run)
          const end = events.at(-1)!
          expect(end.type).toBe('run-end')
          const result = await run.result
          // An error only when every search failed: there was nothing to answer from.
          if (result.reason === 'error') expect(result.error?.code).toBe('search')
          else expect(['answered', 'max-iterations']).toContain(result.reason)
          if (end.type === 'run-end') expect(end.cost).toEqual(result.cost)
          expect(search.calls.length).toBeLessThanOrEqual(maxIterations)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('aborts the in-flight search when the consumer breaks after the first query', async () => {
    const search = mockSearch({ corpus, delayMs: 10_000 })
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: sky blue'] })
    const run = createAgent({ llm: planner, search }).research('Why is the sky blue?')
    for await (const event of run) if (event.type === 'query') break
    expect(search.signals).toHaveLength(1)
    expect(search.signals[0]?.aborted).toBe(true)
    const result = await run.result
    expect(result.reason).toBe('aborted')
    expect(result.cost.llmCalls).toBe(1)
  })

  it('ends with run-end aborted for a reader still reading when run.abort() is called', async () => {
    const search = mockSearch({ corpus, delayMs: 10_000 })
    const run = createAgent({ llm: scriptedLLM({ replies: ['Action: Search\nQuery: sky'] }), search }).research('Why is the sky blue?')
    const events: ResearchEvent[] = []
    for await (const event of run) {
      events.push(event)
      if (event.type === 'query') run.abort()
    }
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    expect(search.signals[0]?.aborted).toBe(true)
  })

  it('aborts through the caller signal, even when a provider ignores it', async () => {
    const hanging = { search: () => new Promise<never>(() => undefined) }
    const controller = new AbortController()
    const run = createAgent({ llm: scriptedLLM({ replies: ['Action: Search\nQuery: sky'] }), search: hanging }).research('q?', {
      signal: controller.signal,
    })
    const events: ResearchEvent[] = []
    for await (const event of run) {
      events.push(event)
      if (event.type === 'query') controller.abort()
    }
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
  })

  it("totals laconic's cost scenario to 0.045 and keeps the total when the run fails later", async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: sky', 'Action: Answer'], cost: 0.01 })
    const synthesizer = scriptedLLM({ replies: ['Blue light scatters most.'], cost: 0.01 })
    const finalizer = scriptedLLM({ replies: ['The sky is blue because blue light scatters most.'], cost: 0.01 })
    const search = mockSearch({ corpus, searchCost: 0.005 })
    const result = await createAgent({ models: { planner, synthesizer, finalizer }, search }).answer('Why is the sky blue?')
    expect(result.reason).toBe('answered')
    expect(result.cost.total).toBeCloseTo(0.045, 10)
    expect(result.cost).toMatchObject({ llmCalls: 4, searches: 1 })

    const failingFinalizer = scriptedLLM({ replies: [{ text: 'The sky', error: new Error('connection reset') }] })
    const planner2 = scriptedLLM({ replies: ['Action: Search\nQuery: sky', 'Action: Answer'], cost: 0.01 })
    const synthesizer2 = scriptedLLM({ replies: ['Blue light scatters most.'], cost: 0.01 })
    const run = createAgent({ models: { planner: planner2, synthesizer: synthesizer2, finalizer: failingFinalizer }, search }).research('Why is the sky blue?')
    const events = await collect(run)
    const failed = await run.result
    expect(failed.reason).toBe('error')
    expect(failed.error?.message).toContain('connection reset')
    expect(failed.cost.total).toBeCloseTo(0.035, 10)
    expect(failed.answer).toBe('The sky')
    expect(failed.knowledge).toBe('Blue light scatters most.')
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'error', answer: 'The sky' })
  })

  it('turns a provider-less cost into dollars through the pricing table', async () => {
    const llm = scriptedLLM({ model: 'small', replies: [{ text: 'Action: Answer', usage: { inputTokens: 1_000_000, outputTokens: 0 } }, 'ok'] })
    const result = await createAgent({ llm, search: mockSearch({ corpus }), pricing: { small: { inputPerMillion: 0.5, outputPerMillion: 2 } } }).answer('q?', {
      knowledge: 'known',
    })
    expect(result.cost.llm).toBeGreaterThanOrEqual(0.5)
  })

  it('answers from prior knowledge without searching', async () => {
    const search = mockSearch({ corpus })
    const llm = scriptedLLM({ replies: ['Action: Answer', 'Paris is the capital of France.'] })
    const run = createAgent({ llm, search }).research('What is the capital of France?', { knowledge: 'Paris is the capital of France.' })
    const events = await collect(run)
    expect(search.calls).toEqual([])
    expect(events.some((e) => e.type === 'query')).toBe(false)
    expect((await run.result).answer).toBe('Paris is the capital of France.')
    expect((await run.result).knowledge).toBe('Paris is the capital of France.')
  })

  it('forces a search when the planner wants to answer with empty knowledge', async () => {
    const search = mockSearch({ corpus })
    const planner = scriptedLLM({ replies: ['Action: Answer', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Blue light scatters.', 'Because blue light scatters.'] })
    const run = createAgent({ models: { planner, synthesizer }, search }).research('Why is the sky blue?')
    const events = await collect(run)
    expect(search.calls).toEqual(['Why is the sky blue?'])
    expect(events.some((e) => e.type === 'warning' && e.code === 'forced-search')).toBe(true)
    expect((await run.result).reason).toBe('answered')
  })

  it('finalizes a best-effort answer at the iteration cap', async () => {
    const planner = scriptedLLM({ replies: (_r, i) => `Action: Search\nQuery: query number ${i}` })
    const synthesizer = scriptedLLM({ replies: (req) => (req.prompt.includes('Research notes') ? 'Best effort.' : 'Some notes.') })
    const search = mockSearch({ corpus: [{ title: 'query number', url: 'https://x.example', snippet: 'query number result' }] })
    const run = createAgent({ models: { planner, synthesizer }, search, scratchpad: { maxSteps: 3 } }).research('Hard question?')
    const events = await collect(run)
    expect(search.calls).toHaveLength(3)
    const result = await run.result
    expect(result.reason).toBe('max-iterations')
    expect(result.answer).toBe('Best effort.')
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'max-iterations' })
    expect(synthesizer.calls.at(-1)?.prompt).toContain('research budget ran out')
  })

  it('keeps going after a search provider throws, with a warning', async () => {
    const search = mockSearch({ corpus, fail: (_q, i) => (i === 0 ? searchFailure('backend down') : undefined) })
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: first', 'Action: Search\nQuery: sky blue', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Blue light scatters.', 'Answer.'] })
    const run = createAgent({ models: { planner, synthesizer }, search }).research('Why is the sky blue?')
    const events = await collect(run)
    const warning = events.find((e) => e.type === 'warning')
    expect(warning).toMatchObject({ type: 'warning' })
    expect(warning && 'message' in warning ? warning.message : '').toContain('backend down')
    expect(search.calls).toEqual(['first', 'sky blue'])
    expect((await run.result).reason).toBe('answered')
  })

  it('keeps the knowledge under its cap and the planner prompt flat over many iterations', async () => {
    const budget = 400
    const planner = scriptedLLM({ replies: (_r, i) => `Action: Search\nQuery: topic ${i}` })
    const synthesizer = scriptedLLM({ replies: (req) => `${'A long sentence about the topic. '.repeat(50)}${req.prompt.length}` })
    const search = mockSearch({ results: () => corpus })
    const run = createAgent({ models: { planner, synthesizer }, search, scratchpad: { maxSteps: 20, knowledgeChars: budget } }).research('q?')
    const events = await collect(run)
    const updates = events.filter((e) => e.type === 'knowledge-update')
    expect(updates).toHaveLength(20)
    for (const u of updates) if (u.type === 'knowledge-update') expect(u.knowledge.length).toBeLessThanOrEqual(budget)
    const sizes = planner.calls.slice(1).map((c) => c.prompt.length)
    expect(Math.max(...sizes) / Math.min(...sizes)).toBeLessThan(1.3)
  })

  it('ends with run-end error when a strategy throws, keeping what it gathered', async () => {
    const broken: Strategy = {
      name: 'broken',
      async *run() {
        yield { type: 'knowledge-update', knowledge: 'partial', iteration: 1 }
        throw new Error('strategy bug')
      },
    }
    const run = createAgent({ llm: scriptedLLM({ replies: [] }), strategy: broken }).research('q?')
    const events = await collect(run)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'error', error: { message: 'strategy bug', code: 'error' } })
    expect((await run.result).knowledge).toBe('partial')
  })

  it('aborts every request still in flight before run-end when a branch throws, and counts no cost after it', async () => {
    let searchSignal: AbortSignal | undefined
    let searchStarted!: () => void
    const started = new Promise<void>((resolve) => (searchStarted = resolve))
    // A 60 s search that stops only when its signal aborts.
    const slow = {
      searchCost: 1,
      search: (_q: string, opts?: { signal?: AbortSignal }) =>
        new Promise<never>((_resolve, reject) => {
          searchSignal = opts?.signal
          const timer = setTimeout(() => reject(new Error('the 60 s search ran to its end')), 60_000)
          opts?.signal?.addEventListener('abort', () => {
            clearTimeout(timer)
            reject(opts.signal?.reason)
          })
          searchStarted()
        }),
    }
    const twoBranches: Strategy = {
      name: 'two-branches',
      async *run(_question, ctx) {
        const merge = createMerge<StrategyEvent>()
        merge.add(ctx.runSearch('slow search'))
        merge.add(
          // biome-ignore lint/correctness/useYield: a branch that fails before its first event
          (async function* (): AsyncGenerator<StrategyEvent> {
            await started
            throw new Error('branch bug')
          })(),
        )
        yield* merge
      },
    }
    const run = createAgent({ llm: scriptedLLM({ replies: [] }), search: slow, strategy: twoBranches }).research('q?')
    const events: ResearchEvent[] = []
    let abortedAtEnd: boolean | undefined
    for await (const event of run) {
      events.push(event)
      if (event.type === 'run-end') abortedAtEnd = searchSignal?.aborted
    }
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'error', error: { message: 'branch bug' } })
    expect(abortedAtEnd).toBe(true)
    const result = await run.result
    expect(result.cost.searches).toBe(0)
    expect(result.cost).toEqual((events.at(-1) as EventOf<'run-end'>).cost)
  })

  it('aborts the work left in flight when a strategy ends at its iteration cap', async () => {
    let searchSignal: AbortSignal | undefined
    const capped: Strategy = {
      name: 'capped',
      async *run(_question, ctx) {
        // Starts a search and leaves it running: the strategy returns without waiting for it.
        const pending = ctx.runSearch('left running')
        yield (await pending.next()).value as StrategyEvent
        return { reason: 'max-iterations' }
      },
    }
    const search = {
      search: (_q: string, opts?: { signal?: AbortSignal }) => {
        searchSignal = opts?.signal
        return new Promise<never>(() => undefined)
      },
    }
    const events = await collect(createAgent({ llm: scriptedLLM({ replies: [] }), search, strategy: capped }).research('q?'))
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'max-iterations' })
    expect(searchSignal?.aborted).toBe(true)
  })

  it('starts lazily, runs to the end when only the result is awaited, and reads only once', async () => {
    const llm = scriptedLLM({ replies: ['Action: Answer', 'Fine.'] })
    const run = createAgent({ llm, search: mockSearch({ corpus }) }).research('q?', { knowledge: 'k' })
    await new Promise((r) => setImmediate(r))
    expect(llm.calls).toHaveLength(0)
    const result = await run.result
    expect(result.answer).toBe('Fine.')
    // The result read the run; the first reader after it gets every event, the run not started again.
    const events = await collect(run)
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['run-start', 'answer', 'run-end']))
    expect(events.at(-1)).toMatchObject({ type: 'run-end', answer: 'Fine.' })
    assertEventInvariants(events)
    expect(llm.calls).toHaveLength(2)
    expect(() => run[Symbol.asyncIterator]()).toThrow(/read only once/)
  })

  it('gives a real Promise as run.result: native then works on it, and Promise.all starts the run', async () => {
    const llm = scriptedLLM({ replies: ['Action: Answer', 'Fine.'] })
    const run = createAgent({ llm, search: mockSearch({ corpus }) }).research('q?', { knowledge: 'k' })
    expect(run.result).toBeInstanceOf(Promise)
    // The native then only waits: it does not start the run.
    let seen: string | undefined
    const waited = Promise.prototype.then.call(run.result, (r: { answer: string }) => (seen = r.answer))
    await new Promise((r) => setImmediate(r))
    expect(llm.calls).toHaveLength(0)
    const [result] = await Promise.all([run.result])
    expect(result.answer).toBe('Fine.')
    await waited
    expect(seen).toBe('Fine.')
    expect(Object.getPrototypeOf(run.result.then(() => 1))).toBe(Promise.prototype)
  })

  it('starts the run on catch and finally too', async () => {
    for (const subscribe of [(p: Promise<unknown>) => p.catch(() => undefined), (p: Promise<unknown>) => p.finally(() => undefined)]) {
      const llm = scriptedLLM({ replies: ['Action: Answer', 'Fine.'] })
      const run = createAgent({ llm, search: mockSearch({ corpus }) }).research('q?', { knowledge: 'k' })
      await subscribe(run.result)
      expect(llm.calls).toHaveLength(2)
    }
  })

  it('streams the run as a ReadableStream', async () => {
    const llm = scriptedLLM({ replies: ['Action: Answer', 'Streamed answer.'] })
    const stream = createAgent({ llm, search: mockSearch({ corpus }) })
      .research('q?', { knowledge: 'k' })
      .toReadableStream()
    const events: ResearchEvent[] = []
    const reader = stream.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value)
    assertEventInvariants(events)
    expect(
      events
        .filter((e) => e.type === 'answer-token')
        .map((e) => (e.type === 'answer-token' ? e.text : ''))
        .join(''),
    ).toBe('Streamed answer.')
  })

  it('turns provider retries into warnings', async () => {
    const flaky = {
      async search(_q: string, opts?: { onRetry?: (i: { attempt: number; delayMs: number; reason: string }) => void }) {
        opts?.onRetry?.({ attempt: 1, delayMs: 250, reason: 'HTTP 429' })
        return corpus
      },
    }
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: sky', 'Action: Answer'] })
    const events = await collect(createAgent({ models: { planner, synthesizer: scriptedLLM({ replies: ['k', 'a'] }) }, search: flaky }).research('q?'))
    expect(events.find((e) => e.type === 'warning' && e.code === 'retry')).toBeDefined()
  })
})

describe('the strategy registry', () => {
  it('names the known strategies when one is unknown', () => {
    expect(() => createAgent({ llm: scriptedLLM({ replies: [] }), strategy: 'nope' })).toThrow(/unknown strategy `nope`.*scratchpad/)
  })

  it('runs a registered strategy by name', async () => {
    registerStrategy(
      defineStrategy({
        name: 'echo',
        async *run(question) {
          yield { type: 'answer-token', text: question }
          yield { type: 'answer', text: question, citations: [] }
        },
      }),
    )
    const result = await createAgent({ llm: scriptedLLM({ replies: [] }), strategy: 'echo' }).answer('hello?')
    expect(result).toMatchObject({ answer: 'hello?', reason: 'answered' })
  })

  it('refuses an empty question with a clear error', () => {
    expect(() => createAgent({ llm: scriptedLLM({ replies: [] }) }).research('  ')).toThrow(/question is empty/)
  })
})

describe('scratchpad never runs the same search twice', () => {
  it('searches the question instead of a repeated query when nothing is known, then answers', async () => {
    const search = mockSearch({ results: () => [] })
    const planner = scriptedLLM({ replies: (_r, i) => (i < 4 ? 'Action: Search\nQuery: same thing' : 'Action: Answer') })
    const synthesizer = scriptedLLM({ replies: ['Nothing was found.'] })
    const run = createAgent({ models: { planner, synthesizer }, search, scratchpad: { maxSteps: 5 } }).research('Obscure question?')
    const events = await collect(run)
    expect(search.calls).toEqual(['same thing', 'Obscure question?'])
    expect(events.filter((e) => e.type === 'warning' && e.code === 'repeated-query')).toHaveLength(2)
    expect((await run.result).reason).toBe('answered')
  })
})

describe('the run iterator', () => {
  it('serves next() calls made without waiting one after another: in order, one run-end, then done', async () => {
    const llm = scriptedLLM({ replies: ['Action: Answer', 'One two three four five six.'] })
    const iterator = createAgent({ llm, search: mockSearch({ corpus }) })
      .research('q?', { knowledge: 'k' })
      [Symbol.asyncIterator]()
    const steps = await Promise.all(Array.from({ length: 100 }, () => iterator.next()))
    const events = steps.filter((s) => !s.done).map((s) => s.value as ResearchEvent)
    assertEventInvariants(events)
    expect(events.length).toBeGreaterThan(5)
    expect(steps.slice(events.length).every((s) => s.done)).toBe(true)
  })
})
