/**
 * sessionStateFromMessages: the conversation a client's messages describe, kept within bounds.
 * The client is trusted only as far as shapes go: forged parts that do not fit are dropped,
 * never thrown on.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REBUILT_LIMITS, sessionStateFromMessages } from '../../src/server/index.js'

const fact = (id: string, text: string, sources: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'data-fact',
  id,
  data: { fact: { id, text, sources }, ...extra },
})
const user = (text: string) => ({ id: `u-${text}`, role: 'user', parts: [{ type: 'text', text }] })
const assistant = (parts: unknown[], metadata?: unknown) => ({ id: 'a', role: 'assistant', parts, ...(metadata === undefined ? {} : { metadata }) })

describe('sessionStateFromMessages', () => {
  it('keeps each answer with its question, its web citations and the facts that stand', () => {
    const state = sessionStateFromMessages([
      user('Who?'),
      assistant([
        { type: 'text', text: 'Ann [1], see [2].' },
        { type: 'source-url', sourceId: '1', url: 'https://a.example/', title: 'A' },
        { type: 'source-url', sourceId: '2', url: 'https://b.example/' },
        fact('f1', 'Ann did it', ['https://a.example/']),
        fact('f0', 'someone did it', ['https://a.example/'], { supersededBy: 'f1' }),
      ]),
    ])
    expect(state).toEqual({
      version: 1,
      priorAnswers: [{ query: 'Who?', answer: 'Ann [1], see [2].', sources: ['https://a.example/', 'https://b.example/'] }],
      citations: [
        { index: 1, url: 'https://a.example/', title: 'A' },
        { index: 2, url: 'https://b.example/' },
      ],
      knowledge: '',
      facts: [{ text: 'Ann did it', url: 'https://a.example/', title: 'A' }],
    })
  })

  it("drops what does not fit: other schemes, bad numbers, forged facts, a failed turn's answer", () => {
    const state = sessionStateFromMessages([
      user('Q1'),
      assistant(
        [
          { type: 'text', text: 'partial' },
          { type: 'source-url', sourceId: '1', url: 'javascript:alert(1)' },
          { type: 'source-url', sourceId: '2', url: 'file:///etc/passwd' },
          { type: 'source-url', sourceId: '0', url: 'https://zero.example/' },
          { type: 'source-url', sourceId: '1e3', url: 'https://exp.example/' },
          { type: 'source-url', sourceId: '99999', url: 'https://far.example/' },
          { type: 'source-url', sourceId: '3', url: `https://long.example/${'x'.repeat(3000)}` },
          fact('f1', 'no web source', ['file:///etc/passwd']),
          fact('f2', 'not a list', 'https://a.example/'),
          fact('f3', '   ', ['https://a.example/']),
          { type: 'data-fact', id: 'f4', data: 'text' },
        ],
        { runId: 'r1', reason: 'error' },
      ),
      user('Q2'),
      assistant([{ type: 'text', text: 'forged metadata' }], { runId: 5 }),
    ])
    expect(state).toEqual({ version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] })
  })

  it('keeps the first number a source got, the latest answers and facts, and cuts long texts', () => {
    const turns = Array.from({ length: 30 }, (_, turn) => [
      user(`Q${turn}`),
      assistant([
        { type: 'text', text: `${'a'.repeat(5000)}${turn}` },
        { type: 'source-url', sourceId: '1', url: `https://t${turn}.example/` },
        ...Array.from({ length: 20 }, (_, n) => fact(`f${turn}-${n}`, `${'f'.repeat(1200)} ${turn}-${n}`, [`https://t${turn}.example/`])),
      ]),
    ]).flat()
    const state = sessionStateFromMessages(turns)
    expect(state.citations).toEqual([{ index: 1, url: 'https://t0.example/' }])
    expect(state.priorAnswers).toHaveLength(REBUILT_LIMITS.priorAnswers)
    expect(state.priorAnswers[0]?.query).toBe('Q10')
    expect(state.priorAnswers.every((p) => p.answer.length === REBUILT_LIMITS.answerChars)).toBe(true)
    expect(state.facts).toHaveLength(REBUILT_LIMITS.facts)
    expect(state.facts.every((f) => f.text.length === REBUILT_LIMITS.factChars)).toBe(true)
  })

  it('never throws, whatever the client sends', () => {
    fc.assert(
      fc.property(fc.array(fc.anything()), (messages) => {
        const state = sessionStateFromMessages(messages)
        expect(state.version).toBe(1)
      }),
    )
    fc.assert(
      fc.property(fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), parts: fc.array(fc.anything()), metadata: fc.anything() })), (messages) => {
        expect(sessionStateFromMessages(messages).version).toBe(1)
      }),
    )
  })
})
