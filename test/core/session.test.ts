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
    expect(session.priorAnswers).toEqual([{ query: 'What is the capital of France?', answer: 'Paris.', sources: [] }])

    const run = session.research('How many people live there?')
    for await (const _ of run);
    // The follow-up planned with the first run's knowledge and needed no search.
    expect(planner.calls[2]?.prompt).toContain('Paris is the capital of France.')
    expect(search.calls).toHaveLength(1)
    expect(session.priorAnswers).toHaveLength(2)
  })
})
