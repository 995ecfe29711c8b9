import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePlanNext, parseReport, parseSubAnswer, readConfidence } from '../../../src/strategies/deep/parse.js'

const anyReply = fc.oneof(
  fc.string(),
  fc.json(),
  fc.anything().map((v) => JSON.stringify(v) ?? ''),
)

describe('parsePlanNext', () => {
  it.each([
    ['{"is_complete": true, "reasoning": "done"}', { kind: 'complete', reasoning: 'done' }],
    [
      '```json\n{"is_complete": false, "next_question": "What does X cost?", "reasoning": "price"}\n```',
      { kind: 'next', question: 'What does X cost?', reasoning: 'price' },
    ],
    ["{is_complete: 'no', nextQuestion: '\"Who founded X?\"'}", { kind: 'next', question: 'Who founded X?', reasoning: '' }],
    ['{"is_complete": false}', { kind: 'next', question: '', reasoning: '' }],
    ['**Next question:** When was X released?', { kind: 'next', question: 'When was X released?', reasoning: '' }],
    ['Complete: yes', { kind: 'complete', reasoning: '' }],
    ['<think>{"is_complete": true}</think>I am not sure.', { kind: 'unclear' }],
  ])('reads %j', (reply, expected) => {
    expect(parsePlanNext(reply)).toEqual(expected)
  })

  it('never throws on any string', () => {
    fc.assert(
      fc.property(anyReply, (reply) => {
        const decision = parsePlanNext(reply)
        if (decision.kind === 'next') expect(decision.question.length).toBeLessThanOrEqual(300)
      }),
    )
  })
})

describe('parseSubAnswer', () => {
  it('reads the answer, confidence, facts with source numbers and follow-up queries', () => {
    const reply =
      '{"answer": "X costs $5 [2].", "confidence": "85%", "facts": [{"text": "X costs $5", "sources": [2, "[3]", "x"]}, "bare fact", {"sources": [1]}], "need_more": "yes", "queries": ["x price 2024"]}'
    expect(parseSubAnswer(reply)).toEqual({
      answer: 'X costs $5 [2].',
      confidence: 0.85,
      facts: [
        { text: 'X costs $5', sources: [2, 3] },
        { text: 'bare fact', sources: [] },
      ],
      needMore: true,
      queries: ['x price 2024'],
      readable: true,
    })
  })

  it('keeps prose as an unreadable answer, and drops a broken JSON attempt', () => {
    expect(parseSubAnswer('X costs five dollars.')).toMatchObject({ answer: 'X costs five dollars.', readable: false, facts: [] })
    expect(parseSubAnswer('{"confidence": 1}').answer).toBe('')
  })

  it('never throws, and confidence stays within 0 to 1', () => {
    fc.assert(
      fc.property(anyReply, (reply) => {
        const parsed = parseSubAnswer(reply)
        if (parsed.confidence !== undefined) {
          expect(parsed.confidence).toBeGreaterThanOrEqual(0)
          expect(parsed.confidence).toBeLessThanOrEqual(1)
        }
        for (const fact of parsed.facts) for (const n of fact.sources) expect(Number.isInteger(n) && n > 0).toBe(true)
      }),
    )
  })
})

describe('readConfidence', () => {
  it.each([
    [0.7, 0.7],
    ['0.25', 0.25],
    ['80%', 0.8],
    [90, 0.9],
    [1e9, 1],
    [-1, undefined],
    ['high', undefined],
    [Number.NaN, undefined],
  ])('reads %j', (value, expected) => {
    expect(readConfidence(value)).toBe(expected)
  })

  it('is within 0 to 1 for any value', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const c = readConfidence(value)
        if (c !== undefined) expect(c >= 0 && c <= 1).toBe(true)
      }),
    )
  })
})

describe('parseReport', () => {
  it('reads the report fields in snake or camel case', () => {
    expect(parseReport('{"title": "T", "mainFindings": ["a", 3], "conclusions": ["c"], "sources_summary": "s"}')).toEqual({
      title: 'T',
      mainFindings: ['a'],
      conclusions: ['c'],
      limitations: [],
      recommendations: [],
      sourcesSummary: 's',
    })
  })

  it('returns undefined without a title or findings', () => {
    expect(parseReport('{"conclusions": ["c"]}')).toBeUndefined()
    expect(parseReport('no report')).toBeUndefined()
  })

  it('never throws on any string', () => {
    fc.assert(
      fc.property(anyReply, (reply) => {
        const report = parseReport(reply)
        if (report) expect(Array.isArray(report.mainFindings)).toBe(true)
      }),
    )
  })
})
