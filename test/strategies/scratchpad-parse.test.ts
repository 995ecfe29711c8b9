import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePlannerDecision } from '../../src/strategies/scratchpad/index.js'

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
  ])('%j', (reply, expected) => {
    expect(parsePlannerDecision(reply)).toEqual(expected)
  })

  it('never throws, and a search decision always carries a non-placeholder query', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (reply) => {
        const decision = parsePlannerDecision(reply)
        expect(['search', 'answer', 'unclear']).toContain(decision.action)
        if (decision.action === 'search') {
          expect(decision.query.trim()).not.toBe('')
          expect(decision.query).not.toMatch(/^<.*>$/)
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('never throws on lines built from the label vocabulary', () => {
    const token = fc.constantFrom('Action:', 'Query:', 'Search:', '**', 'Answer', 'Search', '"', '<', '>', '\n', ' ', 'x', '- ', '{', '}', '"action"')
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), (tokens) => {
        expect(() => parsePlannerDecision(tokens.join(''))).not.toThrow()
      }),
    )
  })

  it('reads the same decision however many lines without a label word surround the labelled ones', () => {
    const token = fc.constantFrom('Action:', 'Query:', 'Search:', '**', 'Answer', 'Search', 'query', ' ', 'x', '- ', 'Lyon')
    const line = fc.array(token, { maxLength: 8 }).map((tokens) => tokens.join(''))
    // Filler: no label word, no bracket or quote (the JSON fallback reads those).
    const filler = fc.string({ unit: fc.constantFrom('a', 'b', 'n', ' ', '-', '*', '.', '1', '\r', 'é'), maxLength: 12 })
    fc.assert(
      fc.property(fc.array(fc.tuple(line, fc.array(filler, { maxLength: 3 })), { maxLength: 8 }), (script) => {
        const bare = script.map(([labelled]) => labelled).join('\n')
        const padded = script.flatMap(([labelled, around]) => [...around, labelled, ...around]).join('\n')
        expect(parsePlannerDecision(padded)).toEqual(parsePlannerDecision(bare))
      }),
      { numRuns: 500 },
    )
  })
})
