import fc from 'fast-check'
import { expect, it } from 'vitest'
import { normalizeText } from '../../../src/strategy.js'
import { evidenceText } from '../../../src/strategies/shared/cited-answer.js'

it('evidence is the distinct parts in order, one a line, never past its bound', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 30 }), fc.integer({ min: 1, max: 2000 }), (parts, max) => {
      const text = evidenceText(parts, max)
      const kept = parts.map((p) => p.trim()).filter((p) => normalizeText(p))
      if (!kept.length) {
        expect(text).toBeUndefined()
        return
      }
      expect(text!.length).toBeLessThanOrEqual(max)
      // Whole, when it fits: each distinct part once, in the order given.
      const distinct = kept.filter((p, i) => kept.findIndex((q) => normalizeText(q) === normalizeText(p)) === i)
      if (distinct.join('\n').length <= max) expect(text).toBe(distinct.join('\n'))
    }),
  )
})
