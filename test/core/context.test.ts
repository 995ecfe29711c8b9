import { describe, expect, it } from 'vitest'
import type { StrategyEvent } from '../../src/strategy.js'
import { isAbortError } from '../../src/strategy.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { cached } from '../../src/adapters/index.js'
import type { FetchProvider, SearchProvider } from '../../src/index.js'
import { inRun } from './in-run.js'

async function drain<T>(step: AsyncGenerator<StrategyEvent, T>): Promise<{ events: StrategyEvent[]; value: T }> {
  const events: StrategyEvent[] = []
  for (;;) {
    const next = await step.next()
    if (next.done) return { events, value: next.value }
    events.push(next.value)
  }
}

describe("a strategy's context", () => {
  it('gives a child scope (own signal, same run) query ids from the run counter, so they never collide', async () => {
    await inRun(
      async (outer) => {
        const inner = outer.scope()
        const first = await drain(outer.runSearch('a'))
        const second = await drain(inner.runSearch('b'))
        const third = await drain(inner.scope().runSearch('c'))
        expect([first.value.queryId, second.value.queryId, third.value.queryId]).toEqual(['q1', 'q2', 'q3'])
        expect(inner.newId('f')).toBe('f1')
        expect(outer.newId('f')).toBe('f2')
      },
      { search: mockSearch({ results: () => [] }) },
    )
  })

  it("aborts a child scope's requests on its own, and with its parent", async () => {
    const search = mockSearch({ results: () => [], delayMs: 60_000 })
    const run = new AbortController()
    await inRun(
      async (ctx) => {
        const early = ctx.scope()
        const late = ctx.scope()
        const grandchild = late.scope()
        const stopped = drain(early.runSearch('stopped early')).catch((error: unknown) => error)
        await Promise.resolve()
        early.abort()
        expect(isAbortError(await stopped)).toBe(true)
        expect([early.signal.aborted, ctx.signal.aborted, late.signal.aborted]).toEqual([true, false, false])

        const reason = new Error('run over')
        run.abort(reason)
        expect([late.signal.reason, grandchild.signal.reason]).toEqual([reason, reason])
        // A scope opened once the parent is aborted starts aborted.
        expect(ctx.scope().signal.aborted).toBe(true)
      },
      { search },
      { signal: run.signal },
    )
  })

  it('a closed scope no longer follows its parent', async () => {
    const run = new AbortController()
    await inRun(
      async (ctx) => {
        const scope = ctx.scope()
        scope.close()
        run.abort()
        expect(ctx.signal.aborted).toBe(true)
        expect(scope.signal.aborted).toBe(false)
      },
      {},
      { signal: run.signal },
    )
  })
})

describe("model calls under the run's limit", () => {
  it('a complete() call holds one slot from its request to its last token', async () => {
    const llm = scriptedLLM({ replies: () => 'one two three four five', tokenDelayMs: 2 })
    await inRun(
      async (ctx) => {
        const [a, b] = await Promise.all([drain(ctx.complete('planner', { prompt: 'a' })), drain(ctx.complete('planner', { prompt: 'b' }))])
        expect([a.value, b.value]).toEqual(['one two three four five', 'one two three four five'])
        // Scheduling each chunk instead would let the two streams interleave (two in flight).
        expect(llm.inFlight.peak).toBe(1)
        expect(a.events.map((e) => e.type)).toEqual(['llm-call', 'cost'])
      },
      { llm },
      { concurrency: 1 },
    )
  })
})

