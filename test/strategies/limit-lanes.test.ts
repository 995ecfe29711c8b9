/**
 * The run's one limit has a lane per kind of request: model calls take `concurrency` slots of
 * their own, searches and page reads (and a strategy's own I/O, by default) `concurrency` of
 * theirs. So a search a streaming reply starts early (pipelining) never waits for the slots the
 * run's model calls hold. Providers here wait on promises the test settles; where a test must
 * see that something did not happen, it lets the event loop turn a fixed number of times (no
 * timers run here, so every promise chain has settled by then): nothing depends on the clock.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createAgent, LaconicError, type LLMChunk, type LLMProvider, type LLMRequest, type SearchProvider } from '../../src/index.js'
import { createMerge, defineStrategy, graphReader, type StrategyContext, type StrategyEvent } from '../../src/strategy.js'
import { queryOf, roleOf } from './graph-reader/helpers.js'

/** Settles after `count` turns of the event loop: every chain of promises that waits on no timer has run by then. */
async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

/** A model whose replies come from `pieces` (a piece waits for its `after`), counting the calls in flight; a search that notes how many were in flight as it started. */
function world(pieces: (req: LLMRequest) => readonly { text: string; after?: Promise<void> }[]) {
  const models = { inFlight: 0 }
  const log: string[] = []
  const searched = new Map<string, { resolve: () => void; promise: Promise<void> }>()
  const whenSearched = (query: string) => {
    if (!searched.has(query)) searched.set(query, deferred())
    return searched.get(query)!.promise
  }
  const modelsAtSearch = new Map<string, number>()
  const llm: LLMProvider = {
    local: true,
    async *stream(req): AsyncGenerator<LLMChunk> {
      models.inFlight++
      try {
        for (const piece of pieces(req)) {
          await piece.after
          yield { type: 'text', text: piece.text }
        }
        yield { type: 'usage', inputTokens: 10, outputTokens: 10 }
      } finally {
        models.inFlight--
      }
    },
  }
  const search: SearchProvider = {
    async search(query) {
      log.push(`search ${query}`)
      modelsAtSearch.set(query, models.inFlight)
      void whenSearched(query)
      searched.get(query)!.resolve()
      return [{ title: query, url: `https://example.com/${encodeURIComponent(query)}`, snippet: `About ${query}.` }]
    },
  }
  return { llm, search, log, whenSearched, modelsAtSearch }
}

