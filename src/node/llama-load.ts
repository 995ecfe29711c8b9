/**
 * Loading a GGUF model with node-llama-cpp (an optional peer dependency, imported on first use
 * so that a missing one is a `config` error with the install line): the library, the model file
 * (downloaded first for an `hf:` URI), the engine, the model. `local()` makes a completion
 * context of it and `localEmbeddings()` an embedding context; src/node/runtime.ts installs it
 * for them (`installLlamaLoader`).
 */
import { homedir } from 'node:os'
import { join } from 'node:path'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { describe, type LlamaEngine, type LlamaLoadOptions, type LoadLlamaModel } from '../adapters/llm/llama-engine.js'

const NODE_LLAMA_CPP = 'node-llama-cpp'

/**
 * The library's exports, the engine and the loaded model, typed by the shapes the caller uses.
 * A failed load disposes what it had started and says what to do.
 */
export const loadLlamaModel: LoadLlamaModel = async <Llama extends LlamaEngine, Model>(options: LlamaLoadOptions) => {
  let lib: Record<string, unknown>
  try {
    lib = (await import(NODE_LLAMA_CPP)) as Record<string, unknown>
  } catch (cause) {
    throw new LaconicError('local models need the optional package node-llama-cpp', {
      code: 'config',
      hint: 'npm i node-llama-cpp (its prebuilt llama.cpp binaries come from the npm registry)',
      cause,
    })
  }
  const modelPath = await resolveModel(lib, options)
  const getLlama = lib.getLlama as (o: object) => Promise<Llama & { loadModel(o: object): Promise<Model> }>
  const llama = await getLlama({ gpu: options.gpu ?? 'auto', build: 'never', progressLogs: false })
  try {
    return { lib, llama, model: await llama.loadModel({ modelPath }) }
  } catch (cause) {
    await llama.dispose()
    throw new LaconicError(`cannot load the model ${modelPath}: ${describe(cause)}`, { code: 'config', hint: 'is it a GGUF file llama.cpp supports?', cause })
  }
}

/** `~/.cache/laconic/models`. */
const defaultCacheDir = (): string => join(homedir(), '.cache', 'laconic', 'models')

async function resolveModel(lib: Record<string, unknown>, options: LlamaLoadOptions): Promise<string> {
  if (!options.model.startsWith('hf:')) return options.model
  const resolveModelFile = lib.resolveModelFile as (uri: string, o: object) => Promise<string>
  try {
    return await resolveModelFile(options.model, {
      directory: options.cacheDir ?? defaultCacheDir(),
      cli: options.progressBar ?? process.stderr.isTTY === true,
      ...(options.huggingFaceEndpoint && { endpoints: { huggingFace: options.huggingFaceEndpoint } }),
      ...(options.onDownloadProgress && {
        onProgress: ({ downloadedSize, totalSize }: { downloadedSize: number; totalSize: number }) =>
          options.onDownloadProgress?.({ downloadedBytes: downloadedSize, totalBytes: totalSize }),
      }),
    })
  } catch (cause) {
    throw new LaconicError(`cannot download ${options.model}: ${describe(cause)}`, {
      code: 'network',
      hint: 'check the connection (a download that stopped resumes on the next start), or pass a local GGUF path',
      cause,
    })
  }
}
