/**
 * Early searches, the shared mechanism of pipelining, met through reflect's planner: a query
 * starts as it closes in the streamed reply, the parse of the whole reply keeps or cancels it,
 * and a cut reply cancels what it started.
 */
import { describe, expect, it } from 'vitest'
import { createAgent, type AgentOptions, type LLMRequest, type ResearchEvent } from '../../../src/index.js'
import { assertEventInvariants } from '../../../src/testing/index.js'
import { roleOf } from '../../support/roles.js'
import { gatedRig, type GatedRig, type Piece } from '../gated.js'

async function collect(run: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

/**
 * A reflect rig whose planner streams `pieces` (the first call, 0); the reflection needs no more
 * and the synthesizer answers at once, its prompt kept in `shown`.
 */
function rig(pieces: (rig: GatedRig) => readonly (string | Piece)[]) {
  const shown: string[] = []
  const world: GatedRig = gatedRig((req: LLMRequest) => {
    if (roleOf(req.system) === 'reflect queries') return pieces(world)
    if (roleOf(req.system) === 'reflect reflection') return ['{"slots": {"score": "3-3 [1]"}, "need_more": false}']
    shown.push(req.prompt)
    return ['It was 3-3 [1].']
  })
  const run = (options: Partial<AgentOptions> = {}) =>
    collect(createAgent({ llm: world.llm, search: world.search, strategy: 'reflect', ...options }).research('What was the score?'))
  return { world, shown, run }
}

/** The planner's reply in three pieces; `hold(i)` (if given) holds piece i back until it settles, `cutAt` ends the stream before that piece. */
const threePieces =
  (hold: (world: GatedRig, i: number) => Promise<void> | undefined = () => undefined, cutAt?: number) =>
  (world: GatedRig) =>
    ['{"queries": ["alpha"', ', "beta"', ']}'].map((text, i): Piece => {
      const after = hold(world, i)
      return { text, ...(after && { after: () => after }), ...(i === cutAt && { cut: new Error('the connection was cut') }) }
    })

describe('early searches', () => {
  it('starts each search as its query closes in the reply, before the reply ends', async () => {
    // The second piece is sent only once alpha's search has started: only pipelining gets there.
    const { world, shown, run } = rig(threePieces((w, i) => (i === 1 ? w.started('alpha') : i === 2 ? w.started('beta') : undefined)))
    const events = await run()
    expect(world.log.indexOf('search alpha')).toBeLessThan(world.log.indexOf('piece 0.1'))
    expect(world.log.indexOf('search beta')).toBeLessThan(world.log.indexOf('end 0'))
    // Each query searched once, its `query` before the `plan` that names it, and the answer uses both.
    expect(world.searches()).toEqual(['alpha', 'beta'])
    const types = events.map((e) => (e.type === 'query' ? `query ${e.query}` : e.type))
    expect(types.indexOf('query alpha')).toBeLessThan(types.indexOf('plan'))
    expect(shown).toHaveLength(1)
    expect(shown[0]).toContain('On alpha')
    expect(shown[0]).toContain('On beta')
    expect(events.find((e) => e.type === 'run-end')).toMatchObject({ reason: 'answered', cost: { searches: 2 } })
  })

  it('cancels a search whose query the parse of the whole reply did not keep; it still gets its result', async () => {
    // The bare list's query starts; then JSON arrives, which is the reply: it names beta alone.
    const { world, shown, run } = rig((w) => ['Queries:\n- alpha\n', { text: '{"queries": ["beta"]}', after: () => w.started('alpha') }])
    const events = await run()
    expect(world.log).toContain('aborted alpha')
    const alpha = events.find((e) => e.type === 'query' && e.query === 'alpha')
    expect(alpha).toBeDefined()
    const result = events.find((e) => e.type === 'result' && e.queryId === (alpha as { queryId: string }).queryId)
    expect(result).toMatchObject({ results: [], error: { code: 'aborted' } })
    expect(events.find((e) => e.type === 'plan')).toMatchObject({ queries: ['beta'] })
    expect(shown[0]).toContain('On beta')
    expect(shown[0]).not.toContain('On alpha')
    expect(events.find((e) => e.type === 'run-end')).toMatchObject({ reason: 'answered', cost: { searches: 1 } })
  })

  it('with pipelining off, searches only after the reply ended', async () => {
    const { world, run } = rig(threePieces())
    await run({ pipelining: false })
    expect(world.log.indexOf('search alpha')).toBeGreaterThan(world.log.indexOf('end 0'))
    expect(world.searches()).toEqual(['alpha', 'beta'])
  })

  it('a reply cut off mid-stream cancels its early searches, and the run ends saying why', async () => {
    const { world, run } = rig(threePieces((w, i) => (i === 1 ? w.started('alpha') : undefined), 1))
    const events = await run()
    expect(world.log).toContain('aborted alpha')
    expect(events.filter((e) => e.type === 'result')).toMatchObject([{ error: { code: 'aborted' } }])
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'error' })
  })

  it('rejects a pipelining option that is not a boolean', () => {
    const { world } = rig(threePieces())
    expect(() => createAgent({ llm: world.llm, pipelining: 'yes' as unknown as boolean })).toThrow(/pipelining/)
  })
})
