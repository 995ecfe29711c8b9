import { describe, expect, it } from 'vitest'
import { memoryVectorStore, type VectorStore } from '../../src/kb/index.js'

type Chunk = Parameters<VectorStore['putDocument']>[1][number]
type StoredDocument = Parameters<VectorStore['putDocument']>[0]

const MODEL = { model: 'fake', dimensions: 3 }

function doc(id: string, chunks: number): StoredDocument {
  return { id, url: `file:///${id}`, title: id, hash: `h-${id}`, chunks, indexedAt: '2026-01-01T00:00:00.000Z' }
}

function chunk(documentId: string, position: number, text: string, vector: number[]): Chunk {
  return {
    id: `${documentId}#${position}`,
    documentId,
    url: `file:///${documentId}`,
    title: documentId,
    headings: [],
    position,
    text,
    vector: Float32Array.from(vector),
  }
}

describe('memoryVectorStore', () => {
  it('ranks chunks by cosine similarity, closest first', async () => {
    const store = memoryVectorStore()
    await store.putDocument(doc('a', 3), [chunk('a', 0, 'x', [1, 0, 0]), chunk('a', 1, 'y', [0, 1, 0]), chunk('a', 2, 'z', [1, 1, 0])], MODEL)
    const found = await store.searchByVector(Float32Array.from([2, 0.1, 0]), 2)
    expect(found.map((hit) => hit.chunk.id)).toEqual(['a#0', 'a#2'])
    expect(found[0]?.score).toBeCloseTo(0.9988, 3)
    expect(await store.searchByVector(Float32Array.from([0, 0, 0]), 2)).toEqual([])
  })

  it('finds chunks by words, headings and titles included', async () => {
    const store = memoryVectorStore()
    await store.putDocument(
      doc('a', 2),
      [chunk('a', 0, 'tides follow the moon', [1, 0, 0]), { ...chunk('a', 1, 'nothing here', [0, 1, 0]), headings: ['Volcanoes'] }],
      MODEL,
    )
    expect((await store.searchByText('moon', 5)).map((hit) => hit.chunk.id)).toEqual(['a#0'])
    expect((await store.searchByText('volcanoes', 5)).map((hit) => hit.chunk.id)).toEqual(['a#1'])
    expect(await store.searchByText('   ', 5)).toEqual([])
  })

  it('replaces a document whole: its old chunks are no longer found', async () => {
    const store = memoryVectorStore()
    await store.putDocument(doc('a', 2), [chunk('a', 0, 'old words', [1, 0, 0]), chunk('a', 1, 'older words', [0, 1, 0])], MODEL)
    await store.putDocument({ ...doc('a', 1), hash: 'new' }, [chunk('a', 0, 'new text', [0, 0, 1])], MODEL)
    expect(await store.searchByText('old', 5)).toEqual([])
    expect((await store.searchByVector(Float32Array.from([0, 1, 0]), 5)).map((hit) => hit.chunk.id)).toEqual(['a#0'])
    expect((await store.documents()).map((stored) => [stored.id, stored.hash, stored.chunks])).toEqual([['a', 'new', 1]])
  })

  it('returns the neighbours of a chunk in order, and forgets a removed document', async () => {
    const store = memoryVectorStore()
    const chunks = [3, 0, 2, 1].map((position) => chunk('a', position, `part ${position}`, [1, position, 0]))
    await store.putDocument(doc('a', 4), chunks, MODEL)
    expect((await store.chunksAround('a', 1, 2)).map((found) => found.position)).toEqual([1, 2])
    expect(await store.chunksAround('missing', 0, 9)).toEqual([])
    await store.removeDocument('a')
    expect(await store.documents()).toEqual([])
    expect(await store.searchByText('part', 5)).toEqual([])
    expect(await store.embedding()).toBeUndefined()
  })

  it('refuses vectors of another model, or of another length', async () => {
    const store = memoryVectorStore()
    await store.putDocument(doc('a', 1), [chunk('a', 0, 'x', [1, 0, 0])], MODEL)
    expect(await store.embedding()).toEqual(MODEL)
    await expect(store.putDocument(doc('b', 1), [chunk('b', 0, 'x', [1, 0, 0])], { model: 'other', dimensions: 3 })).rejects.toThrow(
      /holds vectors of fake \(3 dimensions\), not other/,
    )
    await expect(store.putDocument(doc('b', 1), [chunk('b', 0, 'x', [1, 0])], MODEL)).rejects.toThrow(/vector of 2 numbers, not 3/)
    expect((await store.documents()).map((stored) => stored.id)).toEqual(['a'])
  })

  it('keeps its own copies: a caller changing a chunk or a result changes nothing stored', async () => {
    const store = memoryVectorStore()
    const original = chunk('a', 0, 'x', [1, 0, 0])
    await store.putDocument(doc('a', 1), [original], MODEL)
    original.vector[0] = 0
    original.headings.push('changed')
    const [hit] = await store.searchByVector(Float32Array.from([1, 0, 0]), 1)
    expect(hit?.score).toBeCloseTo(1)
    expect(hit?.chunk.headings).toEqual([])
  })

  it("gives a removed document's rows to the next chunks: searches find only what is stored, whatever the limit", async () => {
    const store = memoryVectorStore()
    await store.putDocument(
      doc('a', 3),
      [chunk('a', 0, 'alpha one', [1, 0, 0]), chunk('a', 1, 'alpha two', [1, 1, 0]), chunk('a', 2, 'alpha three', [1, 0, 1])],
      MODEL,
    )
    await store.putDocument(doc('b', 2), [chunk('b', 0, 'beta one', [0, 1, 0]), chunk('b', 1, 'beta two', [0, 1, 1])], MODEL)
    await store.removeDocument('a')
    await store.putDocument(doc('c', 1), [chunk('c', 0, 'gamma one', [1, 0, 0])], MODEL)
    const nearest = await store.searchByVector(Float32Array.from([1, 0, 0]), 10)
    expect(nearest.map((hit) => hit.chunk.id)).toEqual(['c#0', 'b#0', 'b#1'])
    expect(nearest.map((hit) => hit.chunk.text)).toEqual(['gamma one', 'beta one', 'beta two'])
    expect(await store.searchByText('alpha', 10)).toEqual([])
    expect((await store.searchByText('one', 10)).map((hit) => hit.chunk.id).sort()).toEqual(['b#0', 'c#0'])
    await store.putDocument({ ...doc('b', 1), hash: 'new' }, [chunk('b', 0, 'beta again', [0, 0, 1])], MODEL)
    expect((await store.searchByVector(Float32Array.from([0, 0, 1]), 10)).map((hit) => hit.chunk.id)).toEqual(['b#0', 'c#0'])
    expect((await store.searchByText('one', 10)).map((hit) => hit.chunk.id)).toEqual(['c#0'])
  })

  it('refuses every call once closed', async () => {
    const store = memoryVectorStore()
    await store.close()
    await expect(store.documents()).rejects.toThrow(/closed/)
  })
})
