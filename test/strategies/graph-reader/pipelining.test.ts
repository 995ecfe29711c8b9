/**
 * Graph-reader's pipelining: a query closing in a reply that still streams (the plan's, a node
 * check's) starts its node at once. The models here stream each reply piece by piece, a piece
 * only once the test's gate for it opens, so "the search started before the reply ended" is
 * ordered by promises, never by timing.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createAgent,
  memoryCheckpoints,
  type AgentOptions,
  type LLMChunk,
  type LLMProvider,
  type LLMRequest,
  type ResearchEvent,
  type ResearchRun,
  type SearchProvider,
} from '../../../src/index.js'
import { graphReader } from '../../../src/strategy.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../../src/testing/index.js'
import { ofType, queryOf, roleOf, type Role } from './helpers.js'

interface Reply {
  pieces: readonly string[]
  /** Piece i is sent once this settles. */
  gate?: (i: number) => Promise<void>
}

/**
 * A world whose model streams `reply(role, query)` in pieces and whose search logs when each
 * request starts, ends or is aborted; `held` queries are searched until aborted.
 */
function rig(reply: (role: Role, req: LLMRequest) => Reply, opts: { held?: readonly string[] } = {}) {
  const log: string[] = []
  const startedAt = new Map<string, () => void>()
  const started = new Map<string, Promise<void>>()
  const whenSearched = (query: string) => {
    if (!started.has(query)) started.set(query, new Promise<void>((resolve) => startedAt.set(query, resolve)))
    return started.get(query)!
  }
  const models = { current: 0, peak: 0, duringPlan: 0, planning: false }
  const searches = { current: 0, peak: 0 }
  const requests: LLMRequest[] = []
  const llm: LLMProvider = {
    local: true,
    async *stream(req): AsyncGenerator<LLMChunk> {
      requests.push(req)
      const role = roleOf(req)
      const { pieces, gate } = reply(role, req)
      const label = role === 'planner' || role === 'finalizer' ? role : `${role} ${queryOf(req)}`
      models.current++
      models.peak = Math.max(models.peak, models.current)
      if (models.planning) models.duringPlan++
      if (role === 'planner') models.planning = true
      log.push(`${label} started`)
      try {
        for (const [i, text] of pieces.entries()) {
          await gate?.(i)
          req.signal?.throwIfAborted()
          yield { type: 'text', text }
        }
        log.push(`${label} ended`)
        yield { type: 'usage', inputTokens: 10, outputTokens: 10 }
      } finally {
        models.current--
        if (role === 'planner') models.planning = false
      }
    },
  }
  const search: SearchProvider = {
    search(query, options) {
      log.push(`search ${query}`)
      searches.current++
      searches.peak = Math.max(searches.peak, searches.current)
      void whenSearched(query)
      startedAt.get(query)!()
      return new Promise((resolve, reject) => {
        const done = () => searches.current--
        options?.signal?.addEventListener('abort', () => {
          log.push(`aborted ${query}`)
          done()
          reject(options.signal!.reason)
        })
        if (opts.held?.includes(query)) return
        // Settles on a later turn: the search is in flight while the reply streams on.
        setImmediate(() => {
          if (options?.signal?.aborted) return
          done()
          resolve([{ title: query, url: `https://example.com/${encodeURIComponent(query)}`, snippet: `About ${query}.` }])
        })
      })
    },
  }
  return { llm, search, log, whenSearched, models, searches, requests }
}

/** Every reply but the plan's streams whole at once; the plan's comes from the test. */
const plain = (pieces: Record<Exclude<Role, 'planner'>, (req: LLMRequest) => string>) => (role: Role, req: LLMRequest) =>
  role === 'planner' ? { pieces: [] } : { pieces: [pieces[role](req)] }

const facts = (req: LLMRequest) => `{"facts": [{"text": "Something about ${queryOf(req)}", "source": 1}]}`
const noChildren = () => '{"answerable": false, "queries": []}'
const answer = () => 'The answer [1].'

