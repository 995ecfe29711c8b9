import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryVectorStore } from '../../src/kb/index.js'

const cosine = (a: Float32Array, b: Float32Array) => {
  const dot = a.reduce((sum, value, i) => sum + value * (b[i] as number), 0)
  const lengths = Math.hypot(...a) * Math.hypot(...b)
  return lengths === 0 ? 0 : dot / lengths
}

/** A one-chunk document holding `vector`: each row of the store's matrix is one. */
function document(row: number, vector: Float32Array) {
  const id = `d${row}`
  const url = `https://example.org/${id}`
  return {
    document: { id, url, title: id, hash: id, chunks: 1, indexedAt: '2026-01-01T00:00:00.000Z' },
    chunks: [{ id: `${id}#0`, documentId: id, url, title: id, headings: [], position: 0, text: id, vector }],
  }
}

const rowOf = (documentId: string) => Number(documentId.slice(1))

describe("memoryVectorStore's vector search", () => {
  it('finds the rows of highest cosine, best first, as sorting every row would, through removed and rewritten documents', async () => {
    // Five dimensions: the four-at-a-time sums and the one left over both count.
    const vector = fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 5, maxLength: 5 }).map((values) => Float32Array.from(values))
    const info = { model: 'm', dimensions: 5 }
    await fc.assert(
      fc.asyncProperty(
        // Past 64 rows, the store's first capacity: the matrix grows as rows are written.
        fc.array(vector, { minLength: 1, maxLength: 150, size: 'max' }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.array(vector, { maxLength: 5 }),
        vector,
        fc.integer({ min: 1, max: 12 }),
        async (written, cleared, rewritten, query, limit) => {
          // Stored as 32-bit floats: scores to six places.
          const store = memoryVectorStore()
          const rows = new Map(written.map((vector, row) => [row, vector]))
          for (const [row, vector] of rows) {
            const put = document(row, vector)
            await store.putDocument(put.document, put.chunks, info)
          }
          // A removed document frees its row; the next document written takes it.
          for (const pick of cleared) {
            await store.removeDocument(`d${pick % written.length}`)
            rows.delete(pick % written.length)
          }
          for (const [at, vector] of rewritten.entries()) {
            const put = document(at * 3, vector)
            await store.putDocument(put.document, put.chunks, info)
            rows.set(at * 3, vector)
          }
          const found = await store.searchByVector(query, limit)
          await store.close()
          if (Math.hypot(...query) === 0) {
            expect(found).toEqual([])
            return
          }
          const expected = [...rows].map(([row, vector]) => ({ row, score: cosine(vector, query) })).sort((a, b) => b.score - a.score)
          expect(found.map((hit) => hit.score)).toEqual(expected.slice(0, limit).map((hit) => expect.closeTo(hit.score, 6)))
          for (const hit of found) expect(hit.score).toBeCloseTo(cosine(rows.get(rowOf(hit.chunk.documentId)) as Float32Array, query), 6)
        },
      ),
    )
  })

  it('finds nothing for a query of another length, and scores a row of zeros 0', async () => {
    const store = memoryVectorStore()
    const info = { model: 'm', dimensions: 3 }
    for (const [row, vector] of [Float32Array.from([0, 0, 0]), Float32Array.from([3, 4, 0])].entries()) {
      const put = document(row, vector)
      await store.putDocument(put.document, put.chunks, info)
    }
    expect(await store.searchByVector(Float32Array.from([1, 0]), 5)).toEqual([])
    const found = await store.searchByVector(Float32Array.from([0, 2, 0]), 5)
    expect(found.map((hit) => rowOf(hit.chunk.documentId))).toEqual([1, 0])
    expect(found.map((hit) => hit.score)).toEqual([expect.closeTo(0.8, 6), 0])
  })
})
