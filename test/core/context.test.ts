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
