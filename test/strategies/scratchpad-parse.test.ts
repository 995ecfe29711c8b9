/**
 * The scratchpad planner's reply, read as a run acts on it: a search decision is the `plan` that
 * names its query; an answer with nothing known is searched first (`forced-search`); a reply
 * nothing can be read from is a `unparseable-output` warning, and the run falls back.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { roleOf } from '../support/roles.js'

type Decision = { action: 'search'; query: string } | { action: 'answer' } | { action: 'unclear' }

/** What a scratchpad run decided on the planner's first reply `reply`, with nothing known yet. */
async function decisionOf(reply: string): Promise<Decision> {
  const llm = scriptedLLM({ replies: (req) => (roleOf(req.system) === 'scratchpad planner' ? reply : 'Nothing [1].') })
  const agent = createAgent({ llm, search: mockSearch({ results: () => [] }), strategy: 'scratchpad' })
  // The first decision is all this reads; leaving the loop cancels the rest of the run.
  for await (const event of agent.research('What is the question?')) {
    if (event.type === 'warning' && event.code === 'unparseable-output') return { action: 'unclear' }
    if (event.type === 'warning' && event.code === 'forced-search') return { action: 'answer' }
    if (event.type === 'plan') {
      expect(event.text).toBe(`Search: ${event.queries?.[0]}`)
      expect(event.queries).toHaveLength(1)
      return { action: 'search', query: event.queries![0]! }
    }
    if (event.type === 'run-end') throw new Error(`the run ended before deciding: ${event.reason}`)
  }
  throw new Error('the run ended without a run-end')
}

describe('the planner parser', () => {
  it.each([
    ['Action: Search\nQuery: boiling point of water at altitude', { action: 'search', query: 'boiling point of water at altitude' }],
    ['**Action:** Search\n**Query:** "tallest building 2024"', { action: 'search', query: 'tallest building 2024' }],
    ['action: search\nquery: lower case works', { action: 'search', query: 'lower case works' }],
    ['Action: Search\n- Query: nobel prize 2024 chemistry', { action: 'search', query: 'nobel prize 2024 chemistry' }],
    ['Search: who won the 2022 world cup', { action: 'search', query: 'who won the 2022 world cup' }],
    ['Query: "Baker protein design"', { action: 'search', query: 'Baker protein design' }],
    ['Action: Search: population of Lyon', { action: 'search', query: 'population of Lyon' }],
    ['<think>I should search. Action: Answer?</think>\nAction: Search\nQuery: rust borrow checker', { action: 'search', query: 'rust borrow checker' }],
    ['Action: Answer', { action: 'answer' }],
    ['**Action**: ANSWER\nThe knowledge suffices.', { action: 'answer' }],
    ['{"action": "search", "query": "json planners exist"}', { action: 'search', query: 'json planners exist' }],
    // laconic's misreads
    ['I will research this question carefully.', { action: 'unclear' }],
    ['Action: Answer or Action: Search', { action: 'unclear' }],
    ['Action: Search\nQuery: <your search query>', { action: 'unclear' }],
    ['Action: Search\nQuery: [search query]', { action: 'unclear' }],
    ['Action: Search', { action: 'unclear' }],
    ['', { action: 'unclear' }],
  ])('%j', async (reply, expected) => {
    expect(await decisionOf(reply)).toEqual(expected)
  })

  it('never throws, and a search decision always carries a non-placeholder query', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 400 }), async (reply) => {
        const decision = await decisionOf(reply)
        expect(['search', 'answer', 'unclear']).toContain(decision.action)
        if (decision.action === 'search') {
          expect(decision.query.trim()).not.toBe('')
          expect(decision.query).not.toMatch(/^<.*>$/)
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('never throws on lines built from the label vocabulary', async () => {
    const token = fc.constantFrom('Action:', 'Query:', 'Search:', '**', 'Answer', 'Search', '"', '<', '>', '\n', ' ', 'x', '- ', '{', '}', '"action"')
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 30 }), async (tokens) => {
        expect(['search', 'answer', 'unclear']).toContain((await decisionOf(tokens.join(''))).action)
      }),
    )
  })

  it('reads the same decision however many lines without a label word surround the labelled ones', async () => {
    const token = fc.constantFrom('Action:', 'Query:', 'Search:', '**', 'Answer', 'Search', 'query', ' ', 'x', '- ', 'Lyon')
    const line = fc.array(token, { maxLength: 8 }).map((tokens) => tokens.join(''))
    // Filler: no label word, no bracket or quote (the JSON fallback reads those).
    const filler = fc.string({ unit: fc.constantFrom('a', 'b', 'n', ' ', '-', '*', '.', '1', '\r', 'é'), maxLength: 12 })
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(line, fc.array(filler, { maxLength: 3 })), { maxLength: 8 }), async (script) => {
        const bare = script.map(([labelled]) => labelled).join('\n')
        const padded = script.flatMap(([labelled, around]) => [...around, labelled, ...around]).join('\n')
        expect(await decisionOf(padded)).toEqual(await decisionOf(bare))
      }),
      { numRuns: 500 },
    )
  })
})
