import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { VectorMatrix } from '../../src/kb/vector-matrix.js'

const cosine = (a: Float32Array, b: Float32Array) => {
  const dot = a.reduce((sum, value, i) => sum + value * (b[i] as number), 0)
  const lengths = Math.hypot(...a) * Math.hypot(...b)
  return lengths === 0 ? 0 : dot / lengths
}

describe('VectorMatrix', () => {
  it('finds the rows of highest cosine, best first, as sorting every row would, through cleared and rewritten rows', () => {
    // Five dimensions: the four-at-a-time sums and the one left over both count.
    const vector = fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 5, maxLength: 5 }).map((values) => Float32Array.from(values))
    fc.assert(
      fc.property(
        fc.array(vector, { minLength: 1, maxLength: 150 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.array(vector, { maxLength: 5 }),
        vector,
        fc.integer({ min: 1, max: 12 }),
        (written, cleared, rewritten, query, limit) => {
          // Capacity 2: the matrix grows as rows are written. Stored as 32-bit floats: scores to six places.
          const matrix = new VectorMatrix(5, 2)
          const rows = new Map(written.map((vector, row) => [row, vector]))
          for (const [row, vector] of rows) matrix.set(row, vector)
          for (const pick of cleared) {
            matrix.clear(pick % written.length)
            rows.delete(pick % written.length)
          }
          for (const [at, vector] of rewritten.entries()) {
            matrix.set(at * 3, vector)
            rows.set(at * 3, vector)
          }
          const found = matrix.nearest(query, limit)
          if (Math.hypot(...query) === 0) {
            expect(found).toEqual([])
            return
          }
          const expected = [...rows].map(([row, vector]) => ({ row, score: cosine(vector, query) })).sort((a, b) => b.score - a.score)
          expect(found.map((hit) => hit.score)).toEqual(expected.slice(0, limit).map((hit) => expect.closeTo(hit.score, 6)))
          for (const hit of found) expect(hit.score).toBeCloseTo(cosine(rows.get(hit.row) as Float32Array, query), 6)
        },
      ),
    )
  })

  it('finds nothing for a query of another length, and scores a row of zeros 0', () => {
    const matrix = new VectorMatrix(3)
    matrix.set(0, Float32Array.from([0, 0, 0]))
    matrix.set(1, Float32Array.from([3, 4, 0]))
    expect(matrix.nearest(Float32Array.from([1, 0]), 5)).toEqual([])
    const found = matrix.nearest(Float32Array.from([0, 2, 0]), 5)
    expect(found.map((hit) => hit.row)).toEqual([1, 0])
    expect(found.map((hit) => hit.score)).toEqual([expect.closeTo(0.8, 6), 0])
  })
})
