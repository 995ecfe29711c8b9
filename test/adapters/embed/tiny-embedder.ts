/**
 * The real node-llama-cpp embedding engine on a tiny GGUF written for the test. Where the engine
 * cannot load, `unavailable` says why (the tests skip with it, after a visible notice); in CI
 * (`CI` set) the load error fails the suite instead.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { localEmbeddings } from '../../../src/adapters/index.js'
import { writeTinyGguf } from '../llm/local/tiny-gguf.js'

type LocalEmbeddings = Awaited<ReturnType<typeof localEmbeddings>>

export interface TinyEmbedder {
  /** The GGUF file, in a folder of the test's own. */
  modelPath: string
  embedder: LocalEmbeddings
  unavailable: string | undefined
  close(): Promise<void>
}

/** `what` names the tests in the skip notice. */
export async function startTinyEmbedder(what: string): Promise<TinyEmbedder> {
  const dir = await mkdtemp(join(tmpdir(), 'laconic-embed-'))
  await writeTinyGguf(join(dir, 'tiny.gguf'), { embedding: 32 })
  const modelPath = join(dir, 'tiny.gguf')
  const embedder = localEmbeddings({ model: modelPath, gpu: false, threads: 1, contextSize: 64 })
  let unavailable: string | undefined
  try {
    await embedder.load()
  } catch (error) {
    if (process.env.CI) throw error
    unavailable = `node-llama-cpp cannot run here (${(error as Error).message}); run \`npm ci\` on a machine its prebuilt binaries support`
    console.warn(`[skipped] ${what}: ${unavailable}`)
  }
  return {
    modelPath,
    embedder,
    unavailable,
    async close() {
      await embedder.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
