import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryVectorStore } from '../../src/kb/index.js'

const info = { model: 'm', dimensions: 2 }

/** A one-chunk document whose vector makes a cosine of `score / 3` with the query [1, 0]. */
function scored(row: number, score: number) {
  const cos = score / 3
  const id = `d${row}`
  const url = `https://example.org/${id}`
  return {
    document: { id, url, title: id, hash: id, chunks: 1, indexedAt: '2026-01-01T00:00:00.000Z' },
    chunk: { id: `${id}#0`, documentId: id, url, title: id, headings: [], position: 0, text: id, vector: Float32Array.from([cos, Math.sqrt(1 - cos * cos)]) },
  }
}

describe('the best rows of a vector search', () => {
  it('keeps the `limit` best rows, best first, a tie going to the row offered first', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: -3, max: 3 })), fc.integer({ min: 0, max: 5 }), async (scores, limit) => {
        const store = memoryVectorStore()
        for (const [row, score] of scores.entries()) {
          const { document, chunk } = scored(row, score)
          await store.putDocument(document, [chunk], info)
        }
        const found = await store.searchByVector(Float32Array.from([1, 0]), limit)
        const sorted = scores.map((score, row) => ({ row, score })).sort((a, b) => b.score - a.score || a.row - b.row)
        const best = sorted.slice(0, limit)
        expect(found.map((hit) => hit.chunk.documentId)).toEqual(best.map((hit) => `d${hit.row}`))
        expect(found.map((hit) => hit.score)).toEqual(best.map((hit) => expect.closeTo(hit.score / 3, 6)))
        await store.close()
      }),
    )
  })
})
