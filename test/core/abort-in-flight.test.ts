/**
 * An aborted run stops every provider call it has in flight: by the time `run-end` is read,
 * the signal of every call that has not returned is aborted, whichever strategy ran and however
 * many calls were in flight (searches, page reads and model calls), even with providers that
 * ignore their signal and never return.
 */
import { describe, expect, it } from 'vitest'
import type { FetchProvider, LLMProvider, LLMRequest, ResearchEvent, SearchProvider } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { STRATEGIES, world } from '../checkpoints/world.js'

interface Call {
  what: string
  signal: AbortSignal | undefined
  done: boolean
  /** The call was made with a signal that had already aborted. */
  late: boolean
}

/** Providers that record every call, and hang (ignoring the signal) on the calls `hang` picks. */
function recording(hang: (what: string, n: number) => boolean, polite: boolean) {
  const calls: Call[] = []
  let started = 0
  let onStart: (() => void) | undefined
  /** Hangs until the call's signal aborts, then rejects as a well-behaved provider does. */
  const never = new Promise<never>(() => {})
  const untilAborted = (signal: AbortSignal | undefined) =>
    new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }))
  const track = async <T>(what: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> => {
    const call: Call = { what, signal, done: false, late: signal?.aborted === true }
    calls.push(call)
    const n = started++
    onStart?.()
    try {
      return hang(what, n) ? await (polite ? untilAborted(signal) : never) : await work()
    } finally {
      call.done = true
    }
  }
  const wrap = (base: { llm: LLMProvider; search: SearchProvider; fetch: FetchProvider }) => ({
    llm: {
      ...base.llm,
      async *stream(req: LLMRequest) {
        const chunks: unknown[] = []
        await track('llm', req.signal, async () => {
          for await (const chunk of base.llm.stream(req)) chunks.push(chunk)
        })
        yield* chunks as never[]
      },
    } satisfies LLMProvider,
    search: { ...base.search, search: (q, o) => track(`search:${q}`, o?.signal, () => base.search.search(q, o)) } satisfies SearchProvider,
    fetch: { fetch: (url, o) => track(`fetch:${url}`, o?.signal, () => base.fetch.fetch(url, o)) } satisfies FetchProvider,
  })
  /** Resolves once `count` calls are hanging. */
  const hanging = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (calls.filter((c) => !c.done).length >= count) resolve()
      }
      onStart = check
      check()
    })
  return { calls, wrap, hanging }
}

const QUESTION = 'What happened to alpha?'

const CASES = STRATEGIES.flatMap((strategy) => [0, 1, 2, 3, 5, 8, 12, 20].flatMap((from) => [true, false].map((polite) => ({ strategy, from, polite }))))

describe('an aborted run', () => {
  it.each(CASES)(
    '$strategy, calls hanging from call $from on (polite: $polite): every unfinished call is aborted by run-end, none made after',
    async ({ strategy, from, polite }) => {
      const probe = recording((_what, n) => n >= from, polite)
      const base = world(strategy, 3, { graphReader: { concurrency: 2, maxSteps: 8, maxPagesPerNode: 1 } })
      const { llm, search, fetch } = probe.wrap({ llm: base.llm, search: base.search, fetch: { fetch: async (url) => ({ url, text: 'page' }) } })
      const { createAgent } = await import('../../src/index.js')
      const agent = createAgent({
        llm,
        search,
        fetch,
        strategy,
        graphReader: { concurrency: 2, maxSteps: 8, maxPagesPerNode: 1 },
        deep: { concurrency: 2 },
        reflect: { concurrency: 2 },
      })
      const run = agent.research(QUESTION)
      const reading = (async () => {
        const unfinishedAtEnd: Call[] = []
        const events: ResearchEvent[] = []
        for await (const event of run) {
          events.push(event)
          if (event.type === 'run-end') unfinishedAtEnd.push(...probe.calls.filter((c) => !c.done))
        }
        return { events, unfinishedAtEnd }
      })()
      await probe.hanging(1)
      run.abort()
      const { events, unfinishedAtEnd } = await reading
      expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
      // Providers that ignore their signal are still in their calls at run-end: the test saw some.
      if (!polite) expect(unfinishedAtEnd.length).toBeGreaterThan(0)
      expect(unfinishedAtEnd.filter((c) => !c.signal?.aborted).map((c) => c.what)).toEqual([])
      await run.result
      // Nothing queued behind the run's limiter is called once the run is over.
      expect(probe.calls.filter((c) => c.late).map((c) => c.what)).toEqual([])
    },
  )
})

it('a run that answers with a call still in flight aborts that call by run-end', async () => {
  const probe = recording((what) => what.startsWith('search:'), false)
  const { createAgent } = await import('../../src/index.js')
  const { search } = probe.wrap({
    llm: scriptedLLM({ replies: [''] }),
    search: mockSearch({ results: () => [] }),
    fetch: { fetch: async (url) => ({ url, text: '' }) },
  })
  // A strategy that starts a search and answers without waiting for it.
  const hasty: Strategy = {
    name: 'hasty',
    async *run(_question, ctx) {
      const started = ctx.runSearch('left behind')
      void started.next().catch(() => undefined)
      await probe.hanging(1)
      yield { type: 'answer', text: 'done', citations: [] }
      return { reason: 'answered' }
    },
  }
  const run = createAgent({ llm: scriptedLLM({ replies: [''] }), search, strategy: hasty }).research('q')
  let atEnd: Call[] = []
  for await (const event of run) if (event.type === 'run-end') atEnd = probe.calls.filter((c) => !c.done)
  expect((await run.result).reason).toBe('answered')
  expect(atEnd.map((c) => [c.what, c.signal?.aborted])).toEqual([['search:left behind', true]])
})
