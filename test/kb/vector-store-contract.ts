/**
 * The behaviour every `VectorStore` keeps, as one suite each store's test runs against its own
 * store: the in-memory reference, LanceDB, Postgres (on PGlite). A new store passes it too.
 */
import { describe, expect, it } from 'vitest'
import type { VectorStore } from '../../src/kb/index.js'

type Chunk = Parameters<VectorStore['putDocument']>[1][number]
type StoredDocument = Parameters<VectorStore['putDocument']>[0]

export interface ContractSubject {
  /** A new, empty store. */
  make(): Promise<VectorStore>
  /** A second store over the first one's data (a store that persists), or undefined. */
  reopen?: ((store: VectorStore) => Promise<VectorStore>) | undefined
  /** Whether `make` can run here; a string is the reason it cannot (the suite then skips with it). */
  unavailable?: () => string | undefined
}

const MODEL = { model: 'fake-embed', dimensions: 3 }

export function doc(id: string, chunks: number, hash = `h-${id}`): StoredDocument {
  return { id, url: `file:///docs/${id}.md`, title: `Title ${id}`, hash, chunks, indexedAt: '2026-11-26T12:00:00.000Z' }
}

export function chunk(documentId: string, position: number, text: string, vector: number[], headings: string[] = []): Chunk {
  return {
    id: `${documentId}#${position}`,
    documentId,
    url: `file:///docs/${documentId}.md`,
    title: `Title ${documentId}`,
    headings,
    position,
    text,
    vector: Float32Array.from(vector),
  }
}

const ids = (hits: Array<{ chunk: Chunk }>) => hits.map((hit) => hit.chunk.id)

/** Chunks with their vectors scaled to length 1: a store may give them back either way. */
const directions = (chunks: readonly Chunk[]) =>
  chunks.map((chunk) => {
    const length = Math.hypot(...chunk.vector)
    return { ...chunk, vector: Array.from(chunk.vector, (value) => Number((value / length).toFixed(5))) }
  })

