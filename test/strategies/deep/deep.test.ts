import { describe, expect, it } from 'vitest'
import { createAgent, type AgentOptions, type SearchResult } from '../../../src/index.js'
import { deep } from '../../../src/strategy.js'
import { mockFetch, mockSearch, scriptedLLM, searchFailure } from '../../../src/testing/index.js'
import { collect, ofType } from '../reflect/helpers.js'
import { heldCalls } from '../held-calls.js'

type Script = Parameters<typeof scriptedLLM>[0]['replies']

const doc = (id: string, snippet = `about ${id}`): SearchResult => ({ title: `Title ${id}`, url: `https://${id}.example/page`, snippet })
const next = (q: string) => JSON.stringify({ is_complete: false, next_question: q, reasoning: 'needed' })
const done = '{"is_complete": true, "reasoning": "covered"}'
const sub = (answer: string, facts: { text: string; sources: number[] }[] = [], confidence = 0.8, more: string[] = []) =>
  JSON.stringify({ answer, confidence, facts, need_more: more.length > 0, queries: more })
const report = JSON.stringify({
  title: 'A and B',
  main_findings: ['A is x [1].', 'B is y [2][9].'],
  conclusions: ['Both hold [2].'],
  limitations: ['Small sample.'],
  recommendations: ['Read more.'],
  sources_summary: 'Two sources [1][2].',
})

function models(scripts: { planner: Script; extractor?: Script; finalizer?: Script; synthesizer?: Script }) {
  return {
    planner: scriptedLLM({ replies: scripts.planner }),
    extractor: scriptedLLM({ replies: scripts.extractor ?? [] }),
    finalizer: scriptedLLM({ replies: scripts.finalizer ?? [] }),
    synthesizer: scriptedLLM({ replies: scripts.synthesizer ?? [] }),
  }
}

function agentWith(m: ReturnType<typeof models>, search: AgentOptions['search'], options: AgentOptions = {}) {
  return createAgent({ models: m, search, ...options, strategy: 'deep' })
}

