/**
 * Where `local()` and `localEmbeddings()` get their GGUF models from: node-llama-cpp runs on
 * Node only, so loading lives in src/node/llama-load.ts and is installed here with
 * `installLlamaLoader` (src/node/runtime.ts does, on Node). Elsewhere a local model fails on
 * first use with a `config` error, as it would without the package.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import { NODE_SETUP_HINT, runsOnNode } from '../../core/util/node-setup.js'

/** What loading needs: the options of `local()` and `localEmbeddings()` both fit. */
export interface LlamaLoadOptions {
  model: string
  cacheDir?: string | undefined
  gpu?: false | 'auto' | undefined
  progressBar?: boolean | undefined
  onDownloadProgress?: ((progress: { downloadedBytes: number; totalBytes: number }) => void) | undefined
  huggingFaceEndpoint?: string | undefined
}

export interface LlamaEngine {
  dispose(): Promise<void>
}

/**
 * Loads a model: the library's exports, the engine and the model, typed by the shapes the
 * caller uses. A failed load disposes what it had started and says what to do.
 */
export type LoadLlamaModel = <Llama extends LlamaEngine, Model>(
  options: LlamaLoadOptions,
) => Promise<{ lib: Record<string, unknown>; llama: Llama; model: Model }>

let loader: LoadLlamaModel | undefined

/** Installs the GGUF loader (src/node/runtime.ts does, on Node). */
export function installLlamaLoader(load: LoadLlamaModel): void {
  loader = load
}

export const loadLlamaModel: LoadLlamaModel = (options) => {
  if (!loader) {
    return Promise.reject(
      new LaconicError('local models run on Node (node-llama-cpp), whose GGUF loader is not installed', {
        code: 'config',
        hint: runsOnNode() ? NODE_SETUP_HINT : 'use a model server (ollama(), openai() with a baseURL) in this runtime',
      }),
    )
  }
  return loader(options)
}

/** An engine error's message, cut to a length an error message can carry. */
export function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300)
}
