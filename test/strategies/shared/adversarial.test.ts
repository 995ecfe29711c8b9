/**
 * Model output is hostile input: every parser of it must run in time linear in its length, and
 * never throw. 1 MB of each adversarial shape must parse at all: a parser that backtracks
 * quadratically on one of them does ~10^12 steps there, and the suite's timeout ends it. How
 * fast each parser is (the real figure, and any slower-but-linear regression) is measured by
 * bench/parsers.ts, not asserted here: a unit test holds no timing bound a loaded machine breaks.
 */
import { describe, expect, it } from 'vitest'
import { adversarialInputs, modelOutputParsers } from '../../../bench/parser-cases.js'

describe('every model-output parser on 1 MB of adversarial input', () => {
  for (const [parser, parse] of Object.entries(modelOutputParsers)) {
    it(`${parser} finishes without throwing`, () => {
      for (const [shape, input] of Object.entries(adversarialInputs(1_000_000))) {
        expect(() => parse(input), `${parser} on ${shape}`).not.toThrow()
      }
    })
  }
})
