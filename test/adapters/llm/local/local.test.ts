/**
 * `local()` on the real engine: node-llama-cpp's prebuilt llama.cpp loads a tiny random GGUF
 * written by the test, samples from it, and is constrained by grammars built from schemas.
 * Locally a machine where the engine cannot load skips with a notice; in CI it fails.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { local } from '../../../../src/adapters/index.js'
import type { LLMChunk, LLMRequest } from '../../../../src/index.js'
import { writeTinyGguf } from './tiny-gguf.js'

type LocalModel = ReturnType<typeof local>

let dir: string
let model: LocalModel
let unavailable: string | undefined

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'laconic-local-'))
  await writeTinyGguf(join(dir, 'tiny.gguf'))
  model = local({ model: join(dir, 'tiny.gguf'), gpu: false, contextSize: 2048, parallel: 2, threads: 1 })
  try {
    await model.load()
  } catch (error) {
    if (process.env.CI) throw error
    unavailable = `node-llama-cpp cannot run here (${(error as Error).message}); run \`npm ci\` on a machine its prebuilt binaries support`
    console.warn(`[skipped] local model tests: ${unavailable}`)
  }
}, 120_000)

afterAll(async () => {
  await model?.close()
  await rm(dir, { recursive: true, force: true })
})

async function collect(req: LLMRequest): Promise<LLMChunk[]> {
  const chunks: LLMChunk[] = []
  for await (const chunk of model.stream(req)) chunks.push(chunk)
  return chunks
}

/**
 * Characters as the grammar counts them: a random model can sample bytes that llama.cpp takes
 * as one (invalid) UTF-8 sequence and the decoder turns into a run of U+FFFD, one per byte.
 */
const characters = (value: string) => [...value.replace(/\uFFFD+/g, '\uFFFD')].length

const text = (chunks: LLMChunk[]) => chunks.map((c) => (c.type === 'text' ? c.text : '')).join('')

describe('local() on node-llama-cpp', () => {
  it('streams tokens as they are sampled and reports usage as the last chunk', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const chunks = await collect({ system: 'Be brief.', prompt: 'Why is the sky blue?', maxTokens: 24, temperature: 0 })
    const texts = chunks.filter((c) => c.type === 'text')
    expect(texts.length).toBeGreaterThan(1)
    const usage = chunks.at(-1)
    expect(usage?.type).toBe('usage')
    if (usage?.type !== 'usage') return
    expect(usage.inputTokens).toBeGreaterThan(5)
    expect(usage.outputTokens).toBeGreaterThan(0)
    expect(usage.outputTokens).toBeLessThanOrEqual(24 + 3) // + the bytes that finish a UTF-8 character
    expect(usage.cost).toBe(0)
  })

  it('constrains a schema call with a grammar: the reply is JSON of that schema', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const schema = {
      type: 'object',
      properties: {
        queries: { type: 'array', items: { type: 'string', maxLength: 12 }, maxItems: 3 },
        done: { type: 'boolean' },
      },
      required: ['queries', 'done'],
      additionalProperties: false,
    }
    for (const temperature of [0, 0.9]) {
      const reply = JSON.parse(text(await collect({ prompt: 'Plan searches.', json: schema, maxTokens: 400, temperature }))) as Record<string, unknown>
      expect(Object.keys(reply).sort()).toEqual(['done', 'queries'])
      expect(typeof reply.done).toBe('boolean')
      expect(Array.isArray(reply.queries)).toBe(true)
      for (const query of reply.queries as unknown[]) {
        expect(typeof query).toBe('string')
        expect(characters(query as string)).toBeLessThanOrEqual(12)
      }
    }
  })

  it('stops sampling on abort, and the freed sequence serves the next call', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const controller = new AbortController()
    let seen = 0
    const run = async () => {
      for await (const chunk of model.stream({ prompt: 'Tell a long story.', maxTokens: 100_000, signal: controller.signal })) {
        if (chunk.type === 'text' && ++seen === 3) controller.abort()
      }
    }
    await expect(run()).rejects.toMatchObject({ code: 'aborted' })
    expect(seen).toBe(3)
    const after = await collect({ prompt: 'Again.', maxTokens: 4 })
    expect(after.at(-1)).toMatchObject({ type: 'usage', outputTokens: expect.any(Number) })
  })

  it('leaving the loop early stops the generation too', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    let usage: LLMChunk | undefined
    for await (const chunk of model.stream({ prompt: 'Count forever.', maxTokens: 100_000 })) {
      if (chunk.type === 'usage') usage = chunk
      break
    }
    expect(usage).toBeUndefined()
    const [a, b] = await Promise.all([collect({ prompt: 'One.', maxTokens: 3 }), collect({ prompt: 'Two.', maxTokens: 3 })])
    // A random model may sample end-of-text early; at the cap, node-llama-cpp may sample up to
    // three more byte tokens to finish a UTF-8 character it started.
    for (const chunks of [a, b]) {
      const usage = chunks.at(-1)
      expect(usage?.type === 'usage' && usage.outputTokens).toBeGreaterThan(0)
      expect(usage?.type === 'usage' && usage.outputTokens).toBeLessThanOrEqual(3 + 3)
    }
  })
})

describe('local() setup errors', () => {
  it('refuses an empty model name with a config error', () => {
    expect(() => local({ model: ' ' })).toThrow(/GGUF file path or an hf:/)
  })

  it('a missing file is a config error naming it', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const missing = local({ model: join(dir, 'nope.gguf'), gpu: false, threads: 1 })
    await expect(missing.load()).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('nope.gguf') })
  })

  it('an hf: model is downloaded on first use into the cache folder, with progress, then loads', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const file = await readFile(join(dir, 'tiny.gguf'))
    const requests: string[] = []
    const mirror = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`)
      if (!req.url?.startsWith('/someone/tiny/resolve/main/tiny.gguf')) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length, 'accept-ranges': 'none' })
      res.end(req.method === 'HEAD' ? undefined : file)
    })
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve))
    const { port } = mirror.address() as AddressInfo
    const progress: number[] = []
    const cacheDir = join(dir, 'cache')
    const remote = local({
      model: 'hf:someone/tiny/tiny.gguf',
      cacheDir,
      huggingFaceEndpoint: `http://127.0.0.1:${port}/`,
      progressBar: false,
      onDownloadProgress: ({ downloadedBytes }) => progress.push(downloadedBytes),
      gpu: false,
      threads: 1,
    })
    try {
      await remote.load()
      expect(progress.at(-1)).toBe(file.length)
      expect((await readdir(cacheDir)).some((name) => name.endsWith('.gguf'))).toBe(true)
      const chunks: LLMChunk[] = []
      for await (const chunk of remote.stream({ prompt: 'Hi.', maxTokens: 2 })) chunks.push(chunk)
      expect(chunks.at(-1)?.type).toBe('usage')
    } finally {
      await remote.close()
      mirror.close()
    }
  })

  it('an hf: model that cannot be downloaded is a network error that says what to do', async ({ skip }) => {
    if (unavailable) skip(unavailable)
    const down = createServer((_req, res) => res.writeHead(404).end())
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve))
    const { port } = down.address() as AddressInfo
    const offline = local({
      model: 'hf:someone/tiny/tiny.gguf',
      cacheDir: join(dir, 'offline'),
      huggingFaceEndpoint: `http://127.0.0.1:${port}/`,
      progressBar: false,
    })
    try {
      await expect(offline.load()).rejects.toMatchObject({
        code: 'network',
        message: expect.stringMatching(/cannot download hf:someone\/tiny\/tiny\.gguf.*resumes/),
      })
    } finally {
      down.close()
    }
  })
})
