/** How a finished turn merges into the conversation as it stands when the turn ends. */
import { describe, expect, it } from 'vitest'
import type { ResearchResult, SessionState } from '../../src/index.js'
import { knowledgeOf, mergeTurn, type Turn } from '../../src/conversations/merge-turn.js'
import { zeroCost } from '../support/cost.js'

const empty: SessionState = { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] }
const cost = zeroCost()
const result = (over: Partial<ResearchResult>): ResearchResult => ({ answer: '', citations: [], facts: [], knowledge: '', cost, reason: 'answered', ...over })
const turn = (base: SessionState, over: Partial<ResearchResult>, question = 'Q?'): Turn => ({
  question,
  base,
  givenKnowledge: knowledgeOf(base),
  result: result(over),
})
const cite = (index: number, id: string) => ({ index, url: `https://${id}.example/`, title: id })

describe('mergeTurn', () => {
  it('keeps a known source’s number, gives a taken number’s new source the next free one, and renumbers the stored answer', () => {
    const current: SessionState = { ...empty, citations: [cite(1, 'a'), cite(2, 'b')] }
    // The turn started from [a] only, and numbered c as 2, a concurrent turn's b having taken 2 since.
    const base: SessionState = { ...empty, citations: [cite(1, 'a')] }
    const merged = mergeTurn(current, turn(base, { answer: 'A [1], C [2] and both [1, 2].', citations: [cite(1, 'a'), cite(2, 'c')] }))
    expect(merged.citations).toEqual([cite(1, 'a'), cite(2, 'b'), cite(3, 'c')])
    expect(merged.priorAnswers).toEqual([{ query: 'Q?', answer: 'A [1], C [3] and both [1][3].', sources: ['https://a.example/', 'https://c.example/'] }])
  })

  it('maps a new source another turn numbered meanwhile to that number', () => {
    const current: SessionState = { ...empty, citations: [cite(1, 'a'), cite(2, 'b')] }
    const merged = mergeTurn(current, turn(empty, { answer: 'B [1].', citations: [cite(1, 'b')] }))
    expect(merged.citations).toEqual(current.citations)
    expect(merged.priorAnswers[0]?.answer).toBe('B [2].')
  })

  it('adds no prior answer for a turn that ended in error or aborted, but keeps what it found', () => {
    const found = { answer: 'Partly [1]', citations: [cite(1, 'a')], facts: [{ id: 'f1', text: 'A fact.', sources: ['https://a.example/'] }] }
    for (const reason of ['error', 'aborted'] as const) {
      const merged = mergeTurn(undefined, turn(empty, { ...found, reason }))
      expect(merged.priorAnswers).toEqual([])
      expect(merged.citations).toEqual([cite(1, 'a')])
      expect(merged.facts).toEqual([{ text: 'A fact.', url: 'https://a.example/', title: 'a' }])
    }
  })

  it('replaces the knowledge it started from, joins one another turn changed meanwhile, and keeps it when the turn learned none', () => {
    const base: SessionState = { ...empty, knowledge: 'old' }
    expect(mergeTurn(base, turn(base, { knowledge: 'old, rewritten\nnew line' })).knowledge).toBe('old, rewritten\nnew line')
    const changed: SessionState = { ...empty, knowledge: 'other turn\nnew line' }
    expect(mergeTurn(changed, turn(base, { knowledge: 'old, rewritten\nnew line' })).knowledge).toBe('other turn\nnew line\nold, rewritten')
    // A strategy that keeps no knowledge ends with what it was given: nothing learned.
    expect(mergeTurn(base, turn(base, { knowledge: 'old' })).knowledge).toBe('old')
    expect(mergeTurn(base, turn(base, { knowledge: '' })).knowledge).toBe('old')
  })

  it('keeps each fact once, by its text and source', () => {
    const current: SessionState = { ...empty, facts: [{ text: 'Known.', url: 'https://a.example' }] }
    const merged = mergeTurn(
      current,
      turn(empty, {
        facts: [
          { id: 'f1', text: 'Known.', sources: ['https://a.example/'] },
          { id: 'f2', text: 'Known.', sources: ['https://b.example/'] },
          { id: 'f3', text: 'No source.', sources: [] },
        ],
      }),
    )
    expect(merged.facts).toEqual([
      { text: 'Known.', url: 'https://a.example' },
      { text: 'Known.', url: 'https://b.example/' },
    ])
  })
})

describe('knowledgeOf', () => {
  it('is the knowledge, then each fact it does not state, one per line', () => {
    const state: SessionState = {
      ...empty,
      knowledge: 'Paris is the capital.',
      facts: [
        { text: 'Paris is the capital.', url: 'https://a.example' },
        { text: 'It has 2.1 million people.', url: 'https://b.example' },
      ],
    }
    expect(knowledgeOf(state)).toBe('Paris is the capital.\n- It has 2.1 million people.')
    expect(knowledgeOf({ ...state, knowledge: '' })).toBe('- Paris is the capital.\n- It has 2.1 million people.')
  })
})
