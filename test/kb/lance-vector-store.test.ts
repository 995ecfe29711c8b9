/**
 * `lanceVectorStore` on a real LanceDB folder: the shared contract, and what is LanceDB's own
 * (reopening, compaction, the full-text index over rows added after it).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { knowledgeBase } from '../../src/kb/index.js'
import { lanceVectorStore } from '../../src/lancedb/index.js'
import { fakeEmbedder } from './fake-embeddings.js'
import { chunk, doc, vectorStoreContract } from './vector-store-contract.js'

const folders: string[] = []
const folder = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'laconic-lance-'))
  folders.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(folders.map((dir) => rm(dir, { recursive: true, force: true })))
})

const paths = new WeakMap<object, string>()
vectorStoreContract('lanceVectorStore', {
  make: async () => {
    const path = await folder()
    const store = lanceVectorStore({ path, optimizeEvery: 3 })
    paths.set(store, path)
    return store
  },
  reopen: async (store) => {
    const path = paths.get(store) as string
    await store.close()
    return lanceVectorStore({ path })
  },
})

describe('lanceVectorStore', () => {
  it('keeps knowledge bases apart by table name in one folder', async () => {
    const path = await folder()
    const one = lanceVectorStore({ path, table: 'one' })
    const two = lanceVectorStore({ path, table: 'two' })
    await one.putDocument(doc('a', 1), [chunk('a', 0, 'only in one', [1, 0, 0])], { model: 'm', dimensions: 3 })
    expect(await two.documents()).toEqual([])
    expect((await one.documents()).map((d) => d.id)).toEqual(['a'])
    await Promise.all([one.close(), two.close()])
  })

  it('runs writes one at a time, so concurrent puts of many documents all land', async () => {
    const store = lanceVectorStore({ path: await folder(), optimizeEvery: 4 })
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        store.putDocument(doc(`d${i}`, 1), [chunk(`d${i}`, 0, `word${i} shared`, [1, i, 0])], { model: 'm', dimensions: 3 }),
      ),
    )
    expect((await store.documents()).length).toBe(12)
    expect(await store.searchByText('shared', 20)).toHaveLength(12)
    expect((await store.searchByText('word7', 5)).map((hit) => hit.chunk.id)).toEqual(['d7#0'])
    await store.close()
  })

  it('commits puts queued together as a group, yet settles each as if it ran alone', async () => {
    const store = lanceVectorStore({ path: await folder() })
    const model = { model: 'm', dimensions: 3 }
    await store.putDocument(doc('first', 1), [chunk('first', 0, 'holds the writer', [1, 0, 0])], model)
    const settled = await Promise.allSettled([
      store.putDocument(doc('a', 1), [chunk('a', 0, 'alpha old', [1, 0, 0])], model),
      store.putDocument(doc('b', 1), [chunk('b', 0, 'beta', [0, 1, 0])], { model: 'other', dimensions: 3 }),
      store.putDocument(doc('a', 1, 'h-a2'), [chunk('a', 0, 'alpha new', [0, 0, 1])], model),
      store.putDocument(doc('c', 1), [chunk('c', 0, 'gamma', [1, 1, 0])], model),
      store.removeDocument('c'),
      store.putDocument(doc('c', 1, 'h-c2'), [chunk('c', 0, 'gamma again', [0, 1, 1])], model),
      store.putDocument(doc('d', 1), [chunk('d', 0, 'short vector', [1, 0])], model),
    ])
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected'])
    const documents = (await store.documents()).sort((x, y) => x.id.localeCompare(y.id))
    expect(documents.map((d) => [d.id, d.hash])).toEqual([
      ['a', 'h-a2'],
      ['c', 'h-c2'],
      ['first', 'h-first'],
    ])
    expect((await store.chunksAround('a', 0, 5)).map((c) => c.text)).toEqual(['alpha new'])
    expect((await store.chunksAround('c', 0, 5)).map((c) => c.text)).toEqual(['gamma again'])
    expect(await store.searchByText('beta', 5)).toEqual([])
    await store.close()
  })

  it('searches through a vector index once the table is large, still finding a stored direction first', async () => {
    const path = await folder()
    const store = lanceVectorStore({ path, optimizeEvery: 5, indexFrom: 40 })
    // 60 chunks pointing 60 ways in 8 dimensions, at several lengths.
    const direction = (i: number) => Array.from({ length: 8 }, (_, axis) => Math.sin((i + 1) * (axis + 1) * 0.7) * (1 + (i % 3)))
    for (let i = 0; i < 60; i++) await store.putDocument(doc(`d${i}`, 1), [chunk(`d${i}`, 0, `chunk ${i}`, direction(i))], { model: 'm', dimensions: 8 })
    const lance = await import('@lancedb/lancedb')
    const db = await lance.connect(path)
    const table = await db.openTable('kb_chunks')
    expect((await table.listIndices()).map((index) => index.indexType)).toContain('IvfFlat')
    table.close()
    db.close()
    // A stored vector's own partition is the one closest to it, so the index always probes it.
    for (const i of [0, 17, 41, 59]) {
      const [best] = await store.searchByVector(Float32Array.from(direction(i)), 3)
      expect(best?.chunk.id).toBe(`d${i}#0`)
      expect(best?.score).toBeCloseTo(1, 4)
    }
    await store.close()
    const again = lanceVectorStore({ path, indexFrom: 40 })
    expect((await again.searchByVector(Float32Array.from(direction(33)), 1))[0]?.chunk.id).toBe('d33#0')
    await again.close()
  })

  it('leaves its tables compacted and wholly indexed once kb.index() has written, however few the writes', async () => {
    const path = await folder()
    const docs = join(path, 'docs')
    await mkdir(docs)
    const animals = ['llama', 'alpaca', 'vicuna', 'guanaco', 'camel', 'yak']
    for (const [i, animal] of animals.entries()) await writeFile(join(docs, `note-${i}.md`), `# Note ${i}\n\nThe ${animal} eats grass.\n`)
    // A batch of one chunk: one commit a document, far fewer than the default 50 between compactions.
    const kb = knowledgeBase({ store: lanceVectorStore({ path }), embed: fakeEmbedder(8), batchSize: 1, concurrency: 1 })
    expect((await kb.index([docs])).chunks).toBe(6)
    const lance = await import('@lancedb/lancedb')
    const db = await lance.connect(path)
    for (const name of ['kb_chunks', 'kb_documents']) {
      const table = await db.openTable(name)
      expect((await table.stats()).fragmentStats.numFragments, name).toBe(1)
      for (const index of await table.listIndices()) expect((await table.indexStats(index.name))?.numUnindexedRows, index.name).toBe(0)
      table.close()
    }
    db.close()
    expect((await kb.search('guanaco', { limit: 1 }))[0]?.url).toMatch(/note-3\.md#/)
    await kb.close()
  })

  it('refuses a path or table name it cannot use', () => {
    expect(() => lanceVectorStore({ path: '' })).toThrow('`path` is required')
    expect(() => lanceVectorStore({ path: 'x', table: "a'; drop" })).toThrow('`table` must be letters')
  })
})
