/**
 * A model call that streamed output and never finished still cost what it streamed: it is
 * counted in `llm-call` and `cost` (estimated when the provider reported no usage), whether the
 * run was aborted in it or the call failed while the run went on.
 */
import { describe, expect, it } from 'vitest'
import { createAgent, type LLMProvider, type LLMRequest, type ResearchEvent } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

/** A finalizer that streams `text`, then hangs until its call is aborted. */
function hangingFinalizer(text: string): LLMProvider {
  return {
    model: 'hanging',
    async *stream(req: LLMRequest) {
      yield { type: 'text', text }
      await new Promise((_, reject) => req.signal?.addEventListener('abort', () => reject(req.signal?.reason), { once: true }))
    },
  }
}

const corpus = [{ title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' }]

describe('a model call cut off after it streamed', () => {
  it('is counted in llm-call and cost when the run is aborted in it: as many calls shown as made', async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France.'] })
    const agent = createAgent({
      models: { planner, synthesizer, finalizer: hangingFinalizer('Paris is the capital, as the notes say') },
      search: mockSearch({ corpus }),
    })
    const run = agent.research('What is the capital of France?')
    const events: ResearchEvent[] = []
    for await (const event of run) {
      events.push(event)
      if (event.type === 'answer-token') run.abort()
    }
    const calls = events.filter((e) => e.type === 'llm-call')
    // Two planner calls, one synthesizer call, and the finalizer cut off in its answer.
    expect(calls.map((e) => e.role)).toEqual(['planner', 'synthesizer', 'planner', 'finalizer'])
    expect(calls.at(-1)).toMatchObject({ model: 'hanging', outputTokens: 10 })
    expect((calls.at(-1) as { inputTokens: number }).inputTokens).toBeGreaterThan(0)
    const end = events.at(-1)
    expect(end).toMatchObject({ type: 'run-end', reason: 'aborted' })
    expect(end?.type === 'run-end' && end.cost.llmCalls).toBe(4)
    expect((await run.result).cost.llmCalls).toBe(4)
    // Its cost event comes before run-end and carries the running total.
    const lastCost = events.filter((e) => e.type === 'cost').at(-1)
    expect(lastCost?.type === 'cost' && lastCost.total).toEqual(end?.type === 'run-end' && end.cost)
  })

  it('is counted in the result when the reader leaves in it (no events are read any more)', async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France.'] })
    const agent = createAgent({ models: { planner, synthesizer, finalizer: hangingFinalizer('Paris') }, search: mockSearch({ corpus }) })
    const run = agent.research('What is the capital of France?')
    let shown = 0
    for await (const event of run) {
      if (event.type === 'llm-call') shown++
      if (event.type === 'answer-token') break
    }
    expect(shown).toBe(3)
    expect((await run.result).cost.llmCalls).toBe(4)
  })

  it('is counted when it fails after streaming while the run goes on', async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: [{ text: 'Paris is the', error: new Error('connection reset') }] })
    const agent = createAgent({ models: { planner, synthesizer }, search: mockSearch({ corpus }) })
    const events: ResearchEvent[] = []
    for await (const event of agent.research('What is the capital of France?')) events.push(event)
    const calls = events.filter((e) => e.type === 'llm-call')
    expect(calls.map((e) => e.role)).toContain('synthesizer')
    expect(calls.find((e) => e.role === 'synthesizer')).toMatchObject({ outputTokens: 3 })
    const end = events.at(-1)
    expect(end?.type === 'run-end' && end.cost.llmCalls).toBe(calls.length)
  })
})
