import { describe, expect, it } from 'vitest'
import { createAgent, type ResearchEvent } from '../../../src/index.js'
import { graphReader } from '../../../src/strategy.js'
import { ProviderError } from '../../../src/index.js'
import { shownText } from '../../support/shown-text.js'
import { estimateTokens } from '../../../src/strategy.js'
import { assertEventInvariants, mockFetch, mockSearch, scriptedLLM, searchFailure, sleep } from '../../../src/testing/index.js'
import { calls, collect, graphModel, ofType, queryOf, result, roleOf } from './helpers.js'
import { heldCalls } from '../held-calls.js'

const baker = result('https://news.example/nobel-2024', 'The 2024 Nobel Prize in Chemistry went to David Baker.', 'Nobel 2024')
const hassabis = result('https://science.example/alphafold', 'Demis Hassabis and John Jumper shared the other half.', 'AlphaFold')

describe('graph-reader', () => {
  it('plans, explores, files facts and answers the original question with dense citations', async () => {
    const llm = graphModel({
      plan: 'Step 1: think. Step 2: plan.\n```json\n{"goal": "find the laureates", "steps": ["search"], "key_elements": ["Nobel 2024"], "queries": ["nobel chemistry 2024", "alphafold nobel"]}\n```',
      extract: (req) =>
        queryOf(req) === 'nobel chemistry 2024'
          ? '{"facts": [{"text": "The 2024 Nobel Prize in Chemistry went to David Baker", "source": 1}]}'
          : '{"facts": [{"text": "Hassabis and Jumper shared half of the 2024 chemistry prize", "source": "https://science.example/alphafold"}]}',
      final: 'Baker [2] and Hassabis with Jumper [1]; also [7].',
    })
    const search = mockSearch({ results: { 'nobel chemistry 2024': [baker], 'alphafold nobel': [hassabis] } })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('Who won the 2024 chemistry Nobel?')
    const events = await collect(run)
    const res = await run.result

    expect(ofType(events, 'plan')[0]).toMatchObject({ keyElements: ['Nobel 2024'], queries: ['nobel chemistry 2024', 'alphafold nobel'] })
    expect(res.facts.map((f) => f.sources)).toEqual([[baker.url], [hassabis.url]])
    // The finalizer saw sources numbered by first appearance; its [2] and [1] become a dense [1], [2] and the invented [7] goes.
    expect(res.answer).toBe('Baker [1] and Hassabis with Jumper [2]; also.')
    expect(res.citations).toEqual([
      { index: 1, url: hassabis.url, title: 'AlphaFold' },
      { index: 2, url: baker.url, title: 'Nobel 2024' },
    ])
    const finalPrompt = calls(llm, 'finalizer')[0]!.prompt
    expect(finalPrompt).toContain('Question: Who won the 2024 chemistry Nobel?')
    expect(res.knowledge).toContain('David Baker')
    // Two model calls per explored node: extractor + answer check.
    expect(calls(llm, 'extractor')).toHaveLength(2)
    expect(calls(llm, 'neighbor')).toHaveLength(2)
    expect(res.reason).toBe('answered')
  })

  it('keeps prior citation numbers from the conversation', async () => {
    const llm = graphModel({ extract: () => '{"facts": [{"text": "Baker won", "source": 1}]}', final: 'Baker [1].' })
    const search = mockSearch({ results: () => [baker] })
    const prior = [{ index: 1, url: 'https://old.example/a' }]
    const res = await createAgent({ llm, search, strategy: graphReader({}) }).answer('q?', { citations: prior })
    expect(res.answer).toBe('Baker [2].')
    expect(res.citations).toEqual([{ index: 2, url: baker.url, title: 'Nobel 2024' }])
  })

  it('stops as soon as an answer check says the notebook suffices, dropping queued nodes', async () => {
    const llm = graphModel({
      plan: '{"queries": ["one", "two", "three"]}',
      extract: () => '{"facts": [{"text": "A useful fact", "source": 1}]}',
      check: () => '{"answerable": true}',
    })
    const search = mockSearch({ results: () => [baker] })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?')
    const events = await collect(run)
    expect(search.calls).toEqual(['one'])
    expect(ofType(events, 'plan').at(-1)!.text).toMatch(/answers the question/)
    expect((await run.result).reason).toBe('answered')
  })

  it('does not stop on an empty notebook even when the check says it could answer', async () => {
    const llm = graphModel({ plan: '{"queries": ["one", "two"]}', check: () => '{"answerable": true}' })
    const search = mockSearch({ results: () => [baker] })
    await collect(createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?'))
    expect(search.calls).toEqual(['one', 'two'])
  })

  it('aborts in-flight nodes on an early stop and keeps the events that finished', async () => {
    const llm = graphModel({
      plan: '{"queries": ["fast", "slow one", "slow two"]}',
      extract: () => '{"facts": [{"text": "Enough", "source": 1}]}',
      check: () => '{"answerable": true}',
    })
    const search = mockSearch({ results: () => [baker], delayMs: (q) => (q === 'fast' ? 0 : 60_000) })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 4 }) }).research('q?')
    const events = await collect(run)
    expect(search.calls).toEqual(['fast', 'slow one', 'slow two'])
    expect(search.signals.slice(1).every((s) => s?.aborted)).toBe(true)
    // Every query still gets its one result: the cut-short ones say they were aborted.
    const results = ofType(events, 'result')
    expect(results.map((e) => e.queryId).sort()).toEqual(
      ofType(events, 'query')
        .map((e) => e.queryId)
        .sort(),
    )
    expect(results.map((e) => e.error?.code ?? 'ok')).toEqual(['ok', 'aborted', 'aborted'])
    expect((await run.result).answer).toBe('The answer [1].')
  })

  it("ends promptly on an early stop while other nodes still have work queued in the run's limit", async () => {
    const slow = ['https://r.example/1', 'https://r.example/2', 'https://r.example/3', 'https://r.example/4']
    // Concurrency 3: the answer check of "answers" holds one slot of the run's limit and two slow
    // pages of "reads" the other two; its other two fetches wait in line. The check answers once
    // both slow pages are held: the slot it frees goes to the third fetch, and the stop that
    // follows aborts the three in flight while the fourth still waits, so it never starts.
    const signals: (AbortSignal | undefined)[] = []
    let slowStarted = 0
    let slotsHeld = () => {}
    const bothSlotsHeld = new Promise<void>((resolve) => (slotsHeld = resolve))
    let checking = () => {}
    const checkStarted = new Promise<void>((resolve) => (checking = resolve))
    const llm = graphModel({
      plan: '{"queries": ["answers", "reads"]}',
      extract: () => '{"facts": [{"text": "Enough", "source": 1}]}',
      check: async (req) => {
        if (queryOf(req) !== 'answers') return '{"answerable": false}'
        checking()
        await bothSlotsHeld
        return '{"answerable": true}'
      },
    })
    const results = mockSearch({ results: (q) => (q === 'answers' ? [baker] : slow.map((url) => result(url))) })
    // "reads" finds its pages once the check holds its slot, so the slow pages never take the check's.
    const search = {
      async search(query: string, opts: { signal?: AbortSignal; limit?: number }) {
        if (query === 'reads') await checkStarted
        return results.search(query, opts)
      },
    }
    const fetch = {
      async fetch(url: string, opts: { signal?: AbortSignal } = {}) {
        signals.push(opts.signal)
        if (url.startsWith('https://r.example/')) {
          if (++slowStarted === 2) slotsHeld()
          await sleep(60_000, opts.signal)
        }
        return { url, text: `Page at ${url}.` }
      },
    }
    const run = createAgent({ llm, search, fetch, strategy: graphReader({ concurrency: 3, maxPagesPerNode: 4 }) }).research('q?')
    // Within the suite's timeout, far below the 60 s the held fetches would take.
    await collect(run)
    // Baker's page and three slow ones: the fourth was still waiting for a slot, and never started.
    expect(slowStarted).toBe(3)
    expect(signals).toHaveLength(4)
    expect(signals.every((s) => s?.aborted)).toBe(true)
    expect((await run.result).reason).toBe('answered')
  })

  it('explores at most maxSteps nodes, counting only nodes actually explored', async () => {
    let n = 0
    const llm = graphModel({ plan: '{"queries": ["start"]}', check: () => `{"answerable": false, "queries": ["next ${++n}", "START"]}` })
    const search = mockSearch({ results: () => [baker] })
    const run = createAgent({ llm, search, strategy: graphReader({ maxSteps: 3, concurrency: 1 }) }).research('q?')
    const events = await collect(run)
    expect(search.calls).toEqual(['start', 'next 1', 'next 2'])
    expect(ofType(events, 'query').map((e) => e.depth)).toEqual([0, 1, 2])
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('max-iterations')
    expect((await run.result).reason).toBe('max-iterations')
  })

  it('keeps the answer check within 6,000 tokens: past it, the oldest searches fold into one line', async () => {
    // 150 searches of ~175 characters: listed whole, the answer check would take ~6,700 tokens.
    const long = (n: number) => `battery cathode chemistry change in European plants, aspect number ${n}, ${'with its supply contracts '.repeat(4)}`.trim()
    let n = 0
    const llm = graphModel({ plan: `{"queries": ["${long(0)}"]}`, check: () => `{"answerable": false, "queries": ["${long(++n)}"]}` })
    const search = mockSearch({ results: () => [baker] })
    await collect(createAgent({ llm, search, strategy: graphReader({ maxSteps: 150, concurrency: 1 }) }).research('q?'))
    const checks = calls(llm, 'neighbor')
    expect(checks).toHaveLength(150)
    for (const req of checks) expect(estimateTokens(shownText(req))).toBeLessThanOrEqual(6000)
    expect(checks[100]!.prompt).not.toContain('earlier searches not listed')
    const last = checks.at(-1)!.prompt
    expect(last).toMatch(/\((\d+) earlier searches not listed; the words searched most: [^)]*aspect/)
    // The newest searches stay listed, the one just run last.
    expect(last).toContain(`- ${long(148)}\n- ${long(149)}\n\nLast search: ${long(149)}`)
  })

  it('keeps the answer check within graphReader.contextTokens when set lower, and refuses a budget below 1,000', async () => {
    const long = (n: number) => `solid state electrolyte supplier question number ${n}, ${'with its pilot line output '.repeat(4)}`.trim()
    let n = 0
    const llm = graphModel({ plan: `{"queries": ["${long(0)}"]}`, check: () => `{"answerable": false, "queries": ["${long(++n)}"]}` })
    const search = mockSearch({ results: () => [baker] })
    await collect(createAgent({ llm, search, strategy: 'graph-reader', graphReader: { maxSteps: 60, concurrency: 1, contextTokens: 1500 } }).research('q?'))
    const checks = calls(llm, 'neighbor')
    expect(checks).toHaveLength(60)
    for (const req of checks) expect(estimateTokens(shownText(req))).toBeLessThanOrEqual(1500)
    expect(checks.at(-1)!.prompt).toMatch(/earlier searches not listed/)
    expect(() => createAgent({ llm, search, strategy: 'graph-reader', graphReader: { contextTokens: 999 } })).toThrow(/graphReader\.contextTokens/)
  })

  it('never searches a query twice, comparing case, whitespace and punctuation', async () => {
    const llm = graphModel({
      plan: '{"queries": ["Nobel prize 2024", "nobel   PRIZE 2024!"]}',
      check: () => '{"answerable": false, "queries": ["nobel prize, 2024", "Baker’s lab"]}',
    })
    const search = mockSearch({ results: () => [baker] })
    await collect(createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?'))
    expect(search.calls).toEqual(['Nobel prize 2024', 'Baker’s lab'])
  })

  it('deep-reads each URL once per run, skips ad URLs, and cuts page text before extraction', async () => {
    const ad = result('https://duckduckgo.com/y.js?ad_provider=x&u3=https://shop.example', 'Buy now!')
    const longPage = `First sentence of the page. ${'filler words here. '.repeat(200)}END-MARKER`
    const llm = graphModel({ plan: '{"queries": ["one", "two"]}' })
    const search = mockSearch({ results: () => [ad, baker, hassabis] })
    const fetch = mockFetch({ pages: { [baker.url]: longPage, [hassabis.url]: 'AlphaFold page.' } })
    const run = createAgent({ llm, search, fetch, strategy: graphReader({ concurrency: 2, pageChars: 100 }) }).research('q?')
    const events = await collect(run)
    expect(fetch.calls.sort()).toEqual([hassabis.url, baker.url].sort())
    expect(ofType(events, 'page')).toHaveLength(2)
    const prompts = calls(llm, 'extractor').map((r) => r.prompt)
    expect(prompts.join('\n')).not.toContain('y.js')
    expect(prompts.join('\n')).toContain('First sentence of the page.')
    expect(prompts.join('\n')).not.toContain('END-MARKER')
  })

  it('deep-reads local corpus documents (file: URLs) as it does web pages', async () => {
    const doc = result('file:///notes/sky.md#why-the-sky-is-blue', 'Why the sky is blue.', 'Sky')
    const llm = graphModel({ plan: '{"queries": ["sky"]}' })
    const fetch = mockFetch({ pages: { [doc.url]: 'The whole note: Rayleigh scattering, in full.' } })
    const events = await collect(createAgent({ llm, search: mockSearch({ results: () => [doc] }), fetch, strategy: 'graph-reader' }).research('q?'))
    expect(fetch.calls).toEqual([doc.url])
    expect(ofType(events, 'page')).toHaveLength(1)
    expect(
      calls(llm, 'extractor')
        .map((r) => r.prompt)
        .join('\n'),
    ).toContain('Rayleigh scattering, in full.')
  })

  it('checks fact sources against the URLs the node saw: corrects same-host inventions, drops the rest', async () => {
    const llm = graphModel({
      plan: '{"queries": ["one"]}',
      extract: () =>
        JSON.stringify({
          facts: [
            { text: 'Fact with a near URL', source: 'https://news.example/nobel-2024-winners' },
            { text: 'Fact with an invented URL', source: 'https://invented.example/page' },
            { text: 'Fact with a bad number', source: 9 },
            { text: 'Fact with a good number', source: '[2]' },
          ],
        }),
    })
    const search = mockSearch({ results: () => [baker, hassabis] })
    const run = createAgent({ llm, search, strategy: graphReader({}) }).research('q?')
    const events = await collect(run)
    expect((await run.result).facts.map((f) => [f.text, f.sources])).toEqual([
      ['Fact with a near URL', [baker.url]],
      ['Fact with an invented URL', []],
      ['Fact with a bad number', []],
      ['Fact with a good number', [hassabis.url]],
    ])
    expect(ofType(events, 'warning').find((w) => w.code === 'invented-source')?.message).toMatch(/1 corrected .* 2 dropped/)
  })

  it('supersedes a stored fact with a longer one that contains it', async () => {
    const llm = graphModel({
      plan: '{"queries": ["one", "two"]}',
      extract: (req) =>
        queryOf(req) === 'one' ? '{"facts": [{"text": "2024", "source": 1}]}' : '{"facts": [{"text": "The 2024 Nobel Prize went to Baker", "source": 1}]}',
    })
    const search = mockSearch({ results: (q) => (q === 'one' ? [hassabis] : [baker]) })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?')
    const facts = ofType(await collect(run), 'fact')
    expect(facts[1]!.supersedes).toEqual([facts[0]!.fact.id])
    expect((await run.result).facts).toEqual([
      { id: facts[1]!.fact.id, text: 'The 2024 Nobel Prize went to Baker', sources: [baker.url, hassabis.url], queryId: 'q2' },
    ])
  })

  it('runs searches concurrently at concurrency 4 and strictly one at a time at concurrency 1', async () => {
    for (const concurrency of [1, 4]) {
      const held = heldCalls()
      const llm = graphModel({ plan: '{"queries": ["a", "b", "c", "d", "e"]}' })
      const search = mockSearch({
        results: async () => {
          await held.hold()
          return [baker]
        },
      })
      const run = collect(createAgent({ llm, search, strategy: graphReader({ concurrency }) }).research('q?'))
      // Every search waits for the test: `concurrency` of them start, the next only when one
      // is released.
      for (let released = 0; released < 5; released++) {
        await held.arrived(Math.min(5, released + concurrency))
        expect(held.count).toBe(Math.min(5, released + concurrency))
        expect(search.inFlight.current).toBeLessThanOrEqual(concurrency)
        held.release(released)
      }
      await run
      expect(search.calls).toHaveLength(5)
      expect(search.inFlight.peak).toBe(concurrency)
      if (concurrency === 1) expect(llm.inFlight.peak).toBe(1)
    }
  })

  it('gives the same events in the same order at concurrency 1', async () => {
    const once = async () => {
      let n = 0
      const llm = graphModel({
        plan: '{"queries": ["a", "b", "c"]}',
        extract: (req) => `{"facts": [{"text": "fact from ${queryOf(req)}", "source": 1}]}`,
        check: () => `{"queries": ["child ${++n}"]}`,
        latencyMs: 1,
      })
      const search = mockSearch({ results: (q) => [result(`https://x.example/${encodeURIComponent(q)}`)], delayMs: (q) => (q.length % 3) * 2 })
      const events = await collect(createAgent({ llm, search, strategy: graphReader({ concurrency: 1, maxSteps: 6 }) }).research('q?'))
      return events.map((e) => (e.type === 'query' ? `query ${e.query}` : e.type === 'fact' ? `fact ${e.fact.text}` : e.type))
    }
    const first = await once()
    expect(await once()).toEqual(first)
    expect(first.filter((e) => e.startsWith('query'))).toEqual(['query a', 'query b', 'query c', 'query child 1', 'query child 2', 'query child 3'])
  })

  it('aborts every in-flight search and model call when the run is cancelled mid-exploration', async () => {
    const llm = graphModel({ plan: '{"queries": ["a", "b", "c"]}', latencyMs: 0 })
    const search = mockSearch({ results: () => [baker], delayMs: 60_000 })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 4 }) }).research('q?')
    const events: ResearchEvent[] = []
    let queries = 0
    for await (const event of run) {
      events.push(event)
      if (event.type === 'query' && ++queries === 3) run.abort()
    }
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    expect(search.signals).toHaveLength(3)
    expect(search.signals.every((s) => s?.aborted)).toBe(true)
    expect(llm.calls.every((req) => req.signal?.aborted)).toBe(true)
    expect((await run.result).reason).toBe('aborted')
  })

  it('turns a failing search into a warning and goes on', async () => {
    const llm = graphModel({ plan: '{"queries": ["broken", "fine"]}', extract: () => '{"facts": [{"text": "Fine fact", "source": 1}]}' })
    const search = mockSearch({ results: () => [baker], fail: (q) => (q === 'broken' ? searchFailure() : undefined) })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?')
    const events = await collect(run)
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('http')
    expect((await run.result).facts.map((f) => f.text)).toEqual(['Fine fact'])
    // No results, no extractor call for that node.
    expect(calls(llm, 'extractor')).toHaveLength(1)
  })

  it('ends only the failing node when its model call fails, and goes on', async () => {
    const llm = scriptedLLM({
      replies: (req) => {
        const role = roleOf(req)
        if (role === 'planner') return '{"queries": ["bad", "good"]}'
        if (role === 'extractor' && queryOf(req) === 'bad')
          return { text: '', error: new ProviderError('model overloaded', { code: 'http', provider: 'mock', status: 503 }) }
        if (role === 'extractor') return '{"facts": [{"text": "Good fact", "source": 1}]}'
        if (role === 'neighbor') return '{"answerable": false}'
        return 'Answer [1].'
      },
    })
    const search = mockSearch({ results: () => [baker] })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?')
    const events = await collect(run)
    expect(ofType(events, 'warning').find((w) => w.code === 'node-failed')?.message).toMatch(/"bad".*model overloaded/)
    expect((await run.result).facts.map((f) => f.text)).toEqual(['Good fact'])
    expect(search.calls).toEqual(['bad', 'good'])
  })

  it('announces a known fact again, same id, when it gains a source', async () => {
    const llm = graphModel({ plan: '{"queries": ["one", "two"]}', extract: () => '{"facts": [{"text": "Baker won the prize", "source": 1}]}' })
    const search = mockSearch({ results: (q) => (q === 'one' ? [baker] : [hassabis]) })
    const run = createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?')
    const facts = ofType(await collect(run), 'fact')
    expect(facts.map((e) => [e.fact.id, e.fact.sources])).toEqual([
      ['f1', [baker.url]],
      ['f1', [baker.url, hassabis.url]],
    ])
    expect((await run.result).facts).toHaveLength(1)
  })

  it('searches the question itself when the plan cannot be read', async () => {
    const llm = graphModel({ plan: 'I am not sure what to do.' })
    const search = mockSearch({ results: () => [baker] })
    const run = createAgent({ llm, search, strategy: graphReader({}) }).research('Who won?')
    const events = await collect(run)
    expect(search.calls).toEqual(['Who won?'])
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('unparseable-output')
  })

  it('warns on unreadable extractor and check replies and keeps exploring', async () => {
    const llm = graphModel({ plan: '{"queries": ["a", "b"]}', extract: () => 'gibberish', check: () => 'hmm' })
    const search = mockSearch({ results: () => [baker] })
    const events = await collect(createAgent({ llm, search, strategy: graphReader({ concurrency: 1 }) }).research('q?'))
    expect(search.calls).toEqual(['a', 'b'])
    expect(ofType(events, 'warning').filter((w) => w.code === 'unparseable-output')).toHaveLength(4)
    expect(ofType(events, 'answer')[0]!.text).toBe('No facts were found for this question.')
  })

  it('condenses a large notebook in batches before the finalizer', async () => {
    const llm = graphModel({
      plan: '{"queries": ["a"]}',
      extract: () => JSON.stringify({ facts: Array.from({ length: 12 }, (_, i) => ({ text: `Distinct fact number ${i} about topic${i}`, source: 1 })) }),
      condense: () => '{"facts": [{"text": "Condensed fact", "sources": [1]}]}',
    })
    const search = mockSearch({ results: () => [baker] })
    const run = createAgent({ llm, search, strategy: graphReader({ condenseAbove: 5, condenseBatch: 5 }) }).research('q?')
    await collect(run)
    expect(calls(llm, 'condenser')).toHaveLength(3)
    const finalPrompt = calls(llm, 'finalizer')[0]!.prompt
    expect(finalPrompt).toContain('- Condensed fact [1]')
    expect(finalPrompt).not.toContain('Distinct fact number')
    expect((await run.result).facts).toHaveLength(12)
  })

  it('builds on earlier knowledge: shown to the planner and the finalizer, carried into result.knowledge', async () => {
    const llm = graphModel({ plan: '{"queries": ["a"]}', extract: () => '{"facts": [{"text": "New fact", "source": 1}]}' })
    const search = mockSearch({ results: () => [baker] })
    const res = await createAgent({ llm, search, strategy: graphReader({}) }).answer('And then?', { knowledge: 'Earlier: Baker won in 2024.' })
    expect(calls(llm, 'planner')[0]!.prompt).toContain('Earlier: Baker won in 2024.')
    expect(calls(llm, 'finalizer')[0]!.prompt).toContain('Earlier: Baker won in 2024.')
    expect(res.knowledge).toBe(`- New fact (${baker.url})\nEarlier: Baker won in 2024.`)
  })

  it('with maxSteps 0 searches nothing and answers without a model call when nothing is known', async () => {
    const llm = graphModel({})
    const search = mockSearch({ results: () => [baker] })
    const run = createAgent({ llm, search, strategy: graphReader({ maxSteps: 0 }) }).research('q?')
    const events = await collect(run)
    expect(search.calls).toEqual([])
    expect(calls(llm, 'finalizer')).toHaveLength(0)
    expect(ofType(events, 'answer')[0]!.text).toBe('No facts were found for this question.')
    expect((await run.result).reason).toBe('max-iterations')
  })

  it('rejects invalid options at construction', () => {
    expect(() => graphReader({ concurrency: 0 })).toThrow(/concurrency/)
    expect(() => graphReader({ maxSteps: 1.5 })).toThrow(/maxSteps/)
  })
})
