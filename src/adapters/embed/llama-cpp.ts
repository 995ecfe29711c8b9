/**
 * `localEmbeddings({ model })`: a GGUF embedding model (nomic-embed-text, bge, gte, Qwen3
 * Embedding, …) run in this process by node-llama-cpp's embedding context. No server, no key, no
 * cost; texts are embedded one after the other, and one too long for the context is cut to fit.
 */
import type { EmbeddingProvider } from '../../core/contracts/embeddings.js'
import { abortError, LaconicError, ProviderError } from '../../core/contracts/laconic-error.js'
import type { LocalModelOptions } from '../llm/llama-cpp.js'
import { describe, loadLlamaModel } from '../llm/llama-engine.js'
import { batchedEmbeddings, countOption, positiveInteger } from './batched.js'

/** Options of `localEmbeddings()`: the GGUF model to load (as `local()` takes it), and its context. */
export interface LocalEmbeddingsOptions
  extends Pick<LocalModelOptions, 'model' | 'cacheDir' | 'threads' | 'gpu' | 'progressBar' | 'onDownloadProgress' | 'huggingFaceEndpoint'> {
  /** Tokens one text may take; a longer text is cut to fit. @defaultValue 2048, or the model's own if smaller */
  contextSize?: number | undefined
  /** Texts between two checks of the call's signal. @defaultValue 16 */
  batchSize?: number | undefined
}

/** Local embeddings: an `EmbeddingProvider` that also frees its memory when you are done. */
export interface LocalEmbeddings extends EmbeddingProvider {
  /** Loads (and first downloads) the model now rather than on the first call. */
  load(): Promise<void>
  /** Frees the model and its context; a later call loads it again. */
  close(): Promise<void>
}

// The parts of node-llama-cpp this adapter touches, typed by shape so it stays an optional peer.
interface EmbeddingContext {
  getEmbeddingFor(input: string | readonly unknown[]): Promise<{ vector: readonly number[] }>
  calculateInputLength(input: string): number
  dispose(): Promise<void>
}
interface Model {
  readonly trainContextSize: number
  tokenize(text: string): unknown[]
  createEmbeddingContext(options: object): Promise<EmbeddingContext>
  dispose(): Promise<void>
}
interface Loaded {
  llama: { dispose(): Promise<void> }
  model: Model
  context: EmbeddingContext
  contextSize: number
}

/** Room left in the context for the tokens the engine adds around a text (BOS, EOS). */
const SPECIAL_TOKENS = 4

/** An `EmbeddingProvider` running a GGUF embedding model in this process with node-llama-cpp (an optional peer dependency). */
export function localEmbeddings(options: LocalEmbeddingsOptions): LocalEmbeddings {
  if (typeof options?.model !== 'string' || options.model.trim() === '')
    throw new LaconicError('`model` must be a GGUF file path or an hf:owner/repo/file.gguf URI', {
      code: 'config',
      hint: 'localEmbeddings({ model: "hf:nomic-ai/nomic-embed-text-v1.5-GGUF/nomic-embed-text-v1.5.Q8_0.gguf" })',
    })
  positiveInteger(options.contextSize, 'contextSize', 'local')
  let loading: Promise<Loaded> | undefined
  const load = (): Promise<Loaded> => {
    loading ??= open(options).catch((error: unknown) => {
      loading = undefined // a failed load (offline download, missing file) may succeed later
      throw error
    })
    return loading
  }
  const provider = batchedEmbeddings(
    {
      provider: 'local',
      model: options.model,
      batchSize: countOption(options.batchSize, 'batchSize', 'local', 16),
      // The engine evaluates one text at a time whatever the callers do.
      concurrency: 1,
      price: () => 0,
    },
    async (texts, call) => {
      const loaded = await load()
      const vectors: Float32Array[] = []
      let inputTokens = 0
      for (const text of texts) {
        if (call.signal.aborted) throw abortError(call.signal)
        const length = loaded.context.calculateInputLength(text)
        const input = length < loaded.contextSize ? text : loaded.model.tokenize(text).slice(0, loaded.contextSize - SPECIAL_TOKENS)
        inputTokens += Math.min(length, loaded.contextSize - SPECIAL_TOKENS)
        try {
          vectors.push(Float32Array.from((await loaded.context.getEmbeddingFor(input)).vector))
        } catch (cause) {
          throw new ProviderError(`local embedding model failed: ${describe(cause)}`, { code: 'bad-response', provider: 'local', cause })
        }
      }
      return { vectors, inputTokens }
    },
  )
  return {
    model: provider.model,
    get dimensions() {
      return provider.dimensions
    },
    embed: (texts, embedOptions) => provider.embed(texts, embedOptions),
    async load() {
      await load()
    },
    async close() {
      const current = loading
      loading = undefined
      const loaded = await current?.catch(() => undefined)
      if (!loaded) return
      await loaded.context.dispose()
      await loaded.model.dispose()
      await loaded.llama.dispose()
    },
  }
}

async function open(options: LocalEmbeddingsOptions): Promise<Loaded> {
  const { llama, model } = await loadLlamaModel<Loaded['llama'], Model>(options)
  const contextSize = Math.min(options.contextSize ?? 2048, model.trainContextSize)
  try {
    const context = await model.createEmbeddingContext({ contextSize, ...(options.threads !== undefined && { threads: options.threads }) })
    return { llama, model, context, contextSize }
  } catch (cause) {
    await model.dispose()
    await llama.dispose()
    throw new LaconicError(`cannot make an embedding context of ${options.model}: ${describe(cause)}`, {
      code: 'config',
      hint: 'is it an embedding model (encoder-decoder models are not supported), and does a smaller `contextSize` fit in memory?',
      cause,
    })
  }
}
