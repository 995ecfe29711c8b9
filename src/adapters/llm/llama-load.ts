/**
 * Loading a GGUF model with node-llama-cpp (an optional peer dependency, imported lazily so that
 * `laconic-research/adapters` loads without it): the library, the model file (downloaded first
 * for an `hf:` URI), the engine, the model. `local()` makes a completion context of it and
 * `localEmbeddings()` an embedding context.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'

/** What loading needs: the options of `local()` and `localEmbeddings()` both fit. */
export interface LlamaLoadOptions {
  model: string
  cacheDir?: string | undefined
  gpu?: false | 'auto' | undefined
  progressBar?: boolean | undefined
  onDownloadProgress?: ((progress: { downloadedBytes: number; totalBytes: number }) => void) | undefined
  huggingFaceEndpoint?: string | undefined
}

interface Engine {
  dispose(): Promise<void>
}

const NODE_LLAMA_CPP = 'node-llama-cpp'

/**
 * The library's exports, the engine and the loaded model, typed by the shapes the caller uses.
 * A failed load disposes what it had started and says what to do.
 */
export async function loadLlamaModel<Llama extends Engine, Model>(
  options: LlamaLoadOptions,
): Promise<{ lib: Record<string, unknown>; llama: Llama; model: Model }> {
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

/**
 * `~/.cache/laconic/models`. node:os and node:path load here, with the engine, and not with
 * `laconic-research/adapters`, which loads in any Web-standard runtime.
 */
async function defaultCacheDir(): Promise<string> {
  const [{ homedir }, { join }] = await Promise.all([import('node:os'), import('node:path')])
  return join(homedir(), '.cache', 'laconic', 'models')
}

async function resolveModel(lib: Record<string, unknown>, options: LlamaLoadOptions): Promise<string> {
  if (!options.model.startsWith('hf:')) return options.model
  const resolveModelFile = lib.resolveModelFile as (uri: string, o: object) => Promise<string>
  try {
    return await resolveModelFile(options.model, {
      directory: options.cacheDir ?? (await defaultCacheDir()),
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

/** An engine error's message, cut to a length an error message can carry. */
export function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300)
}
