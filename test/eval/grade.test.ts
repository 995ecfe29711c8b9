import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { containsAnswer, exactMatch, normalizeAnswer, tokenF1 } from '../../src/eval/grade.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { answering, evalRows } from './eval-rows.js'

const ROW = { id: 'r', question: 'Who?', answers: ['Ada Lovelace'] }

/** The model grade `evaluate` gives an answer when its grader replies `reply`, and what it warned of. */
async function gradeOf(reply: string) {
  const grader = scriptedLLM({ model: 'judge', replies: [reply] })
  const { rows, warnings } = await evalRows([ROW], answering('Charles Babbage'), { grader })
  expect(rows).toHaveLength(1)
  expect(rows[0]?.grades.graderReply).toBe(reply.slice(0, 500))
  return { grade: rows[0]?.grades.model, warnings }
}

describe('SQuAD-style grading', () => {
  it('normalizes case, punctuation, articles and spaces', () => {
    expect(normalizeAnswer('  The  Eiffel-Tower, in PARIS! ')).toBe('eiffel tower in paris')
    expect(normalizeAnswer('An apple a day')).toBe('apple day')
  })

  it('normalization is idempotent', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => normalizeAnswer(normalizeAnswer(text)) === normalizeAnswer(text)))
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => normalizeAnswer(normalizeAnswer(text)) === normalizeAnswer(text)))
  })

  it('exact match and F1 take the best accepted answer', () => {
    expect(exactMatch('the Michio Sugeno.', ['Sugeno Michio', 'Michio Sugeno'])).toBe(true)
    expect(exactMatch('Michio', ['Michio Sugeno'])).toBe(false)
    expect(tokenF1('Michio', ['Michio Sugeno'])).toBeCloseTo(2 / 3)
    expect(tokenF1('x b b', ['b'])).toBeCloseTo(0.5)
    expect(tokenF1('nothing here', ['Michio Sugeno'])).toBe(0)
  })

  it('F1 is in [0, 1], 1 exactly when the token multisets are equal', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { minLength: 1, maxLength: 3 }), (prediction, answers) => {
        const f1 = tokenF1(prediction, answers)
        expect(f1).toBeGreaterThanOrEqual(0)
        expect(f1).toBeLessThanOrEqual(1)
        if (exactMatch(prediction, answers)) expect(f1).toBe(1)
      }),
    )
  })

  it('contains the answer as whole words, not inside another word', () => {
    expect(containsAnswer('It was awarded to Michio Sugeno [1].', ['Michio Sugeno'])).toBe(true)
    expect(containsAnswer('The year was 19100.', ['1910'])).toBe(false)
    expect(containsAnswer('anything', ['the'])).toBe(false)
  })
})

describe('the model grader', () => {
  it('reads letters and grade names, and names the grade in the longest matching word', async () => {
    expect((await gradeOf('A')).grade).toBe('correct')
    expect((await gradeOf('(B)')).grade).toBe('incorrect')
    expect((await gradeOf('C) NOT_ATTEMPTED')).grade).toBe('not-attempted')
    expect((await gradeOf('<think>maybe A</think>\nGrade: B')).grade).toBe('incorrect')
    expect((await gradeOf('The answer is NOT ATTEMPTED')).grade).toBe('not-attempted')
    expect((await gradeOf('INCORRECT, because')).grade).toBe('incorrect')
    expect((await gradeOf('**CORRECT**')).grade).toBe('correct')
    const undecided = await gradeOf('I cannot decide')
    expect(undecided.grade).toBeUndefined()
    expect(undecided.warnings).toEqual([expect.stringContaining('names no grade')])
  })

  it('the parser is total: any reply gives a grade or undefined', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), async (reply) => {
        expect([undefined, 'correct', 'incorrect', 'not-attempted']).toContain((await gradeOf(reply)).grade)
      }),
    )
  })

  it('asks the grader model with the question, gold target and answer, and prices its call', async () => {
    const grader = scriptedLLM({ replies: [{ text: 'B', usage: { inputTokens: 400, outputTokens: 1 }, cost: 0.002 }], model: 'judge' })
    const [row] = (await evalRows([ROW], answering('Charles Babbage'), { grader })).rows
    expect(row).toMatchObject({ grades: { model: 'incorrect' }, graderCost: 0.002 })
    expect(grader.calls[0]?.prompt).toContain('Gold target: Ada Lovelace')
    expect(grader.calls[0]?.prompt).toContain('Predicted answer: Charles Babbage')
    // With no cost reported, the call is priced from the tokens it reported: 400 in, 1 out.
    const priced = scriptedLLM({ replies: [{ text: 'B', usage: { inputTokens: 400, outputTokens: 1 } }], model: 'gpt-4o-mini' })
    const [pricedRow] = (await evalRows([ROW], answering('Charles Babbage'), { grader: priced })).rows
    expect(pricedRow?.graderCost).toBeCloseTo((400 * 0.15 + 1 * 0.6) / 1e6, 12)
  })
})
