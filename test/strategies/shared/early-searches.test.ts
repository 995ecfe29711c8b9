import { describe, expect, it } from 'vitest'
import { createAgent, type ResearchEvent } from '../../../src/index.js'
import type { Strategy } from '../../../src/strategy.js'
import { earlySearches } from '../../../src/strategies/shared/early-searches.js'
import { createQueryStream } from '../../../src/strategies/shared/query-stream.js'
import { assertEventInvariants } from '../../../src/testing/index.js'
import { gatedRig, type Piece } from '../gated.js'

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

/**
 * The planner's reply in three pieces; `hold(i)` (if given) holds piece i back until it settles,
 * `cutAt` ends the stream before that piece with a cut connection.
 */
function rig(hold: (i: number) => Promise<void> | undefined = () => undefined, cutAt?: number) {
  const pieces = ['{"queries": ["alpha"', ', "beta"', ']}']
  return gatedRig(() =>
    pieces.map((text, i): Piece => {
      const after = hold(i)
      return { text, ...(after && { after: () => after }), ...(i === cutAt && { cut: new Error('the connection was cut') }) }
    }),
  )
}

describe('earlySearches', () => {
  it('starts each search as its query closes in the reply, before the reply ends', async () => {
    // The second piece is sent only once alpha's search has started: only pipelining gets there.
    const world = rig((i) => (i === 1 ? world.started('alpha') : i === 2 ? world.started('beta') : undefined))
    const { llm, search, log } = world
    const events = assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe() }).research('q')))
    expect(log.indexOf('search alpha')).toBeLessThan(log.indexOf('piece 0.1'))
    expect(log.indexOf('search beta')).toBeLessThan(log.indexOf('end 0'))
    // Each query searched once, its `query` before the `plan` that names it, and the answer uses both.
    expect(log.filter((l) => l.startsWith('search'))).toEqual(['search alpha', 'search beta'])
    const types = events.map((e) => (e.type === 'query' ? `query ${e.query}` : e.type))
    expect(types.indexOf('query alpha')).toBeLessThan(types.indexOf('plan'))
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ text: 'found On alpha, On beta' })
    expect(events.find((e) => e.type === 'run-end')).toMatchObject({ reason: 'answered', cost: { searches: 2 } })
  })

  it('cancels a search whose query the parse of the whole reply did not keep; it still gets its result', async () => {
    const world = rig((i) => (i === 1 ? world.started('alpha') : undefined))
    const { llm, search, log } = world
    const events = assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe((q) => q.filter((x) => x !== 'alpha')) }).research('q')))
    expect(log).toContain('aborted alpha')
    const alpha = events.find((e) => e.type === 'query' && e.query === 'alpha')
    expect(alpha).toBeDefined()
    const result = events.find((e) => e.type === 'result' && e.queryId === (alpha as { queryId: string }).queryId)
    expect(result).toMatchObject({ results: [], error: { code: 'aborted' } })
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ text: 'found On beta' })
    expect(events.find((e) => e.type === 'run-end')).toMatchObject({ reason: 'answered', cost: { searches: 1 } })
  })

  it('with pipelining off, searches only after the reply ended', async () => {
    const { llm, search, log } = rig()
    assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe(), pipelining: false }).research('q')))
    expect(log.indexOf('search alpha')).toBeGreaterThan(log.indexOf('end 0'))
    expect(log.filter((l) => l.startsWith('search'))).toEqual(['search alpha', 'search beta'])
  })

  it('a reply cut off mid-stream cancels its early searches, and the run ends saying why', async () => {
    const world = rig((i) => (i === 1 ? world.started('alpha') : undefined), 1)
    const { llm, search, log } = world
    const events = assertEventInvariants(await collect(createAgent({ llm, search, strategy: probe() }).research('q')))
    expect(log).toContain('aborted alpha')
    expect(events.filter((e) => e.type === 'result')).toMatchObject([{ error: { code: 'aborted' } }])
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'error' })
  })

  it('rejects a pipelining option that is not a boolean', () => {
    const { llm } = rig()
    expect(() => createAgent({ llm, pipelining: 'yes' as unknown as boolean })).toThrow(/pipelining/)
  })
})