export function vectorStoreContract(name: string, subject: ContractSubject): void {
  describe(`${name} keeps the VectorStore contract`, () => {
    const withStore = (title: string, body: (store: VectorStore) => Promise<void>, timeout = 60_000) =>
      it(
        title,
        async ({ skip }) => {
          const reason = subject.unavailable?.()
          if (reason) skip(reason)
          const store = await subject.make()
          try {
            await body(store)
          } finally {
            await store.close()
          }
        },
        timeout,
      )

    withStore('starts empty: no model, no documents, nothing found', async (store) => {
      expect(await store.embedding()).toBeUndefined()
      expect(await store.documents()).toEqual([])
      expect(await store.searchByVector(Float32Array.from([1, 0, 0]), 5)).toEqual([])
      expect(await store.searchByText('anything', 5)).toEqual([])
      expect(await store.chunksAround('a', 0, 5)).toEqual([])
    })

    withStore('keeps documents, their chunks field for field (vectors by direction), and the model they were embedded with', async (store) => {
      const quoted = chunk("it's", 0, 'Ünïcödé — "quotes" and \'apostrophes\'; DROP TABLE x; --', [0.25, -0.5, 1], ['Part 1', 'Ch. 2'])
      await store.putDocument(doc("it's", 1), [quoted], MODEL)
      await store.putDocument(doc('b', 2), [chunk('b', 0, 'first', [1, 0, 0]), chunk('b', 1, 'second', [0, 1, 0])], MODEL)
      expect(await store.embedding()).toEqual(MODEL)
      expect((await store.documents()).sort((x, y) => x.id.localeCompare(y.id))).toEqual([doc('b', 2), doc("it's", 1)])
      expect(directions(await store.chunksAround("it's", 0, 0))).toEqual(directions([quoted]))
    })

    withStore('ranks chunks by cosine similarity, closest first, an identical direction scoring 1', async (store) => {
      await store.putDocument(doc('a', 3), [chunk('a', 0, 'x', [1, 0, 0]), chunk('a', 1, 'y', [0, 1, 0]), chunk('a', 2, 'z', [1, 1, 0])], MODEL)
      await store.putDocument(doc('b', 1), [chunk('b', 0, 'w', [0, 0, 1])], MODEL)
      const found = await store.searchByVector(Float32Array.from([2, 0.1, 0]), 2)
      expect(ids(found)).toEqual(['a#0', 'a#2'])
      expect(found[0]?.score).toBeCloseTo(0.9988, 3)
      expect(found[1]?.score).toBeCloseTo(Math.SQRT1_2 * (2.1 / Math.hypot(2, 0.1)), 3)
      expect(ids(await store.searchByVector(Float32Array.from([0, 0, 5]), 1))).toEqual(['b#0'])
      expect((await store.searchByVector(Float32Array.from([0, 0, 5]), 1))[0]?.score).toBeCloseTo(1, 5)
      expect(await store.searchByVector(Float32Array.from([1, 0, 0]), 10)).toHaveLength(4)
      // A vector of another width, or no direction at all, finds nothing rather than failing.
      expect(await store.searchByVector(Float32Array.from([1, 0]), 5)).toEqual([])
      expect(await store.searchByVector(Float32Array.from([0, 0, 0]), 5)).toEqual([])
    })

    withStore('finds chunks by the words of their text, headings and title, best first, at most `limit`', async (store) => {
      await store.putDocument(
        doc('tides', 3),
        [
          chunk('tides', 0, 'The tides follow the moon, and the moon pulls the sea.', [1, 0, 0]),
          chunk('tides', 1, 'Nothing to see here.', [0, 1, 0], ['Volcanoes']),
          chunk('tides', 2, 'A moon is mentioned once.', [0, 0, 1]),
        ],
        MODEL,
      )
      await store.putDocument(doc('lava', 1), [chunk('lava', 0, 'Basalt flows cool into rock.', [1, 1, 1])], MODEL)
      const moon = await store.searchByText('moon', 5)
      expect(ids(moon)).toEqual(['tides#0', 'tides#2'])
      expect(moon[0]?.score).toBeGreaterThan(moon[1]?.score ?? Number.POSITIVE_INFINITY)
      expect(ids(await store.searchByText('volcanoes', 5))).toEqual(['tides#1'])
      expect(ids(await store.searchByText('Title lava', 5))).toContain('lava#0')
      expect(await store.searchByText('moon', 1)).toHaveLength(1)
      expect(await store.searchByText('   ', 5)).toEqual([])
      expect(await store.searchByText('zeppelin', 5)).toEqual([])
    })

    withStore('matches any of the words, ranks the rare topic above question words, and matches word forms', async (store) => {
      await store.putDocument(
        doc('spec', 1),
        [chunk('spec', 0, 'What is this spec? What is it for, and what is it not? This is what it is.', [1, 0, 0])],
        MODEL,
      )
      await store.putDocument(doc('wabi', 1), [chunk('wabi', 0, 'Wabi-sabi finds beauty in imperfect, impermanent things.', [0, 1, 0])], MODEL)
      await store.putDocument(doc('tea', 1), [chunk('tea', 0, 'Tea bowls are often imperfect, and tea is bitter.', [0, 0, 1])], MODEL)
      expect(ids(await store.searchByText('What is wabi?', 5))[0]).toBe('wabi#0')
      // One word no chunk has does not hide the chunk that has the other.
      expect(ids(await store.searchByText('wabi zeppelin', 5))).toEqual(['wabi#0'])
      expect(ids(await store.searchByText('imperfection', 5)).sort()).toEqual(['tea#0', 'wabi#0'])
      // The rarer word decides: "wabi" is in one chunk, "imperfect" in two.
      expect(ids(await store.searchByText('imperfect wabi', 5))).toEqual(['wabi#0', 'tea#0'])
    })

    withStore('replaces a document whole: the old chunks are gone from every search', async (store) => {
      await store.putDocument(
        doc('a', 3),
        [chunk('a', 0, 'old alpha', [1, 0, 0]), chunk('a', 1, 'old beta', [0, 1, 0]), chunk('a', 2, 'old gamma', [0, 0, 1])],
        MODEL,
      )
      await store.putDocument(doc('b', 1), [chunk('b', 0, 'other document', [1, 1, 0])], MODEL)
      await store.putDocument(doc('a', 1, 'h-new'), [chunk('a', 0, 'new alpha', [0, 0, 1])], MODEL)
      expect((await store.documents()).find((d) => d.id === 'a')).toEqual(doc('a', 1, 'h-new'))
      expect(directions(await store.chunksAround('a', 0, 10))).toEqual(directions([chunk('a', 0, 'new alpha', [0, 0, 1])]))
      expect(await store.searchByText('old', 5)).toEqual([])
      expect(ids(await store.searchByText('alpha', 5))).toEqual(['a#0'])
      expect(ids(await store.searchByVector(Float32Array.from([0, 1, 0]), 5)).sort()).toEqual(['a#0', 'b#0'])
      await store.putDocument(doc('a', 0, 'h-empty'), [], MODEL)
      expect(await store.chunksAround('a', 0, 10)).toEqual([])
      expect((await store.documents()).find((d) => d.id === 'a')?.chunks).toBe(0)
    })

    withStore('returns the chunks of a document between two positions, in order', async (store) => {
      const chunks = [4, 0, 2, 1, 3].map((p) => chunk('a', p, `part ${p}`, [1, p, 0]))
      await store.putDocument(doc('a', 5), chunks, MODEL)
      await store.putDocument(doc('b', 2), [chunk('b', 1, 'b one', [0, 1, 0]), chunk('b', 2, 'b two', [0, 1, 1])], MODEL)
      expect((await store.chunksAround('a', 1, 3)).map((c) => c.position)).toEqual([1, 2, 3])
      expect((await store.chunksAround('a', -2, 0)).map((c) => c.id)).toEqual(['a#0'])
      expect((await store.chunksAround('b', 0, 9)).map((c) => c.id)).toEqual(['b#1', 'b#2'])
      expect(await store.chunksAround('missing', 0, 9)).toEqual([])
    })

    withStore('removes a document, and once empty takes another model', async (store) => {
      await store.putDocument(doc('a', 1), [chunk('a', 0, 'alpha words', [1, 0, 0])], MODEL)
      await store.putDocument(doc('b', 1), [chunk('b', 0, 'beta words', [0, 1, 0])], MODEL)
      await store.removeDocument('a')
      await store.removeDocument('never-there')
      expect((await store.documents()).map((d) => d.id)).toEqual(['b'])
      expect(ids(await store.searchByText('words', 5))).toEqual(['b#0'])
      expect(await store.chunksAround('a', 0, 5)).toEqual([])
      await store.removeDocument('b')
      expect(await store.embedding()).toBeUndefined()
      const wider = { model: 'other-embed', dimensions: 4 }
      await store.putDocument(doc('c', 1), [chunk('c', 0, 'gamma', [0, 0, 0, 1])], wider)
      expect(await store.embedding()).toEqual(wider)
      expect(ids(await store.searchByVector(Float32Array.from([0, 0, 0, 2]), 5))).toEqual(['c#0'])
    })

    withStore("refuses another model's vectors, or vectors of another length, and keeps what it had", async (store) => {
      await store.putDocument(doc('a', 1), [chunk('a', 0, 'alpha', [1, 0, 0])], MODEL)
      await expect(store.putDocument(doc('b', 1), [chunk('b', 0, 'beta', [1, 0, 0])], { model: 'other', dimensions: 3 })).rejects.toMatchObject({
        code: 'config',
        message: expect.stringContaining('fake-embed'),
      })
      await expect(store.putDocument(doc('b', 1), [chunk('b', 0, 'beta', [1, 0])], MODEL)).rejects.toMatchObject({ code: 'config' })
      expect((await store.documents()).map((d) => d.id)).toEqual(['a'])
      expect(await store.searchByText('beta', 5)).toEqual([])
    })

    withStore('is closed after close()', async (store) => {
      await store.close()
      await expect(Promise.resolve().then(() => store.documents())).rejects.toMatchObject({ code: 'config' })
    })

    if (subject.reopen) {
      const reopen = subject.reopen
      withStore('keeps everything for the next process that opens it', async (store) => {
        await store.putDocument(doc('a', 2), [chunk('a', 0, 'kept words', [1, 0, 0], ['H']), chunk('a', 1, 'more', [0, 1, 0])], MODEL)
        const again = await reopen(store)
        try {
          expect(await again.embedding()).toEqual(MODEL)
          expect(await again.documents()).toEqual([doc('a', 2)])
          expect(ids(await again.searchByText('kept', 5))).toEqual(['a#0'])
          expect(ids(await again.searchByVector(Float32Array.from([0, 1, 0]), 1))).toEqual(['a#1'])
          expect(directions(await again.chunksAround('a', 0, 1))).toEqual(
            directions([chunk('a', 0, 'kept words', [1, 0, 0], ['H']), chunk('a', 1, 'more', [0, 1, 0])]),
          )
        } finally {
          await again.close()
        }
      })
    }
  })
}