describe("the run's limit, a lane per kind of request", () => {
  it('starts a search a streaming reply names while the model calls hold every slot of theirs (concurrency 1)', async () => {
    let w!: ReturnType<typeof world>
    // The reply names its query, then ends once the search started (or, when it cannot start, after the event loop went idle).
    const named = deferred()
    w = world(() => [{ text: 'query: early' }, { text: ' (done)', after: Promise.race([w.whenSearched('early'), named.promise.then(() => turns())]) }])
    const probe = defineStrategy({
      name: 'lanes-early-search',
      concurrency: () => 1,
      async *run(_question, ctx) {
        const merge = createMerge<StrategyEvent>()
        merge.add(
          ctx.complete(
            'planner',
            { prompt: 'plan' },
            {
              onText: (text) => {
                if (!text.includes('early')) return
                merge.add(ctx.runSearch('early'))
                named.resolve()
              },
            },
          ),
        )
        yield* merge
        yield { type: 'answer', text: 'done [1]', citations: [] }
      },
    })
    const run = createAgent({ llm: w.llm, search: w.search, strategy: probe() }).research('q?')
    for await (const _ of run);
    expect((await run.result).reason).toBe('answered')
    // The search reached its provider while the one model call was still streaming.
    expect(w.modelsAtSearch.get('early')).toBe(1)
  })

  it("ctx.limit takes a slot of the lane its kind names: 'model' work holds back model calls, not searches or 'network' work", async () => {
    const w = world(() => [{ text: 'reply' }])
    const seen: { whileModelWorkHeld: string[]; after: string[] } = { whileModelWorkHeld: [], after: [] }
    const probe = defineStrategy({
      name: 'lanes-ctx-limit',
      concurrency: () => 1,
      async *run(_question, ctx) {
        const log = w.log
        const held = deferred()
        const modelWork = ctx.limit(
          async () => {
            log.push('model work')
            await held.promise
            log.push('model work ends')
          },
          { kind: 'model' },
        )
        const networkWork = ctx.limit(async () => {
          log.push('network work')
        })
        const merge = createMerge<StrategyEvent>()
        merge.add(
          (async function* () {
            yield* ctx.complete('planner', { prompt: 'p' })
            log.push('model call ends')
          })(),
        )
        merge.add(ctx.runSearch('q'))
        const reading = (async () => {
          for await (const _ of merge);
        })()
        await turns()
        seen.whileModelWorkHeld = [...log]
        held.resolve()
        await Promise.all([modelWork, networkWork, reading])
        seen.after = [...log]
        yield { type: 'answer', text: 'done', citations: [] }
      },
    })
    const run = createAgent({ llm: w.llm, search: w.search, strategy: probe() }).research('q?')
    for await (const _ of run);
    expect((await run.result).reason).toBe('answered')
    // The model lane's one slot is held: the model call waits; the network lane's work and search go on.
    expect(seen.whileModelWorkHeld.sort()).toEqual(['model work', 'network work', 'search q'])
    expect(seen.after.slice(3)).toEqual(['model work ends', 'model call ends'])
  })

  it("names its lanes in ctx.limit's type", () => {
    expectTypeOf<Parameters<StrategyContext['limit']>[1]>().toEqualTypeOf<{ kind?: 'model' | 'network' } | undefined>()
  })

  it('refuses a kind that is not a lane with a config error naming the kinds', async () => {
    let refused: unknown
    const probe = defineStrategy({
      name: 'lanes-bad-kind',
      async *run(_question, ctx) {
        refused = await ctx.limit(async () => 'ran', { kind: 'gpu' as 'model' }).catch((error: unknown) => error)
        yield { type: 'answer', text: 'done', citations: [] }
      },
    })
    const w = world(() => [])
    await createAgent({ llm: w.llm, search: w.search, strategy: probe() }).answer('q?')
    expect(refused).toBeInstanceOf(LaconicError)
    expect(refused).toMatchObject({ code: 'config', message: expect.stringContaining('"gpu"'), hint: expect.stringContaining("'network'") })
  })
})

describe("graph-reader's pipelining under the run's limit", () => {
  it('starts a child search as its query closes in a node check while `concurrency` node checks hold the model slots', async () => {
    let w!: ReturnType<typeof world>
    const betaChecking = deferred()
    const childNamed = deferred()
    // Both checks end once the child's search started (or, when it cannot start, once the event loop went idle).
    const childOrIdle = () => Promise.race([w.whenSearched('alpha child'), childNamed.promise.then(() => turns())])
    w = world((req) => {
      switch (roleOf(req)) {
        case 'planner':
          return [{ text: '{"key_elements": ["k"], "queries": ["alpha", "beta"], "goal": "g", "steps": ["s"]}' }]
        case 'extractor':
          return [{ text: `{"facts": [{"text": "Something about ${queryOf(req)}", "source": 1}]}` }]
        case 'neighbor': {
          const query = queryOf(req)
          if (query === 'alpha') {
            // Names its child only once beta's check is in flight too: both model slots are held then.
            const named = betaChecking.promise.then(() => childNamed.resolve())
            return [
              { text: '{"answerable": false, "queries": ["alpha child"]', after: betaChecking.promise },
              { text: ', "missing": "m"}', after: named.then(childOrIdle) },
            ]
          }
          if (query === 'beta') {
            betaChecking.resolve()
            return [{ text: '{"answerable": false, "queries": []', after: childOrIdle() }, { text: ', "missing": "m"}' }]
          }
          return [{ text: '{"answerable": false, "queries": []}' }]
        }
        case 'condenser':
          return [{ text: '{"facts": []}' }]
        default:
          return [{ text: 'The answer [1].' }]
      }
    })
    const agent = createAgent({ llm: w.llm, search: w.search, strategy: graphReader({ concurrency: 2, maxSteps: 8 }) })
    const run = agent.research('q?')
    for await (const _ of run);
    expect((await run.result).reason).toBe('answered')
    expect(w.log).toContain('search alpha child')
    // Pipelining's point: the child's search ran while both node checks (2 = concurrency) still streamed.
    expect(w.modelsAtSearch.get('alpha child')).toBe(2)
  })
})
