import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { containsAnswer, exactMatch, normalizeAnswer, tokenF1 } from '../../src/eval/grade.js'
import { gradeWithModel, parseGrade } from '../../src/eval/model-grader.js'
import { scriptedLLM } from '../../src/testing/index.js'

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
  it('reads letters and grade names, and names the grade in the longest matching word', () => {
    expect(parseGrade('A')).toBe('correct')
    expect(parseGrade('(B)')).toBe('incorrect')
    expect(parseGrade('C) NOT_ATTEMPTED')).toBe('not-attempted')
    expect(parseGrade('<think>maybe A</think>\nGrade: B')).toBe('incorrect')
    expect(parseGrade('The answer is NOT ATTEMPTED')).toBe('not-attempted')
    expect(parseGrade('INCORRECT, because')).toBe('incorrect')
    expect(parseGrade('**CORRECT**')).toBe('correct')
    expect(parseGrade('I cannot decide')).toBeUndefined()
  })

  it('the parser is total: any reply gives a grade or undefined', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (reply) => {
        expect([undefined, 'correct', 'incorrect', 'not-attempted']).toContain(parseGrade(reply))
      }),
    )
  })

  it('asks the grader model with the question, gold target and answer, and prices its call', async () => {
    const grader = scriptedLLM({ replies: [{ text: 'B', usage: { inputTokens: 400, outputTokens: 1 }, cost: 0.002 }], model: 'judge' })
    const verdict = await gradeWithModel(grader, 'Who?', ['Ada Lovelace'], 'Charles Babbage')
    expect(verdict).toMatchObject({ grade: 'incorrect', cost: 0.002, inputTokens: 400 })
    expect(grader.calls[0]?.prompt).toContain('Gold target: Ada Lovelace')
    expect(grader.calls[0]?.prompt).toContain('Predicted answer: Charles Babbage')
  })
})
