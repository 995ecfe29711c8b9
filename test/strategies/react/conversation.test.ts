import { describe, expect, it } from 'vitest'
import { earlierAnswers, runKnowledge } from '../../../src/strategies/react/conversation.js'
import type { ToolOutcome } from '../../../src/strategies/react/tool-notes.js'

const citations = [
  { index: 1, url: 'https://a.example/', title: 'A' },
  { index: 2, url: 'https://b.example/' },
]

describe('earlierAnswers', () => {
  it('renumbers each cited source for the run and drops a number that names none', () => {
    const text = earlierAnswers([{ query: 'Who?', answer: 'A [1] and B [2], not C [7].' }], citations, (c) => c.index + 10, 1000)
    expect(text).toBe('Q: Who?\nA: A [11] and B [12], not C.')
  })

  it('keeps the newest answers that fit, shown oldest first', () => {
    const priors = [1, 2, 3].map((n) => ({ query: `Question ${n}?`, answer: `Answer number ${n}.` }))
    const one = 'Q: Question 3?\nA: Answer number 3.'.length
    expect(earlierAnswers(priors, [], () => 1, one * 2 + 2)).toBe('Q: Question 2?\nA: Answer number 2.\n\nQ: Question 3?\nA: Answer number 3.')
    expect(earlierAnswers(priors, [], () => 1, one)).toBe('Q: Question 3?\nA: Answer number 3.')
    expect(earlierAnswers(priors, [], () => 1, one - 1)).toBe('')
  })

  it('skips what is not an answer', () => {
    const priors = [{ query: 'Q?', answer: '  ' }, { query: 7, answer: 'x' } as never, null as never]
    expect(earlierAnswers(priors, [], () => 1, 1000)).toBe('')
  })
})

describe('runKnowledge', () => {
  const outcome = (name: string, ok: boolean, note: string, finding?: string): ToolOutcome => ({
    call: { id: name, name, args: '{}' },
    ok,
    content: '',
    note,
    ...(finding ? { finding } : {}),
  })

  it('is what the calls found, pages first, then the knowledge given, each line once and within the limit', () => {
    const outcomes = [
      outcome('search', true, '- search "x": [1] A', '- A: snippet of a (https://a.example/)\n- B: snippet of b (https://b.example/)'),
      outcome('search', false, '- search: failed (down)'),
      outcome('read_page', true, '- read [1]: page', '- A: the page of a (https://a.example/)'),
      outcome('lookup', true, '- lookup {"id":1}: 42'),
    ]
    expect(runKnowledge(outcomes, '- B: snippet of b (https://b.example/)\n- given before', 1000)).toBe(
      [
        '- A: the page of a (https://a.example/)',
        '- A: snippet of a (https://a.example/)',
        '- B: snippet of b (https://b.example/)',
        '- lookup {"id":1}: 42',
        '- given before',
      ].join('\n'),
    )
    expect(runKnowledge(outcomes, '', 80)).toBe('- A: the page of a (https://a.example/)\n- A: snippet of a (https://a.example/)')
  })
})
