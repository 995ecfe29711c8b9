/**
 * Model output is hostile input: every parser of it must run in time linear in its length.
 * 1 MB of each adversarial shape parses well under the bound asserted here (a generous one, so
 * a loaded machine never fails it); bench/parsers.ts measures the real figure.
 */
import { describe, expect, it } from 'vitest'
import { adversarialInputs, modelOutputParsers } from '../../../bench/parser-cases.js'

const BOUND_MS = 1000

describe('every model-output parser on 1 MB of adversarial input', () => {
  for (const [parser, parse] of Object.entries(modelOutputParsers)) {
    it(`${parser} stays linear`, () => {
      for (const [shape, input] of Object.entries(adversarialInputs(1_000_000))) {
        // The better of two runs: the first also pays for compiling the parser.
        const elapsed = Math.min(
          ...[0, 1].map(() => {
            const started = performance.now()
            expect(() => parse(input)).not.toThrow()
            return performance.now() - started
          }),
        )
        expect(elapsed, `${parser} on ${shape}`).toBeLessThan(BOUND_MS)
      }
    })
  }
})
