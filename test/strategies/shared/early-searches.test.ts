import { describe, expect, it } from 'vitest'
import { createAgent, type LLMChunk, type LLMProvider, type ResearchEvent, type SearchProvider, type Strategy } from '../../../src/index.js'
import { earlySearches } from '../../../src/strategies/shared/early-searches.js'
import { createQueryStream } from '../../../src/strategies/shared/query-stream.js'
import { assertEventInvariants } from '../../../src/testing/index.js'

/**
 * A planner that streams its reply piece by piece, each piece only once `ready(i)` settles, and
 * a search that logs when each request starts, ends or is aborted. The test orders the two with
 * promises: nothing depends on timing.
 */
function rig(pieces: readonly string[], ready: (i: number) => Promise<void> = () => Promise.resolve(), opts: { failAfter?: number } = {}) {
  const log: string[] = []
  const started = new Map<string, () => void>()
  const startedPromise = new Map<string, Promise<void>>()
  const whenStarted = (query: string) => {
    if (!startedPromise.has(query)) startedPromise.set(query, new Promise<void>((resolve) => started.set(query, resolve)))
    return startedPromise.get(query)!
  }
  const llm: LLMProvider = {
    local: true,
    async *stream(): AsyncGenerator<LLMChunk> {
      for (const [i, text] of pieces.entries()) {
        await ready(i)
        if (opts.failAfter === i) throw new Error('the connection was cut')
        log.push(`piece ${i}`)
        yield { type: 'text', text }
      }
      log.push('reply ended')
      yield { type: 'usage', inputTokens: 10, outputTokens: 10 }
    },
  }
  const search: SearchProvider = {
    search(query, options) {
      log.push(`search ${query}`)
      void whenStarted(query)
      started.get(query)!()
      return new Promise((resolve, reject) => {
        options?.signal?.addEventListener('abort', () => {
          log.push(`aborted ${query}`)
          reject(options.signal!.reason)
        })
        // Settles on the next turn: the search is in flight while the reply streams on.
        queueMicrotask(() => setImmediate(() => !options?.signal?.aborted && resolve([{ title: query, url: `https://example.com/${query}`, snippet: query }])))
      })
    },
  }
  return { llm, search, log, whenStarted }
}

/** A strategy that plans with one streamed call, keeps the queries `keep` says, searches them, answers. */
function probe(keep: (queries: string[]) => string[] = (q) => q): Strategy {
  return {
    name: 'probe',
    async *run(_question, ctx) {
      const early = earlySearches(ctx, { limit: 5 })
      const reply = yield* early.during((onText) => ctx.complete('planner', { prompt: 'plan' }, { onText }), createQueryStream({ lists: ['queries'] }))
      const queries = keep((JSON.parse(reply) as { queries: string[] }).queries)
      yield* early.keepOnly(queries)
      yield { type: 'plan', text: 'the plan', queries }
      const found: string[] = []
      for (const query of queries) {
        const outcome = yield* early.take(query) ?? ctx.runSearch(query)
        found.push(...outcome.results.map((r) => r.title))
      }
      const text = `found ${found.join(', ')}`
      yield { type: 'answer-token', text }
      yield { type: 'answer', text, citations: [] }
      return { reason: 'answered' }
    },
  }
}

async function collect(run: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return events
}

const PIECES = ['{"queries": ["alpha"', ', "beta"', ']}']

describe('earlySearches', () => {
  it('starts each search as its query closes in the reply, before the reply ends', async () => {
    // The second piece is sent only once alpha's search has started: only pipelining gets there.
    const { llm, search, log, whenStarted } = rig(PIECES, (i) => (i === 1 ? whenStarted('alpha') : i === 2 ? whenStarted('beta') : Promise.resolve()))
    const events = assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe() }).research('q')))
    expect(log.indexOf('search alpha')).toBeLessThan(log.indexOf('piece 1'))
    expect(log.indexOf('search beta')).toBeLessThan(log.indexOf('reply ended'))
    // Each query searched once, its `query` before the `plan` that names it, and the answer uses both.
    expect(log.filter((l) => l.startsWith('search'))).toEqual(['search alpha', 'search beta'])
    const types = events.map((e) => (e.type === 'query' ? `query ${e.query}` : e.type))
    expect(types.indexOf('query alpha')).toBeLessThan(types.indexOf('plan'))
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ text: 'found alpha, beta' })
    expect(events.find((e) => e.type === 'run-end')).toMatchObject({ reason: 'answered', cost: { searches: 2 } })
  })

  it('cancels a search whose query the parse of the whole reply did not keep; it still gets its result', async () => {
    const { llm, search, log, whenStarted } = rig(PIECES, (i) => (i === 1 ? whenStarted('alpha') : Promise.resolve()))
    const events = assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe((q) => q.filter((x) => x !== 'alpha')) }).research('q')))
    expect(log).toContain('aborted alpha')
    const alpha = events.find((e) => e.type === 'query' && e.query === 'alpha')
    expect(alpha).toBeDefined()
    const result = events.find((e) => e.type === 'result' && e.queryId === (alpha as { queryId: string }).queryId)
    expect(result).toMatchObject({ results: [], error: { code: 'aborted' } })
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ text: 'found beta' })
    expect(events.find((e) => e.type === 'run-end')).toMatchObject({ reason: 'answered', cost: { searches: 1 } })
  })

  it('with pipelining off, searches only after the reply ended', async () => {
    const { llm, search, log } = rig(PIECES)
    assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe(), pipelining: false }).research('q')))
    expect(log.indexOf('search alpha')).toBeGreaterThan(log.indexOf('reply ended'))
    expect(log.filter((l) => l.startsWith('search'))).toEqual(['search alpha', 'search beta'])
  })

  it('a reply cut off mid-stream cancels its early searches, and the run ends saying why', async () => {
    const { llm, search, log, whenStarted } = rig(PIECES, (i) => (i === 1 ? whenStarted('alpha') : Promise.resolve()), { failAfter: 1 })
    const events = assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe() }).research('q')))
    expect(log).toContain('aborted alpha')
    expect(events.filter((e) => e.type === 'result')).toMatchObject([{ error: { code: 'aborted' } }])
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'error' })
  })

  it('rejects a pipelining option that is not a boolean', () => {
    const { llm } = rig([])
    expect(() => createAgent({ llm, pipelining: 'yes' as unknown as boolean })).toThrow(/pipelining/)
  })
})
