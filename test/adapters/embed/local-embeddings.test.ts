/**
 * `localEmbeddings()` on the real engine: node-llama-cpp's embedding context over a tiny random
 * GGUF written by the test. Locally a machine where the engine cannot load skips with a notice;
 * in CI it fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localEmbeddings } from '../../../src/adapters/index.js'
import { startTinyEmbedder, type TinyEmbedder } from './tiny-embedder.js'

type LocalEmbeddings = Awaited<ReturnType<typeof localEmbeddings>>

let tiny: TinyEmbedder
let embedder: LocalEmbeddings
let unavailable: string | undefined

beforeAll(async () => {
  tiny = await startTinyEmbedder('local embedding tests')
  embedder = tiny.embedder
  unavailable = tiny.unavailable
}, 120_000)

afterAll(async () => {
  await tiny?.close()
})

describe('localEmbeddings() on node-llama-cpp', () => {
  it('returns one vector of the model’s width per text, in order, the same text giving the same vector', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const texts = ['tides follow the moon', 'volcanoes', 'tides follow the moon']
    const result = await embedder.embed(texts)
    expect(result.vectors).toHaveLength(3)
    for (const vector of result.vectors) {
      expect(vector).toBeInstanceOf(Float32Array)
      expect(vector).toHaveLength(32)
      expect(vector.every(Number.isFinite)).toBe(true)
    }
    expect(result.vectors[2]).toEqual(result.vectors[0])
    expect(result.vectors[1]).not.toEqual(result.vectors[0])
    expect(embedder.dimensions).toBe(32)
    expect(result.inputTokens).toBeGreaterThan(texts.join('').length / 2)
    expect(result.cost).toBe(0)
    // Batches change nothing: one text at a time gives the vectors of the whole call.
    expect((await embedder.embed(['volcanoes'])).vectors[0]).toEqual(result.vectors[1])
  })

  it('cuts a text longer than the context to fit instead of failing', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const long = 'word '.repeat(400)
    const result = await embedder.embed([long, 'short'])
    expect(result.vectors.map((v) => v.length)).toEqual([32, 32])
    expect(result.inputTokens).toBeLessThan(64 + 20)
  })

  it('stops between texts when the signal aborts', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const controller = new AbortController()
    controller.abort(new Error('enough'))
    await expect(embedder.embed(['a', 'b'], { signal: controller.signal })).rejects.toMatchObject({ code: 'aborted', message: 'enough' })
  })

  it('says what is wrong with a file that is not a model, and loads again after close', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const missing = localEmbeddings({ model: `${tiny.modelPath}.missing`, gpu: false })
    await expect(missing.embed(['a'])).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('cannot load the model') })
    const again = localEmbeddings({ model: tiny.modelPath, gpu: false, threads: 1, contextSize: 64 })
    const first = (await again.embed(['x'])).vectors[0]
    await again.close()
    expect((await again.embed(['x'])).vectors[0]).toEqual(first)
    await again.close()
  })
})