describe("ctx.limit, the run's one limit", () => {
  it('is shared by every scope of the run, and nested work runs in the slot already held, even at concurrency 1', async () => {
    await inRun(
      async (ctx) => {
        const scope = ctx.scope()
        let release = () => {}
        const held = new Promise<void>((resolve) => (release = resolve))
        const order: string[] = []
        const outer = ctx.limit(async (inSlot) => {
          order.push('outer')
          await held
          // Nested work (a helper that limits its own I/O) in the slot `outer` holds: no second slot, no deadlock.
          return inSlot(async () => inSlot(async () => 'nested'))
        })
        const other = scope.limit(async () => order.push('scope'))
        await Promise.resolve()
        expect(order).toEqual(['outer'])
        release()
        expect(await outer).toBe('nested')
        await other
        expect(order).toEqual(['outer', 'scope'])
      },
      {},
      { concurrency: 1 },
    )
  })

  it('drops work still waiting for a slot once its scope aborts: it rejects with the abort error and never starts', async () => {
    const run = new AbortController()
    await inRun(
      async (ctx) => {
        const scope = ctx.scope()
        let release = () => {}
        const holding = ctx.limit(() => new Promise<void>((resolve) => (release = resolve)))
        let started = false
        const waiting = scope.limit(async () => {
          started = true
        })
        const after = ctx.limit(async () => 'next')
        scope.abort()
        await expect(waiting).rejects.toSatisfy(isAbortError)
        release()
        await holding
        // The dropped work gave up its place: the run's next work gets the slot, and the dropped one never ran.
        expect(await after).toBe('next')
        expect(started).toBe(false)
        run.abort()
        await expect(ctx.limit(async () => 'late')).rejects.toSatisfy(isAbortError)
      },
      {},
      { concurrency: 1, signal: run.signal },
    )
  })
})

describe('usage a backend reports in part', () => {
  it('estimates the counts it left out instead of taking them as zero', async () => {
    const llm = {
      model: 'partial',
      async *stream() {
        yield { type: 'text' as const, text: 'An answer of some length, long enough to count.' }
        yield { type: 'usage' as const, outputTokens: 11 }
      },
    }
    await inRun(
      async (ctx) => {
        const { events } = await drain(ctx.complete('planner', { prompt: 'A prompt that is long enough to be more than zero tokens.' }))
        const call = events.find((e) => e.type === 'llm-call')
        expect(call).toMatchObject({ outputTokens: 11 })
        expect(call && 'inputTokens' in call ? call.inputTokens : 0).toBeGreaterThan(0)
      },
      { llm },
    )
  })
})

describe('a cache hit seen through a copying wrapper', () => {
  it('is still reported as cached and charged nothing: the mark is data on the results and the page', async () => {
    const source: SearchProvider & FetchProvider = {
      searchCost: 0.01,
      async search(query) {
        return [{ title: query, url: 'https://example.com/a', snippet: 's' }]
      },
      async fetch(url) {
        return { url, title: 'A', text: 'body' }
      },
    }
    const cache = cached(source)
    // A user's wrapper (logging, reranking) that hands on copies, not the cache's own objects.
    const search: SearchProvider = { searchCost: 0.01, search: async (query, opts) => [...(await cache.search(query, opts))] }
    const fetch: FetchProvider = { fetch: async (url, opts) => ({ ...(await cache.fetch(url, opts)) }) }
    await inRun(
      async (ctx) => {
        const miss = await drain(ctx.runSearch('llamas'))
        const hit = await drain(ctx.runSearch('llamas'))
        const results = (events: StrategyEvent[]) => events.filter((event) => event.type === 'result')
        const costs = (events: StrategyEvent[]) => events.flatMap((event) => (event.type === 'cost' ? [event.delta] : []))
        expect(results(miss.events)[0]).not.toHaveProperty('cached')
        expect(costs(miss.events)).toMatchObject([{ search: 0.01, searches: 1 }])
        expect(results(hit.events)[0]).toMatchObject({ cached: true })
        expect(costs(hit.events)).toMatchObject([{ search: 0, searches: 0 }])
        // The mark stays out of what strategies and consumers read as results.
        expect(hit.value.results[0]).not.toHaveProperty('cached')

        await drain(ctx.readPage('https://example.com/a'))
        const again = await drain(ctx.readPage('https://example.com/a'))
        expect(costs(again.events)).toMatchObject([{ fetches: 0 }])
      },
      { search, fetch },
    )
  })
})
