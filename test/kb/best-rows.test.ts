import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BestRows } from '../../src/kb/best-rows.js'

describe('BestRows', () => {
  it('keeps the `limit` best rows, best first, a tie going to the row offered first', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3, max: 3 })), fc.integer({ min: 0, max: 5 }), (scores, limit) => {
        const best = new BestRows(limit)
        for (const [row, score] of scores.entries()) best.offer(row, score)
        const sorted = scores.map((score, row) => ({ row, score })).sort((a, b) => b.score - a.score || a.row - b.row)
        expect(best.results()).toEqual(sorted.slice(0, limit))
      }),
    )
  })
})