async function collect(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

function agent(r: ReturnType<typeof rig>, options: Partial<AgentOptions> & { concurrency?: number } = {}) {
  const { concurrency = 4, ...rest } = options
  return createAgent({ llm: r.llm, search: r.search, strategy: graphReader({ concurrency, maxSteps: 8 }), ...rest })
}

const PLAN = ['{"key_elements": ["the key"], "queries": ["alpha"', ', "beta"', ']', ', "goal": "g", "steps": ["s"]}']

describe('graph-reader pipelining', () => {
  it('starts each root node as its query closes in the plan, and calls no model for it before the plan is parsed', async () => {
    let r!: ReturnType<typeof rig>
    // The plan's next piece is sent only once alpha's (then beta's) search started: only pipelining gets there.
    const gate = (i: number) => (i === 1 ? r.whenSearched('alpha') : i === 3 ? r.whenSearched('beta') : Promise.resolve())
    const base = plain({ extractor: facts, neighbor: noChildren, condenser: () => '{"facts": []}', finalizer: answer })
    r = rig((role, req) => (role === 'planner' ? { pieces: PLAN, gate } : base(role, req)))
    const run = agent(r).research('q?')
    const events = await collect(run)

    expect(r.log.indexOf('search alpha')).toBeLessThan(r.log.indexOf('planner ended'))
    expect(r.log.indexOf('search beta')).toBeLessThan(r.log.indexOf('planner ended'))
    // Their model calls wait for the whole plan: the planner is the only call while it streams.
    expect(r.models.duringPlan).toBe(0)
    expect(r.log.indexOf('extractor alpha started')).toBeGreaterThan(r.log.indexOf('planner ended'))
    // The extractor sees the plan's key elements, which closed before the queries.
    const extractorPrompts = r.requests.filter((req) => roleOf(req) === 'extractor').map((req) => req.prompt)
    expect(extractorPrompts).toHaveLength(2)
    for (const prompt of extractorPrompts) expect(prompt).toContain('Key elements: the key')
    // A `query` comes before the `plan` that names it; each query is searched once.
    const order = events.map((e) => (e.type === 'query' ? `query ${e.query}` : e.type))
    expect(order.indexOf('query alpha')).toBeLessThan(order.indexOf('plan'))
    expect(ofType(events, 'plan')[0]).toMatchObject({ queries: ['alpha', 'beta'], keyElements: ['the key'] })
    expect(r.log.filter((l) => l.startsWith('search'))).toEqual(['search alpha', 'search beta'])
    expect(await run.result).toMatchObject({ reason: 'answered', cost: { searches: 2 } })
  })

  it('cancels the node of a query the parse of the whole plan does not keep: its search is aborted and gets an aborted result', async () => {
    let r!: ReturnType<typeof rig>
    // `search_queries` is read as the stream goes, but the parse prefers `queries`.
    const pieces = ['{"search_queries": ["dropped"]', ', "queries": ["kept"]}']
    const gate = (i: number) => (i === 1 ? r.whenSearched('dropped') : Promise.resolve())
    const base = plain({ extractor: facts, neighbor: noChildren, condenser: () => '{"facts": []}', finalizer: answer })
    r = rig((role, req) => (role === 'planner' ? { pieces, gate } : base(role, req)), { held: ['dropped'] })
    const run = agent(r).research('q?')
    const events = await collect(run)

    expect(r.log).toContain('aborted dropped')
    expect(r.log.indexOf('aborted dropped')).toBeGreaterThan(r.log.indexOf('planner ended'))
    const dropped = ofType(events, 'query').find((e) => e.query === 'dropped')!
    expect(ofType(events, 'result').find((e) => e.queryId === dropped.queryId)).toMatchObject({ results: [], error: { code: 'aborted' } })
    expect(ofType(events, 'plan')[0]).toMatchObject({ queries: ['kept'] })
    // The cancelled node made no model call; only the kept one was explored.
    expect(r.log.filter((l) => l.startsWith('extractor') || l.startsWith('neighbor'))).toEqual([
      'extractor kept started',
      'extractor kept ended',
      'neighbor kept started',
      'neighbor kept ended',
    ])
    const result = await run.result
    expect(result).toMatchObject({ reason: 'answered', cost: { searches: 1 } })
    expect(result.facts.map((f) => f.text)).toEqual(['Something about kept'])
  })

  it('starts a child node as its query closes in a node check, and cancels it when the check says the notebook answers', async () => {
    let r!: ReturnType<typeof rig>
    // The check names a child, then (once the child's search started) says the notebook suffices.
    const check = { pieces: ['{"queries": ["child"]', ', "answerable": true}'], gate: (i: number) => (i === 1 ? r.whenSearched('child') : Promise.resolve()) }
    const base = plain({ extractor: facts, neighbor: noChildren, condenser: () => '{"facts": []}', finalizer: answer })
    r = rig((role, req) => (role === 'planner' ? { pieces: ['{"queries": ["root"]}'] } : role === 'neighbor' ? check : base(role, req)), { held: ['child'] })
    const run = agent(r).research('q?')
    const events = await collect(run)

    expect(r.log.indexOf('search child')).toBeLessThan(r.log.indexOf('neighbor root ended'))
    expect(r.log).toContain('aborted child')
    const child = ofType(events, 'query').find((e) => e.query === 'child')!
    const root = ofType(events, 'query').find((e) => e.query === 'root')!
    expect(child).toMatchObject({ parentId: root.queryId, depth: 1 })
    expect(ofType(events, 'result').find((e) => e.queryId === child.queryId)).toMatchObject({ error: { code: 'aborted' } })
    expect(ofType(events, 'plan').at(-1)!.text).toMatch(/answers the question/)
    expect(r.log.some((l) => l.startsWith('extractor child'))).toBe(false)
    expect(await run.result).toMatchObject({ reason: 'answered', cost: { searches: 1 } })
  })

  it('keeps a child node the check keeps: it goes on to its model calls, once, under its parent', async () => {
    let r!: ReturnType<typeof rig>
    const check = (req: LLMRequest): Reply =>
      queryOf(req) === 'root'
        ? {
            pieces: ['{"answerable": false, "queries": ["child"]', ', "missing": "more"}'],
            gate: (i) => (i === 1 ? r.whenSearched('child') : Promise.resolve()),
          }
        : { pieces: [noChildren()] }
    const base = plain({ extractor: facts, neighbor: noChildren, condenser: () => '{"facts": []}', finalizer: answer })
    r = rig((role, req) => (role === 'planner' ? { pieces: ['{"queries": ["root"]}'] } : role === 'neighbor' ? check(req) : base(role, req)))
    const events = await collect(agent(r).research('q?'))

    expect(r.log.indexOf('search child')).toBeLessThan(r.log.indexOf('neighbor root ended'))
    // The child's model calls wait for its parent's parse.
    expect(r.log.indexOf('extractor child started')).toBeGreaterThan(r.log.indexOf('neighbor root ended'))
    expect(r.log.filter((l) => l === 'search child')).toHaveLength(1)
    expect(ofType(events, 'plan').find((p) => p.text.startsWith('After "root"'))).toMatchObject({ queries: ['child'] })
    expect(ofType(events, 'fact').map((f) => f.fact.text)).toEqual(['Something about root', 'Something about child'])
  })

  it('with pipelining off or at concurrency 1 nothing starts early; a plan to approve is not explored before approval', async () => {
    const cases: {
      options: Partial<AgentOptions> & { concurrency?: number }
      input?: Parameters<ReturnType<typeof agent>['research']>[1]
      checksEarly: boolean
    }[] = [
      { options: { pipelining: false }, checksEarly: false },
      { options: { concurrency: 1 }, checksEarly: false },
      // Only the plan waits for its approval: node checks still start their children early.
      { options: {}, input: { review: { plan: true }, decide: () => ({ action: 'approve' as const }) }, checksEarly: true },
    ]
    for (const { options, input, checksEarly } of cases) {
      const base = plain({
        extractor: facts,
        neighbor: (req) => (queryOf(req) === 'alpha' ? '{"answerable": false, "queries": ["child"]}' : noChildren()),
        condenser: () => '{"facts": []}',
        finalizer: answer,
      })
      const r = rig((role, req) => {
        if (role === 'planner') return { pieces: PLAN }
        const whole = base(role, req).pieces[0]!
        return { pieces: whole.match(/[^,]+,?/g) ?? [whole] }
      })
      const run = agent(r, options).research('q?', input)
      await collect(run)
      expect(r.log.indexOf('search alpha')).toBeGreaterThan(r.log.indexOf('planner ended'))
      expect(r.log.indexOf('search child') < r.log.indexOf('neighbor alpha ended')).toBe(checksEarly)
      expect(r.log).toContain('search child')
      expect((await run.result).reason).toBe('answered')
    }
  })

  it('keeps model calls and searches within the concurrency limit while early nodes run', async () => {
    for (const concurrency of [2, 3]) {
      let children = 0
      const base = plain({
        extractor: facts,
        // Each root check names two children, written one piece at a time.
        neighbor: (req) =>
          queryOf(req).startsWith('root') ? `{"answerable": false, "queries": ["child ${++children}", "child ${++children}"]}` : noChildren(),
        condenser: () => '{"facts": []}',
        finalizer: answer,
      })
      const r = rig((role, req) => {
        if (role === 'planner') return { pieces: ['{"queries": ["root 1"', ', "root 2"', ', "root 3"', ', "root 4"', ']}'] }
        const whole = base(role, req).pieces[0]!
        return { pieces: whole.match(/[^,]+,?/g) ?? [whole] }
      })
      const run = createAgent({ llm: r.llm, search: r.search, strategy: graphReader({ concurrency, maxSteps: 12 }) }).research('q?')
      await collect(run)
      expect(r.models.peak).toBeLessThanOrEqual(concurrency)
      expect(r.models.duringPlan).toBe(0)
      expect(r.searches.peak).toBeLessThanOrEqual(concurrency)
      expect(r.log.filter((l) => l.startsWith('search'))).toHaveLength(12)
      expect((await run.result).reason).toBe('max-iterations')
    }
  })

  it('resumes from the plan checkpoint taken while early roots were in flight: every root is explored', async () => {
    const base = plain({ extractor: facts, neighbor: noChildren, condenser: () => '{"facts": []}', finalizer: answer })
    let r!: ReturnType<typeof rig>
    const gate = (i: number) => (i === 1 ? r.whenSearched('alpha') : i === 3 ? r.whenSearched('beta') : Promise.resolve())
    r = rig((role, req) => (role === 'planner' ? { pieces: PLAN, gate } : base(role, req)))
    const store = memoryCheckpoints()
    let run!: ResearchRun
    const saving = {
      ...store,
      async save(checkpoint: Parameters<typeof store.save>[0]) {
        await store.save(checkpoint)
        if (checkpoint.status === 'running') run.abort()
      },
    }
    run = agent(r).research('q?', { checkpoints: saving })
    const before = await collect(run)
    expect((await run.result).reason).toBe('aborted')
    const checkpoint = (await store.load(run.runId))!
    expect(r.log.filter((l) => l.startsWith('search'))).toEqual(['search alpha', 'search beta'])

    const second = rig((role, req) => (role === 'planner' ? { pieces: PLAN } : base(role, req)))
    const resumed = agent(second).resume(run.runId, { checkpoints: store })
    const after = await collect(resumed)
    assertEventInvariants([...before.filter((e) => e.seq < checkpoint.seq), ...after])
    // The plan is not made again; both roots are explored from the start.
    expect(second.log.some((l) => l.startsWith('planner'))).toBe(false)
    expect(second.log.filter((l) => l.startsWith('search')).sort()).toEqual(['search alpha', 'search beta'])
    const result = await resumed.result
    expect(result.reason).toBe('answered')
    expect(result.facts.map((f) => f.text).sort()).toEqual(['Something about alpha', 'Something about beta'])
  })

  it('changes when work starts, not what is explored: whatever the split, the same queries and facts as without pipelining', async () => {
    /** Each root's check names two children; a decoy list the parse does not read may come first. */
    const replies = (decoys: { plan: boolean; checks: boolean }) => (req: LLMRequest) => {
      const query = queryOf(req)
      switch (roleOf(req)) {
        case 'planner':
          return `{"key_elements": ["k"], ${decoys.plan ? '"search_queries": ["decoy root"], ' : ''}"queries": ["r1", "r2", "r3"], "goal": "g", "steps": ["s"]}`
        case 'extractor':
          return `{"facts": [{"text": "Found by searching ${query}", "source": 1}]}`
        case 'neighbor': {
          const children = /^r\d$/.test(query) ? [`${query} a`, `${query} b`] : []
          return `{"answerable": false, ${decoys.checks ? `"search_queries": ["decoy of ${query}"], ` : ''}"queries": ${JSON.stringify(children)}, "missing": "m"}`
        }
        default:
          return 'The answer [1].'
      }
    }
    const outcome = async (pipelining: boolean, args: { chunkSize: number; concurrency: number; seed: number; decoys: { plan: boolean; checks: boolean } }) => {
      const llm = scriptedLLM({ replies: replies(args.decoys), chunkSize: args.chunkSize })
      const search = mockSearch({
        results: (q) => [{ title: q, url: `https://example.com/${encodeURIComponent(q)}`, snippet: `About ${q}.` }],
        // A few milliseconds that differ by query, so searches end in varying orders.
        delayMs: (q) => (q.length * args.seed) % 3,
      })
      const agent = createAgent({ llm, search, pipelining, strategy: graphReader({ concurrency: args.concurrency, maxSteps: 20 }) })
      const run = agent.research('q?')
      const events = await collect(run)
      const byId = new Map(ofType(events, 'query').map((e) => [e.queryId, e.query]))
      const results = ofType(events, 'result')
      return {
        // The nodes that went on to their model calls, and every search made.
        explored: llm.calls
          .filter((req) => roleOf(req) === 'extractor')
          .map(queryOf)
          .sort(),
        searched: search.calls.filter((q) => !q.startsWith('decoy')).sort(),
        decoysStarted: search.calls.filter((q) => q.startsWith('decoy')).length,
        aborted: results.filter((e) => e.error?.code === 'aborted').map((e) => byId.get(e.queryId)!),
        facts: (await run.result).facts.map((f) => f.text).sort(),
        reason: (await run.result).reason,
        modelPeak: llm.inFlight.peak,
      }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          chunkSize: fc.integer({ min: 1, max: 12 }),
          concurrency: fc.integer({ min: 2, max: 4 }),
          seed: fc.integer({ min: 1, max: 1000 }),
          decoys: fc.record({ plan: fc.boolean(), checks: fc.boolean() }),
        }),
        async (args) => {
          const piped = await outcome(true, args)
          const whole = await outcome(false, args)
          expect(whole.explored).toHaveLength(9)
          expect(piped.explored).toEqual(whole.explored)
          // Each planned or proposed query searched once: a node started early is taken over, not searched again.
          expect(piped.searched).toEqual(whole.searched)
          expect(new Set(piped.searched).size).toBe(9)
          expect(piped.facts).toEqual(whole.facts)
          expect(piped.reason).toBe(whole.reason)
          // Only pipelining starts a decoy (each sighted as its reply streams), and only decoys are ever
          // cancelled. A decoy's search reaches the provider only if a slot of the run's limit frees
          // before the parse cancels it: one still waiting for a slot never starts.
          expect(whole.decoysStarted).toBe(0)
          expect(piped.decoysStarted).toBeLessThanOrEqual((args.decoys.plan ? 1 : 0) + (args.decoys.checks ? 9 : 0))
          expect(whole.aborted).toEqual([])
          for (const query of piped.aborted) expect(query).toMatch(/^decoy/)
          expect(piped.modelPeak).toBeLessThanOrEqual(args.concurrency)
        },
      ),
      { numRuns: 25 },
    )
  })
})
