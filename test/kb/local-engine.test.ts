/**
 * The knowledge base on the real node-llama-cpp engine: `localEmbeddings()` over a tiny random
 * GGUF written by the test. Its vectors mean nothing, but they are real: the same text gives the
 * same vector, so a query equal to a chunk's embedded text is that chunk's nearest. Locally a
 * machine where the engine cannot load skips with a notice; in CI it fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { localEmbeddings } from '../../src/adapters/index.js'
import type { EmbeddingProvider } from '../../src/index.js'
import { knowledgeBase, memoryVectorStore } from '../../src/kb/index.js'
import { startTinyEmbedder, type TinyEmbedder } from '../adapters/embed/tiny-embedder.js'

type LocalEmbeddings = Awaited<ReturnType<typeof localEmbeddings>>

let tiny: TinyEmbedder
let engine: LocalEmbeddings
let unavailable: string | undefined

beforeAll(async () => {
  tiny = await startTinyEmbedder('knowledge base on the local engine')
  engine = tiny.embedder
  unavailable = tiny.unavailable
}, 120_000)

afterAll(async () => {
  await tiny?.close()
})

describe('knowledgeBase on localEmbeddings()', () => {
  it('indexes with real vectors, finds a chunk by its own embedded text, and re-indexes nothing unchanged', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    let calls = 0
    const counted: EmbeddingProvider = {
      model: engine.model,
      embed: (texts, options) => {
        calls += 1
        return engine.embed(texts, options)
      },
    }
    const store = memoryVectorStore()
    const kb = knowledgeBase({ store, embed: counted })
    const notes = [
      { url: 'note:tides', title: 'Tides', text: 'The moon pulls the oceans.' },
      { url: 'note:lava', title: 'Lava', text: 'Volcanoes erupt molten rock.' },
      { url: 'note:wool', title: 'Wool', text: 'Llamas grow a soft fleece.' },
    ]
    expect(await kb.index(notes)).toMatchObject({ added: 3, chunks: 3 })
    expect(await store.embedding()).toEqual({ model: engine.model, dimensions: 32 })

    const [nearest] = await store.searchByVector((await engine.embed(['Lava\n\nVolcanoes erupt molten rock.'])).vectors[0] as Float32Array, 1)
    expect(nearest?.chunk.url).toBe('note:lava')
    expect(nearest?.score).toBeCloseTo(1, 5)
    expect((await kb.search('Lava\n\nVolcanoes erupt molten rock.', { limit: 2 })).map((hit) => hit.url)).toContain('note:lava')

    const before = calls
    expect(await kb.index(notes)).toMatchObject({ unchanged: 3, chunks: 0 })
    expect(calls).toBe(before)
  })
})
