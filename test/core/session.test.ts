import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

describe('agent.session()', () => {
  it('carries knowledge and prior answers into the follow-up question', async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France.', 'Paris.', 'About 2.1 million people live in Paris? Unknown from notes.'] })
    const search = mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' }] })
    const session = createAgent({ models: { planner, synthesizer }, search }).session()

    const first = await session.answer('What is the capital of France?')
    expect(first.answer).toBe('Paris.')
    expect(session.knowledge).toBe('Paris is the capital of France.')
    expect(session.priorAnswers).toEqual([{ query: 'What is the capital of France?', answer: 'Paris.', sources: ['https://fr.example'] }])

    const run = session.research('How many people live there?')
    for await (const _ of run);
    // The follow-up planned with the first run's knowledge and needed no search.
    expect(planner.calls[2]?.prompt).toContain('Paris is the capital of France.')
    expect(search.calls).toHaveLength(1)
    expect(session.priorAnswers).toHaveLength(2)
  })
})

describe('a reflect session', () => {
  it('keeps citation numbers for the whole conversation, not just the last answer', async () => {
    const doc = (id: string) => ({ title: `Title ${id}`, url: `https://${id}.example/page`, snippet: `About ${id}.` })
    const search = mockSearch({ results: { first: [doc('a'), doc('b')], second: [doc('c')], third: [doc('a')] } })
    const enough = '{"slots": {"x": "known [1]"}, "need_more": false, "new_queries": []}'
    const more = (query: string) => `{"slots": {"x": null}, "need_more": true, "new_queries": ["${query}"]}`
    // Follow-ups first reflect on the prior answers, which ask for one more search each.
    const planner = scriptedLLM({ replies: ['["first"]', enough, more('second'), enough, more('third'), enough] })
    const finalizer = scriptedLLM({
      replies: (req, i) => {
        // Cite by the numbers the prompt shows, as a model would.
        const number = (id: string) => new RegExp(`\\[(\\d+)\\] Title ${id}`).exec(req.prompt)?.[1]
        return [`A [${number('a')}] and B [${number('b')}].`, `C [${number('c')}].`, `A again [${number('a')}].`][i]!
      },
    })
    const session = createAgent({ models: { planner, finalizer }, search, strategy: 'reflect' }).session()
    expect((await session.answer('One?')).answer).toBe('A [1] and B [2].')
    expect((await session.answer('Two?')).answer).toBe('C [3].')
    // The third answer cites A, last cited two questions ago: it must still be [1].
    expect((await session.answer('Three?')).answer).toBe('A again [1].')
    expect(session.citations.map((c) => c.index)).toEqual([1, 2, 3])
  })
})
