import { describe, expect, it } from 'vitest'
import { createAgent, type LLMRequest, type SearchResult } from '../../../src/index.js'
import { reflect } from '../../../src/strategy.js'
import { mockSearch, scriptedLLM, searchFailure } from '../../../src/testing/index.js'
import { collect, ofType } from './helpers.js'
import { heldCalls } from '../held-calls.js'
import { roleOf } from '../../support/roles.js'

const doc = (id: string, snippet = `about ${id}`): SearchResult => ({ title: `Title ${id}`, url: `https://${id}.example/page`, snippet })

/** A planner that answers the query and reflection prompts; `reflection(i)` is the i-th reflection reply. */
function planner(queries: string, reflection: (i: number) => string) {
  let reflections = 0
  return scriptedLLM({
    replies: (req: LLMRequest) => {
      if (roleOf(req.system) === 'reflect queries') return queries
      if (roleOf(req.system) === 'reflect reflection') return reflection(reflections++)
      throw new Error(`unexpected planner prompt: ${req.system}`)
    },
  })
}

const enough = '{"slots": {"winner": "Argentina [1]"}, "need_more": false, "new_queries": []}'

describe('reflect', () => {
  it('searches the queries, dedupes by URL, reflects and streams a cited answer', async () => {
    const search = mockSearch({
      results: {
        'final winner': [doc('a'), { ...doc('b'), url: 'https://www.b.example/page/?utm_source=x' }],
        'final score': [{ ...doc('b'), url: 'https://b.example/page' }, doc('c')],
      },
    })
    const finalizer = scriptedLLM({ replies: ['Argentina won [1] on penalties [3].'] })
    const agent = createAgent({ models: { planner: planner('["final winner", "final score"]', () => enough), finalizer }, search, strategy: reflect({}) })
    const { events, result } = await collect(agent, 'Who won the 2022 final?')

    expect(search.calls).toEqual(['final winner', 'final score'])
    expect(result.reason).toBe('answered')
    expect(result.answer).toBe('Argentina won [1] on penalties [2].')
    expect(result.citations).toEqual([
      { index: 1, url: 'https://a.example/page', title: 'Title a' },
      { index: 2, url: 'https://c.example/page', title: 'Title c' },
    ])
    // b.example appears once in what the finalizer saw, under the URL first retrieved.
    const shown = finalizer.calls[0]!.prompt
    expect(shown.match(/b\.example/g)).toHaveLength(1)
    const plans = ofType(events, 'plan')
    expect(plans[0]!.queries).toEqual(['final winner', 'final score'])
    expect(plans[1]!.keyElements).toEqual(['winner'])
    expect(ofType(events, 'answer-token').length).toBeGreaterThan(1)
  })

  it('stops at maxSteps when the model always asks for more', async () => {
    const always = (i: number) => `{"slots": {"score": null}, "need_more": true, "new_queries": ["more ${i}"]}`
    for (const maxIterations of [1, 2, 3]) {
      const search = mockSearch({ results: () => [doc('a')] })
      const plan = planner('["first"]', always)
      const finalizer = scriptedLLM({ replies: ['Unknown score [1].'] })
      const agent = createAgent({ models: { planner: plan, finalizer }, search, strategy: reflect({ maxSteps: maxIterations }) })
      const { events, result } = await collect(agent, 'What was the score?')
      expect(result.reason).toBe('max-iterations')
      expect(search.calls).toEqual(['first', ...Array.from({ length: maxIterations - 1 }, (_, i) => `more ${i}`)])
      expect(plan.calls.filter((c) => roleOf(c.system) === 'reflect reflection')).toHaveLength(maxIterations)
      expect(ofType(events, 'warning').map((w) => w.code)).toContain('max-iterations')
      expect(result.answer).toBe('Unknown score [1].')
    }
  })

  it('stops without the cap when the new queries were all run already', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const repeat = () => '{"slots": {"score": null}, "need_more": true, "new_queries": ["First"]}'
    const agent = createAgent({
      models: { planner: planner('["first"]', repeat), finalizer: scriptedLLM({ replies: ['No score found [1].'] }) },
      search,
      strategy: reflect({ maxSteps: 5 }),
    })
    const { result } = await collect(agent, 'What was the score?')
    expect(search.calls).toEqual(['first'])
    expect(result.reason).toBe('answered')
  })

  it('warns about a failing query and answers from the others', async () => {
    const search = mockSearch({ results: { good: [doc('a')] }, fail: (q) => (q === 'bad' ? searchFailure() : undefined) })
    const agent = createAgent({
      models: { planner: planner('["bad", "good"]', () => enough), finalizer: scriptedLLM({ replies: ['Argentina [1].'] }) },
      search,
      strategy: reflect({}),
    })
    const { events, result } = await collect(agent, 'Who won?')
    const warnings = ofType(events, 'warning')
    expect(warnings.some((w) => w.message.includes('"bad"'))).toBe(true)
    expect(result.reason).toBe('answered')
    expect(result.citations).toEqual([{ index: 1, url: 'https://a.example/page', title: 'Title a' }])
  })

  it('searches the question itself when the queries cannot be read', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const agent = createAgent({
      models: { planner: planner('I would search for several things.', () => enough), finalizer: scriptedLLM({ replies: ['Yes [1].'] }) },
      search,
      strategy: reflect({}),
    })
    const { events } = await collect(agent, 'Who won?')
    expect(search.calls).toEqual(['Who won?'])
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('unparseable-output')
  })

  it('falls back on the result count when the reflection cannot be read', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const agent = createAgent({
      models: { planner: planner('["q"]', () => 'looks fine to me'), finalizer: scriptedLLM({ replies: ['Fine [1].'] }) },
      search,
      strategy: reflect({}),
    })
    const { events, result } = await collect(agent, 'Who won?')
    expect(result.reason).toBe('answered')
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('unparseable-output')
  })

  it('drops invented citation indices and numbers the rest densely in order of use', async () => {
    const search = mockSearch({ results: { q: [doc('a'), doc('b')] } })
    const finalizer = scriptedLLM({ replies: ['B holds [2][7]. A holds [1, 9]. Nothing [42].'], chunkSize: 3 })
    const agent = createAgent({ models: { planner: planner('["q"]', () => enough), finalizer }, search, strategy: reflect({}) })
    const { result } = await collect(agent, 'Which?')
    expect(result.answer).toBe('B holds [1]. A holds [2]. Nothing.')
    expect(result.citations.map((c) => [c.index, c.url])).toEqual([
      [1, 'https://b.example/page'],
      [2, 'https://a.example/page'],
    ])
  })

  it('keeps the answer within maxWords without cutting a word or a citation', async () => {
    const search = mockSearch({ results: { q: [doc('a'), doc('b')] } })
    const finalizer = scriptedLLM({ replies: ['Argentina beat France [1][2]. The final ended three all [2] after extra time.'], chunkSize: 2 })
    const agent = createAgent({ models: { planner: planner('["q"]', () => enough), finalizer }, search, strategy: reflect({ maxWords: 4 }) })
    const { result } = await collect(agent, 'Who won?')
    expect(result.answer).toBe('Argentina beat France [1][2]. The')
    expect(result.citations.map((c) => c.index)).toEqual([1, 2])
  })

  it('answers from prior answers without searching when they fill every slot', async () => {
    const search = mockSearch({ results: () => [doc('z')] })
    const plan = planner('["never"]', () => '{"slots": {"winner": "Argentina [1]"}, "need_more": false}')
    const finalizer = scriptedLLM({ replies: ['Argentina [1].'] })
    const agent = createAgent({ models: { planner: plan, finalizer }, search, strategy: reflect({}) })
    const citations = [{ index: 4, url: 'https://fifa.example/final', title: 'FIFA' }]
    const priorAnswers = [{ query: 'Who won the final?', answer: 'Argentina won [4].', sources: ['https://fifa.example/final'] }]
    const { result } = await collect(agent, 'Which team won?', { priorAnswers, citations })
    expect(search.calls).toEqual([])
    expect(plan.calls.some((c) => roleOf(c.system) === 'reflect queries')).toBe(false)
    expect(result.answer).toBe('Argentina [4].')
    expect(result.citations).toEqual(citations)
  })

  it('keeps citation numbers stable across two runs of a conversation', async () => {
    const search = mockSearch({ results: { first: [doc('a'), doc('b')], second: [doc('c'), doc('b')] } })
    const finalizer = scriptedLLM({ replies: ['A [1] and B [2].', 'C [1] and B again [2].'] })
    const plan = scriptedLLM({ replies: ['["first"]', enough, '["second"]', enough] })
    const agent = createAgent({ models: { planner: plan, finalizer }, search, strategy: reflect({}) })
    const one = await collect(agent, 'First question?')
    expect(one.result.answer).toBe('A [1] and B [2].')
    const two = await collect(agent, 'Follow-up?', { citations: one.result.citations })
    expect(two.result.answer).toBe('C [3] and B again [2].')
    expect(two.result.citations).toEqual([
      { index: 2, url: 'https://b.example/page', title: 'Title b' },
      { index: 3, url: 'https://c.example/page', title: 'Title c' },
    ])
  })

  it('runs the queries concurrently, bounded by reflect.concurrency', async () => {
    for (const concurrency of [1, 2, 4]) {
      const held = heldCalls()
      const search = mockSearch({
        results: async () => {
          await held.hold()
          return [doc('a')]
        },
      })
      const agent = createAgent({
        models: { planner: planner('["a", "b", "c", "d"]', () => enough), finalizer: scriptedLLM({ replies: ['A [1].'] }) },
        search,
        strategy: reflect({ concurrency }),
      })
      const run = collect(agent, 'Q?')
      // Each search waits for the test: `concurrency` of them start, and one more only
      // when one of those is released.
      for (let released = 0; released < 4; released++) {
        await held.arrived(Math.min(4, released + concurrency))
        expect(held.count).toBe(Math.min(4, released + concurrency))
        expect(search.inFlight.current).toBeLessThanOrEqual(concurrency)
        held.release(released)
      }
      await run
      expect(search.calls).toHaveLength(4)
      expect(search.inFlight.peak).toBe(concurrency)
    }
  })

  it('answers with the top result, cited, when the synthesizer writes nothing', async () => {
    const search = mockSearch({ results: { q: [doc('a', 'Argentina won the final on penalties.'), doc('b')] } })
    const agent = createAgent({
      models: { planner: planner('["q"]', () => enough), finalizer: scriptedLLM({ replies: ['<think>hmm</think>'] }) },
      search,
      strategy: reflect({ maxWords: 4 }),
    })
    const { events, result } = await collect(agent, 'Who won?')
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('empty-output')
    expect(result.answer).toBe('Argentina won the [1]')
    expect(result.citations).toEqual([{ index: 1, url: 'https://a.example/page', title: 'Title a' }])
  })

  it('answers plainly when no search returned anything', async () => {
    const search = mockSearch({ results: () => [] })
    const finalizer = scriptedLLM({ replies: [] })
    const agent = createAgent({
      models: { planner: planner('["q"]', () => '{"need_more": true, "new_queries": []}'), finalizer },
      search,
      strategy: reflect({}),
    })
    const { events, result } = await collect(agent, 'Q?')
    expect(finalizer.calls).toHaveLength(0)
    expect(result.citations).toEqual([])
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('no-sources')
  })
})
