/** How a finished turn merges into the conversation as it stands when the turn ends. */
import { describe, expect, it } from 'vitest'
import type { ResearchResult, SessionState } from '../../src/index.js'
import type { StrategyEvent } from '../../src/strategy.js'
import { oneTurn, storeWith, type TurnScript } from './one-turn.js'

const empty: SessionState = { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] }

/** The events of a turn whose result is `over`: its facts, its knowledge (when it rewrote any), its answer. */
const eventsOf = (over: Partial<ResearchResult>): StrategyEvent[] => [
  ...(over.facts ?? []).map((fact) => ({ type: 'fact' as const, fact })),
  ...(over.knowledge !== undefined ? [{ type: 'knowledge-update' as const, knowledge: over.knowledge, iteration: 1 }] : []),
  ...(over.answer !== undefined || over.citations ? [{ type: 'answer' as const, text: over.answer ?? '', citations: over.citations ?? [] }] : []),
]

/**
 * The conversation after a turn that started from `base` and ended with `over` while another
 * turn left the store at `current` (undefined: nothing stored), as the store holds it then.
 */
async function mergeTurn(current: SessionState | undefined, base: SessionState, over: Partial<ResearchResult>, end?: TurnScript['end']): Promise<SessionState> {
  const store = await storeWith(base === empty ? undefined : base)
  const meanwhile = async () => {
    if (current === undefined) await store.delete('chat-1')
    else if (current !== base) await store.save('chat-1', current)
  }
  const { state } = await oneTurn(store, { events: eventsOf(over), meanwhile, ...(end ? { end } : {}) })
  if (!state) throw new Error('the turn stored nothing')
  return state
}

/** The knowledge a turn starting from `state` is given. */
async function knowledgeOf(state: SessionState): Promise<string | undefined> {
  return (await oneTurn(await storeWith(state), { events: [] })).givenKnowledge
}

const cite = (index: number, id: string) => ({ index, url: `https://${id}.example/`, title: id })

describe('a finished turn merged into its conversation', () => {
  it('keeps a known source’s number, gives a taken number’s new source the next free one, and renumbers the stored answer', async () => {
    const current: SessionState = { ...empty, citations: [cite(1, 'a'), cite(2, 'b')] }
    // The turn started from [a] only, and numbered c as 2, a concurrent turn's b having taken 2 since.
    const base: SessionState = { ...empty, citations: [cite(1, 'a')] }
    const merged = await mergeTurn(current, base, { answer: 'A [1], C [2] and both [1, 2].', citations: [cite(1, 'a'), cite(2, 'c')] })
    expect(merged.citations).toEqual([cite(1, 'a'), cite(2, 'b'), cite(3, 'c')])
    expect(merged.priorAnswers).toEqual([{ query: 'Q?', answer: 'A [1], C [3] and both [1][3].', sources: ['https://a.example/', 'https://c.example/'] }])
  })

  it('maps a new source another turn numbered meanwhile to that number', async () => {
    const current: SessionState = { ...empty, citations: [cite(1, 'a'), cite(2, 'b')] }
    const merged = await mergeTurn(current, empty, { answer: 'B [1].', citations: [cite(1, 'b')] })
    expect(merged.citations).toEqual(current.citations)
    expect(merged.priorAnswers[0]?.answer).toBe('B [2].')
  })

  it('adds no prior answer for a turn that ended in error or aborted, but keeps what it found', async () => {
    const found = { answer: 'Partly [1]', citations: [cite(1, 'a')], facts: [{ id: 'f1', text: 'A fact.', sources: ['https://a.example/'] }] }
    for (const reason of ['error', 'aborted'] as const) {
      const merged = await mergeTurn(undefined, empty, found, reason)
      expect(merged.priorAnswers).toEqual([])
      expect(merged.citations).toEqual([cite(1, 'a')])
      expect(merged.facts).toEqual([{ text: 'A fact.', url: 'https://a.example/', title: 'a' }])
    }
  })

  it('replaces the knowledge it started from, joins one another turn changed meanwhile, and keeps it when the turn learned none', async () => {
    const base: SessionState = { ...empty, knowledge: 'old' }
    expect((await mergeTurn(base, base, { knowledge: 'old, rewritten\nnew line' })).knowledge).toBe('old, rewritten\nnew line')
    const changed: SessionState = { ...empty, knowledge: 'other turn\nnew line' }
    expect((await mergeTurn(changed, base, { knowledge: 'old, rewritten\nnew line' })).knowledge).toBe('other turn\nnew line\nold, rewritten')
    // A strategy that keeps no knowledge ends with what it was given: nothing learned.
    expect((await mergeTurn(base, base, {})).knowledge).toBe('old')
    expect((await mergeTurn(base, base, { knowledge: 'old' })).knowledge).toBe('old')
    expect((await mergeTurn(base, base, { knowledge: '' })).knowledge).toBe('old')
  })

  it('keeps each fact once, by its text and source', async () => {
    const current: SessionState = { ...empty, facts: [{ text: 'Known.', url: 'https://a.example' }] }
    const merged = await mergeTurn(current, empty, {
      facts: [
        { id: 'f1', text: 'Known.', sources: ['https://a.example/'] },
        { id: 'f2', text: 'Known.', sources: ['https://b.example/'] },
        { id: 'f3', text: 'No source.', sources: [] },
      ],
    })
    expect(merged.facts).toEqual([
      { text: 'Known.', url: 'https://a.example' },
      { text: 'Known.', url: 'https://b.example/' },
    ])
  })
})

describe('the knowledge a turn is given', () => {
  it('is the knowledge, then each fact it does not state, one per line', async () => {
    const state: SessionState = {
      ...empty,
      knowledge: 'Paris is the capital.',
      facts: [
        { text: 'Paris is the capital.', url: 'https://a.example' },
        { text: 'It has 2.1 million people.', url: 'https://b.example' },
      ],
    }
    expect(await knowledgeOf(state)).toBe('Paris is the capital.\n- It has 2.1 million people.')
    expect(await knowledgeOf({ ...state, knowledge: '' })).toBe('- Paris is the capital.\n- It has 2.1 million people.')
  })
})
