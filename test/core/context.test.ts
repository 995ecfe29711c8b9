import { describe, expect, it } from 'vitest'
import { createContext, type StrategyEvent } from '../../src/core/index.js'
import { mockSearch } from '../../src/testing/index.js'

async function drain<T>(step: AsyncGenerator<StrategyEvent, T>): Promise<{ events: StrategyEvent[]; value: T }> {
  const events: StrategyEvent[] = []
  for (;;) {
    const next = await step.next()
    if (next.done) return { events, value: next.value }
    events.push(next.value)
  }
}

describe('createContext', () => {
  it('gives a nested context (own signal, same run) query ids from the run counter, so they never collide', async () => {
    const base = { runId: 'r', question: 'q', options: { search: mockSearch({ results: () => [] }) }, input: {} }
    const outer = createContext({ ...base, signal: new AbortController().signal })
    const inner = createContext({ ...base, signal: new AbortController().signal, newId: outer.newId })
    const first = await drain(outer.runSearch('a'))
    const second = await drain(inner.runSearch('b'))
    expect([first.value.queryId, second.value.queryId]).toEqual(['q1', 'q2'])
  })
})

describe('model calls under a limiter', () => {
  it('a complete() call holds one slot from its request to its last token', async () => {
    const { default: pLimit } = await import('p-limit')
    const { scriptedLLM } = await import('../../src/testing/index.js')
    const llm = scriptedLLM({ replies: () => 'one two three four five', tokenDelayMs: 2 })
    const ctx = createContext({ runId: 'r', question: 'q', signal: new AbortController().signal, options: { llm }, input: {} })
    const schedule = pLimit(1)
    const [a, b] = await Promise.all([drain(ctx.complete('planner', { prompt: 'a' }, { schedule })), drain(ctx.complete('planner', { prompt: 'b' }, { schedule }))])
    expect([a.value, b.value]).toEqual(['one two three four five', 'one two three four five'])
    // Scheduling each chunk instead would let the two streams interleave (two in flight).
    expect(llm.inFlight.peak).toBe(1)
    expect(a.events.map((e) => e.type)).toEqual(['llm-call', 'cost'])
  })
})
