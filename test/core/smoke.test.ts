import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import type { ResearchEvent } from '../../src/index.js'

describe('a scratchpad run end to end', () => {
  it('plans, searches, rewrites the knowledge and streams the answer', async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: sky colour', 'Action: Answer'] })
    const synthesizer = scriptedLLM({
      replies: ['Rayleigh scattering makes the sky blue (https://a.example).', 'The sky is blue because of Rayleigh scattering.'],
    })
    const search = mockSearch({ corpus: [{ title: 'Why the sky is blue', url: 'https://a.example', snippet: 'Rayleigh scattering of sunlight: sky colour' }] })
    const agent = createAgent({ models: { planner, synthesizer }, search })
    const run = agent.research('Why is the sky blue?')
    const events: ResearchEvent[] = []
    for await (const e of run) events.push(e)
    assertEventInvariants(events)
    expect(events.map((e) => e.type)).toContain('knowledge-update')
    const result = await run.result
    expect(result.reason).toBe('answered')
    expect(result.answer).toBe('The sky is blue because of Rayleigh scattering.')
    expect(result.knowledge).toContain('Rayleigh')
    expect(search.calls).toEqual(['sky colour'])
  })
})