describe('deep', () => {
  it('plans one sub-question at a time, answers each, and writes a report', async () => {
    const search = mockSearch({ results: { 'What is A?': [doc('a')], 'What is B?': [doc('b'), doc('a')] } })
    const m = models({
      planner: [next('What is A?'), next('What is B?'), done],
      extractor: [
        sub('A is x [1].', [{ text: 'A is x', sources: [1] }], 0.9),
        sub(
          'B is y [1].',
          [
            { text: 'B is y', sources: [1] },
            { text: 'made up', sources: [7] },
          ],
          0.7,
        ),
      ],
      finalizer: ['A is x [1] and B is y [2].'],
      synthesizer: [report],
    })
    const { events, result } = await collect(agentWith(m, search), 'What are A and B?')

    expect(result.reason).toBe('answered')
    expect(search.calls).toEqual(['What is A?', 'What is B?'])
    expect(result.answer).toBe('A is x [1] and B is y [2].')
    expect(result.report).toEqual({
      title: 'A and B',
      executiveSummary: 'A is x [1] and B is y [2].',
      mainFindings: ['A is x [1].', 'B is y [2].'],
      conclusions: ['Both hold [2].'],
      limitations: ['Small sample.'],
      recommendations: ['Read more.'],
      sourcesSummary: 'Two sources [1][2].',
    })
    expect(result.citations).toEqual([
      { index: 1, url: 'https://a.example/page', title: 'Title a' },
      { index: 2, url: 'https://b.example/page', title: 'Title b' },
    ])
    expect(result.confidence).toBeUndefined()
    const facts = ofType(events, 'fact').map((e) => e.fact)
    expect(facts.map((f) => [f.id, f.text, f.sources])).toEqual([
      ['f1', 'A is x', ['https://a.example/page']],
      ['f2', 'B is y', ['https://b.example/page']],
    ])
    const queries = ofType(events, 'query')
    expect(facts[1]!.queryId).toBe(queries[1]!.queryId)
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('ungrounded-facts')
    expect(ofType(events, 'plan').map((p) => p.queries)).toEqual([['What is A?'], ['What is B?'], undefined])
    expect(ofType(events, 'knowledge-update').map((k) => k.iteration)).toEqual([1, 2])
    // The planner saw the first answer, with its source, before proposing the second question.
    expect(m.planner.calls[1]!.prompt).toContain('A1: A is x. [1] (confidence 0.9)')
  })

  it('stops at maxSteps when the planner always has another sub-question', async () => {
    for (const maxIterations of [1, 3]) {
      const search = mockSearch({ results: () => [doc('a')] })
      const m = models({
        planner: (_req, i) => next(`Sub-question ${i}?`),
        extractor: () => sub('Partial [1].'),
        finalizer: ['Partial [1].'],
        synthesizer: [report],
      })
      const { events, result } = await collect(agentWith(m, search, { deep: { maxSteps: maxIterations } }), 'Everything?')
      expect(result.reason).toBe('max-iterations')
      expect(m.planner.calls).toHaveLength(maxIterations)
      expect(search.calls).toHaveLength(maxIterations)
      expect(ofType(events, 'warning').map((w) => w.code)).toContain('max-iterations')
    }
  })

  it('treats a failing search as a warning and goes on to the next sub-question', async () => {
    const search = mockSearch({ results: { 'Second?': [doc('b')] }, fail: (q) => (q === 'First?' ? searchFailure() : undefined) })
    const m = models({
      planner: [next('First?'), next('Second?'), done],
      extractor: [sub('B [1].')],
      finalizer: ['B [1].'],
    })
    const { events, result } = await collect(agentWith(m, search, { deep: { mode: 'conversational' } }), 'Q?')
    expect(search.calls).toEqual(['First?', 'Second?'])
    expect(ofType(events, 'warning').some((w) => w.message.includes('"First?"'))).toBe(true)
    expect(m.extractor.calls).toHaveLength(1)
    expect(result.reason).toBe('answered')
    expect(result.answer).toBe('B [1].')
    // The failed sub-question has confidence 0; the answered one 0.8.
    expect(result.confidence).toBe(0.4)
  })

  it('answers conversationally with dense, real citations only', async () => {
    const search = mockSearch({ results: { 'Sub?': [doc('a'), doc('b')] } })
    const m = models({
      planner: [next('Sub?'), done],
      extractor: [sub('A and B [1][2].', [], 0.6)],
      finalizer: ['B first [2][5], then A [1], never [12].'],
    })
    const { result } = await collect(agentWith(m, search, { deep: { mode: 'conversational' } }), 'Q?')
    expect(result.answer).toBe('B first [1], then A [2], never.')
    expect(result.citations.map((c) => c.url)).toEqual(['https://b.example/page', 'https://a.example/page'])
    expect(result.confidence).toBe(0.6)
    expect(result.report).toBeUndefined()
  })

  it('rejects an empty or repeated sub-question with a warning', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const m = models({
      planner: [next('Sub?'), next('sub'), '{"is_complete": false}'],
      extractor: [sub('A [1].')],
      finalizer: ['A [1].'],
      synthesizer: [report],
    })
    const { events, result } = await collect(agentWith(m, search, { deep: { maxSteps: 5 } }), 'Q?')
    expect(search.calls).toEqual(['Sub?'])
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('repeated-question')
    expect(result.reason).toBe('answered')

    const m2 = models({ planner: ['{"is_complete": false, "next_question": "  "}'], extractor: [sub('A [1].')], finalizer: ['A [1].'], synthesizer: [report] })
    const search2 = mockSearch({ results: () => [doc('a')] })
    const second = await collect(agentWith(m2, search2, { deep: { maxSteps: 1 } }), 'Q?')
    expect(ofType(second.events, 'warning').map((w) => w.code)).toContain('empty-question')
    // With nothing known, the question itself is researched instead.
    expect(search2.calls).toEqual(['Q?'])
  })

  it('researches the question itself when the planner calls it complete with nothing known', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const m = models({ planner: [done, done], extractor: [sub('A [1].')], finalizer: ['A [1].'], synthesizer: [report] })
    const { events } = await collect(agentWith(m, search), 'Q?')
    expect(search.calls).toEqual(['Q?'])
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('forced-search')
  })

  it('skips research when prior answers already cover the question', async () => {
    const search = mockSearch({ results: () => [doc('z')] })
    const m = models({ planner: [done], finalizer: ['JWT and OAuth2 [1].'], synthesizer: [report] })
    const citations = [{ index: 3, url: 'https://auth.example/docs', title: 'Auth docs' }]
    const priorAnswers = [
      { query: 'What authentication methods are supported?', answer: 'JWT and OAuth2 [3].', confidence: 0.95, sources: ['https://auth.example/docs'] },
    ]
    const { result } = await collect(agentWith(m, search, { deep: { mode: 'conversational' } }), 'How does it authenticate?', { priorAnswers, citations })
    expect(search.calls).toEqual([])
    expect(m.extractor.calls).toHaveLength(0)
    expect(m.planner.calls[0]!.prompt).toContain('earlier in the conversation')
    expect(m.planner.calls[0]!.prompt).toContain('A1: JWT and OAuth2. [1] (confidence 0.95)')
    expect(result.answer).toBe('JWT and OAuth2 [3].')
    expect(result.citations).toEqual(citations)
    expect(result.confidence).toBe(0.95)
  })

  it("reads a caller's prior confidence like a model's: junk falls back, percentages scale", async () => {
    for (const [given, expected] of [
      [Number.NaN, 0.5],
      [80, 0.8],
      [-1, 0.5],
    ] as const) {
      const m = models({ planner: [done], finalizer: ['JWT [1].'] })
      const priorAnswers = [{ query: 'Auth?', answer: 'JWT.', confidence: given, sources: ['https://auth.example/docs'] }]
      const { events, result } = await collect(agentWith(m, mockSearch(), { deep: { mode: 'conversational' } }), 'How?', { priorAnswers })
      expect(result.confidence).toBe(expected)
      expect(JSON.parse(JSON.stringify(events.at(-2)))).toEqual(events.at(-2))
    }
  })

  it('keeps citation numbers stable across two runs of a conversation', async () => {
    const search = mockSearch({ results: { 'One?': [doc('a'), doc('b')], 'Two?': [doc('c'), doc('b')] } })
    const m = models({
      planner: [next('One?'), done, next('Two?'), done],
      extractor: [sub('A and B [1][2].'), sub('C and B [1][2].')],
      finalizer: ['A [1], B [2].', 'C [1], B [2].'],
    })
    const agent = agentWith(m, search, { deep: { mode: 'conversational' } })
    const one = await collect(agent, 'First?')
    expect(one.result.answer).toBe('A [1], B [2].')
    const two = await collect(agent, 'Second?', { citations: one.result.citations })
    expect(two.result.answer).toBe('C [3], B [2].')
    expect(two.result.citations).toEqual([
      { index: 2, url: 'https://b.example/page', title: 'Title b' },
      { index: 3, url: 'https://c.example/page', title: 'Title c' },
    ])
  })

  it('runs follow-up searches concurrently under deep.concurrency, within searchesPerQuestion', async () => {
    for (const concurrency of [1, 2]) {
      const held = heldCalls()
      const search = mockSearch({
        results: async (q) => {
          await held.hold()
          return [doc(q.replace(/\W/g, ''))]
        },
      })
      const m = models({
        planner: [next('Sub?'), done],
        extractor: [sub('Partial [1].', [], 0.3, ['more one', 'more two', 'more three']), sub('Full [1][2][3].')],
        finalizer: ['Full [1].'],
        synthesizer: [report],
      })
      const run = collect(agentWith(m, search, { deep: { concurrency } }), 'Q?')
      // The sub-question's own search, then its two follow-ups: `concurrency` of them at once,
      // the next only when the test releases one.
      await held.arrived(1)
      held.release(0)
      for (let released = 1; released < 3; released++) {
        await held.arrived(Math.min(3, released + concurrency))
        expect(held.count).toBe(Math.min(3, released + concurrency))
        expect(search.inFlight.current).toBeLessThanOrEqual(concurrency)
        held.release(released)
      }
      await run
      expect(search.calls).toEqual(['Sub?', 'more one', 'more two'])
      expect(search.inFlight.peak).toBe(concurrency)
      expect(m.extractor.calls[1]!.prompt).toContain('No searches are left')
    }
  })

  it('deep-reads the top result of a sub-question when a fetch provider is set', async () => {
    const search = mockSearch({ results: () => [doc('a'), doc('b')] })
    const fetch = mockFetch({ pages: { 'https://a.example/page': 'The full page says A is exactly x.' } })
    const m = models({ planner: [next('Sub?'), done], extractor: [sub('A is exactly x [1].')], finalizer: ['x [1].'], synthesizer: [report] })
    const { events } = await collect(createAgent({ models: m, search, fetch, strategy: deep({}) }), 'Q?')
    expect(fetch.calls).toEqual(['https://a.example/page'])
    expect(ofType(events, 'page')).toHaveLength(1)
    expect(m.extractor.calls[0]!.prompt).toContain('The full page says A is exactly x.')
  })

  it('shows a deep-read PDF as its best-matching pages, each a source citing its page', async () => {
    const search = mockSearch({ results: () => [{ title: 'Paper', url: 'https://a.example/paper.pdf', snippet: 'a paper' }, doc('b')] })
    const pages = [
      'Introduction and scope. '.repeat(6).trim(),
      'Unrelated methods. '.repeat(7).trim(),
      'Sub results: the value of A is exactly x. '.repeat(3).trim(),
    ]
    const text = pages.join('\n\n')
    const pageStarts = pages.map((_, i) => pages.slice(0, i).reduce((at, page) => at + page.length + 2, 0))
    const fetch = mockFetch({ pages: { 'https://a.example/paper.pdf': { title: 'Paper', text, kind: 'pdf', pages: 3, pageStarts } } })
    // [1] is the best page within the budget kept first in page order, [3] the page added after the list.
    const m = models({
      planner: [next('Sub results?'), done],
      extractor: [sub('A is exactly x [3].', [{ text: 'A is exactly x', sources: [3] }])],
      finalizer: ['x [1].'],
      synthesizer: [report],
    })
    const { events, result } = await collect(createAgent({ models: m, search, fetch, strategy: deep({ pageChars: 300 }) }), 'Q?')
    expect(ofType(events, 'page')).toEqual([expect.objectContaining({ kind: 'pdf', pages: 3 })])
    const prompt = m.extractor.calls[0]!.prompt
    expect(prompt).toContain('https://a.example/paper.pdf#page=1')
    expect(prompt).toContain('https://a.example/paper.pdf#page=3')
    expect(prompt).not.toContain('#page=2')
    expect(ofType(events, 'fact').map((e) => e.fact.sources)).toEqual([['https://a.example/paper.pdf#page=3']])
    expect(result.citations).toEqual([{ index: 1, url: 'https://a.example/paper.pdf#page=3', title: 'Paper (page 3)' }])
  })

  it('falls back to a report of the findings when the report JSON is unreadable', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const m = models({ planner: [next('Sub?'), done], extractor: [sub('A [1].')], finalizer: ['A [1].'], synthesizer: ['Here is my report: it is good.'] })
    const { events, result } = await collect(agentWith(m, search), 'Q?')
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('unparseable-output')
    expect(result.report?.title).toBe('Q?')
    expect(result.report?.mainFindings).toEqual(['Sub? — A. [1]'])
    expect(result.report?.executiveSummary).toBe(result.answer)
  })

  it('streams the findings themselves when the finalizer writes nothing', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const m = models({ planner: [next('Sub?'), done], extractor: [sub('A is x [1].')], finalizer: [''], synthesizer: [report] })
    const { events, result } = await collect(agentWith(m, search), 'Q?')
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('empty-output')
    expect(result.answer).toBe('A is x.')
    expect(result.report?.executiveSummary).toBe('A is x.')
  })

  it('keeps a prose answer to a sub-question, with a warning and low confidence', async () => {
    const search = mockSearch({ results: () => [doc('a')] })
    const m = models({ planner: [next('Sub?'), done], extractor: ['A is x, says source [1].'], finalizer: ['A is x [1].'] })
    const { events, result } = await collect(agentWith(m, search, { deep: { mode: 'conversational' } }), 'Q?')
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('unparseable-output')
    expect(result.confidence).toBe(0.3)
    expect(m.finalizer.calls[0]!.prompt).toContain('A1: A is x, says source. [1]')
  })
})
