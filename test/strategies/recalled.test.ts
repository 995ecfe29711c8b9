import { describe, expect, it } from 'vitest'
import { createAgent, strategyNames, type ResearchEvent, type MemoryStore } from '../../src/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'

type RecalledFinding = Awaited<ReturnType<MemoryStore['recall']>>[number]

const recalled: RecalledFinding[] = [{ text: 'Lyon is the third city of France.', url: 'https://lyon.example/', title: 'Lyon', question: 'What is Lyon?' }]

/**
 * A model that answers whatever it is asked by citing the recalled finding with the number the
 * prompt gives its source (as a model would), and says "Action: Answer" to anything else.
 */
function citingModel() {
  return scriptedLLM({
    replies: (req) => {
      const n = /\[(\d+)\][^\n]*\n?[^\n]*lyon\.example/.exec(req.prompt)?.[1] ?? /third city of France\.?\s*\[(\d+)\]/.exec(req.prompt)?.[1]
      return n ? `Lyon is the third city of France [${n}].` : 'Action: Answer'
    },
  })
}

describe('recalled findings reach every built-in strategy the same way', () => {
  it.each(strategyNames())('%s shows them to its first model call and its answer cites their original source', async (strategy) => {
    const llm = citingModel()
    const agent = createAgent({ llm, search: mockSearch({ corpus: [] }), strategy })
    const events: ResearchEvent[] = []
    for await (const event of agent.research('How big is Lyon?', { recalled })) events.push(event)
    assertEventInvariants(events)
    expect(llm.calls[0]?.prompt).toContain('Lyon is the third city of France.')
    // Prior knowledge, never this run's evidence.
    expect(events.filter((e) => e.type === 'fact')).toEqual([])
    const answer = events.find((e) => e.type === 'answer')
    // A report's answer is the whole report: the sentence is its section's text.
    const text = 'Lyon is the third city of France [1].'
    expect(answer).toMatchObject({
      text: strategy === 'report' ? expect.stringContaining(text) : text,
      citations: [{ index: 1, url: 'https://lyon.example/' }],
    })
  })
})
