/**
 * `local({ model })`: a GGUF model run in this process by node-llama-cpp (an optional peer
 * dependency whose prebuilt llama.cpp binaries come from the npm registry). No server, no key:
 * tokens stream as llama.cpp samples them, and a schema-carrying call is constrained by a grammar
 * built from that schema, so even a tiny model writes JSON the parsers accept.
 */
import { onAbort } from '../../core/util/abort-listener.js'
import { abortError, isAbortError, LaconicError, ProviderError } from '../../core/contracts/laconic-error.js'
import type { JsonSchema, LLMChunk, LLMProvider, LLMRequest } from '../../core/contracts/providers.js'
import { describe, loadLlamaModel } from './llama-engine.js'

/** Options of `local()`: the GGUF model to load, where downloads go, and the context, threads and GPU to use. */
export interface LocalModelOptions {
  /** A GGUF file's path, or `hf:owner/repo/file.gguf` (downloaded on first use into `cacheDir`). */
  model: string
  /** Where `hf:` models are downloaded to. @defaultValue `~/.cache/laconic/models` */
  cacheDir?: string | undefined
  /** Tokens of context per call. @defaultValue 4096, or the model's own if smaller */
  contextSize?: number | undefined
  /** Calls evaluated at once (each holds its own context sequence). @defaultValue 1 */
  parallel?: number | undefined
  /** CPU threads per evaluation (1 suits a busy or small machine). @defaultValue node-llama-cpp's: the machine's cores */
  threads?: number | undefined
  /** `false` runs on the CPU only. @defaultValue 'auto' */
  gpu?: false | 'auto' | undefined
  /** Draw a download progress bar on the terminal. @defaultValue true when stderr is a TTY */
  progressBar?: boolean | undefined
  /** Called as a download goes (bytes). */
  onDownloadProgress?: ((progress: { downloadedBytes: number; totalBytes: number }) => void) | undefined
  /** Where `hf:` URIs are fetched from (a mirror). @defaultValue Hugging Face */
  huggingFaceEndpoint?: string | undefined
  /** Default `maxTokens` of a call that sets none. @defaultValue 1024 */
  maxTokens?: number | undefined
}

/** A local model: an `LLMProvider` that also frees its memory when you are done. */
export interface LocalModel extends LLMProvider {
  /** Loads (and first downloads) the model now rather than on the first call. */
  load(): Promise<void>
  /** Frees the model and its contexts; a later call loads it again. */
  close(): Promise<void>
}

// The parts of node-llama-cpp this adapter touches, typed by shape so it stays an optional peer.
interface Sequence {
  clearHistory(): Promise<void>
  readonly tokenMeter: { readonly usedInputTokens: number; readonly usedOutputTokens: number }
}
interface Loaded {
  llama: {
    createGrammarForJsonSchema(schema: unknown): Promise<unknown>
    getGrammarFor(type: 'json'): Promise<unknown>
    dispose(): Promise<void>
  }
  model: { tokenize(text: string): unknown[]; dispose(): Promise<void> }
  context: { dispose(): Promise<void> }
  free: Sequence[]
  waiting: Array<(sequence: Sequence) => void>
  completion: new (options: {
    contextSequence: Sequence
  }) => {
    generateCompletionWithMeta(
      input: string,
      options: {
        onTextChunk?: (text: string) => void
        signal?: AbortSignal
        maxTokens?: number
        temperature?: number
        grammar?: unknown
      },
    ): Promise<{ response: string; metadata: { stopReason: string } }>
    dispose(): void
  }
}

/** An `LLMProvider` running a GGUF model in this process with node-llama-cpp (an optional peer dependency). */
export function local(options: LocalModelOptions): LocalModel {
  if (typeof options?.model !== 'string' || options.model.trim() === '')
    throw new LaconicError('`model` must be a GGUF file path or an hf:owner/repo/file.gguf URI', {
      code: 'config',
      hint: 'local({ model: "./models/qwen2.5-0.5b-instruct-q4_k_m.gguf" })',
    })
  let loading: Promise<Loaded> | undefined

  const load = (): Promise<Loaded> => {
    loading ??= open(options).catch((error: unknown) => {
      loading = undefined // a failed load (offline download, missing file) may succeed later
      throw error
    })
    return loading
  }

  return {
    model: options.model,
    local: true,
    async load() {
      await load()
    },
    async close() {
      const current = loading
      loading = undefined
      if (!current) return
      const loaded = await current.catch(() => undefined)
      if (!loaded) return
      await loaded.context.dispose()
      await loaded.model.dispose()
      await loaded.llama.dispose()
    },
    stream: (req) => generate(load, options, req),
  }
}

async function* generate(load: () => Promise<Loaded>, options: LocalModelOptions, req: LLMRequest): AsyncGenerator<LLMChunk> {
  if (req.signal?.aborted) throw abortError(req.signal)
  if (req.tools?.length)
    throw new ProviderError('local models take no native tools here', {
      code: 'config',
      hint: "use the text tool protocol (react: { tools: 'text' })",
      provider: 'local',
    })
  const loaded = await load()
  const sequence = await takeSequence(loaded, req.signal)
  // One controller for the generation: the caller's signal, or the consumer leaving the loop.
  const stop = new AbortController()
  const stopWaiting = onAbort(req.signal, () => stop.abort(req.signal?.reason))
  if (req.signal?.aborted) stop.abort(req.signal.reason) // aborted while waiting for the model or a sequence
  const completion = new loaded.completion({ contextSequence: sequence })
  const pending: string[] = []
  let wake: (() => void) | undefined
  // The sequence's own meter counts what llama.cpp evaluated and sampled for this call.
  const meterBefore = { input: sequence.tokenMeter.usedInputTokens, output: sequence.tokenMeter.usedOutputTokens }
  let finished = false
  let failure: unknown
  // Settles when llama.cpp has stopped sampling (at once if it never started).
  let done: Promise<unknown> = Promise.resolve()
  try {
    const prompt = promptText(req)
    const grammar = await grammarFor(loaded, req.json)
    done = completion
      .generateCompletionWithMeta(prompt, {
        signal: stop.signal,
        maxTokens: req.maxTokens ?? options.maxTokens ?? 1024,
        ...(req.temperature !== undefined && { temperature: req.temperature }),
        ...(grammar !== undefined && { grammar }),
        onTextChunk: (text) => {
          pending.push(text)
          wake?.()
        },
      })
      .catch((error: unknown) => {
        failure = error
      })
      .finally(() => {
        finished = true
        wake?.()
      })
    while (true) {
      const text = pending.shift()
      if (text !== undefined) {
        if (text) yield { type: 'text', text }
        continue
      }
      if (finished) break
      await new Promise<void>((resolve) => {
        wake = resolve
      })
      wake = undefined
    }
    await done
    if (req.signal?.aborted) throw abortError(req.signal)
    if (failure !== undefined) throw isAbortError(failure) ? abortError(req.signal) : localFailure(failure)
    const inputTokens = loaded.model.tokenize(prompt).length
    const evaluated = sequence.tokenMeter.usedInputTokens - meterBefore.input
    yield {
      type: 'usage',
      inputTokens,
      outputTokens: sequence.tokenMeter.usedOutputTokens - meterBefore.output,
      // the prompt's prefix still in the sequence's KV cache was not evaluated again
      ...(evaluated < inputTokens && { cachedInputTokens: inputTokens - Math.max(0, evaluated) }),
      cost: 0,
    }
  } finally {
    stopWaiting()
    if (!finished) stop.abort() // the consumer left mid-stream: stop sampling
    await done
    completion.dispose()
    await sequence.clearHistory().catch(() => undefined)
    releaseSequence(loaded, sequence)
  }
}

/** A base model has no chat template of its own: the system text, then the prompt and any turns. */
function promptText(req: LLMRequest): string {
  const parts = [req.system, req.prompt]
  for (const turn of req.turns ?? []) parts.push(turn.role === 'tool' ? `Observation (${turn.name}): ${turn.content}` : turn.text)
  return `${parts.filter((part) => part !== undefined && part !== '').join('\n\n')}\n\n`
}

async function grammarFor(loaded: Loaded, json: LLMRequest['json']): Promise<unknown> {
  if (!json) return undefined
  if (json === true) return loaded.llama.getGrammarFor('json')
  try {
    return await loaded.llama.createGrammarForJsonSchema(json as JsonSchema)
  } catch {
    // A schema feature the grammar builder lacks: plain JSON still beats free text.
    return loaded.llama.getGrammarFor('json')
  }
}

function takeSequence(loaded: Loaded, signal: AbortSignal | undefined): Promise<Sequence> {
  if (signal?.aborted) return Promise.reject(abortError(signal))
  const free = loaded.free.pop()
  if (free) return Promise.resolve(free)
  return new Promise<Sequence>((resolve, reject) => {
    const take = (sequence: Sequence) => {
      stopWaiting()
      resolve(sequence)
    }
    const stopWaiting = onAbort(signal, () => {
      loaded.waiting.splice(loaded.waiting.indexOf(take), 1)
      reject(abortError(signal))
    })
    loaded.waiting.push(take)
  })
}

function releaseSequence(loaded: Loaded, sequence: Sequence): void {
  const next = loaded.waiting.shift()
  if (next) next(sequence)
  else loaded.free.push(sequence)
}

async function open(options: LocalModelOptions): Promise<Loaded> {
  const { lib, llama, model } = await loadLlamaModel<Loaded['llama'], Loaded['model'] & ModelHandle>(options)
  const parallel = options.parallel ?? 1
  const context = await model.createContext({
    contextSize: { max: options.contextSize ?? 4096 },
    sequences: parallel,
    ...(options.threads !== undefined && { threads: options.threads }),
  })
  const free: Sequence[] = []
  for (let i = 0; i < parallel; i++) free.push(context.getSequence())
  return { llama, model, context, free, waiting: [], completion: lib.LlamaCompletion as Loaded['completion'] }
}

interface ModelHandle {
  createContext(o: object): Promise<Loaded['context'] & { getSequence(): Sequence }>
}

function localFailure(cause: unknown): ProviderError {
  return new ProviderError(`local model failed: ${describe(cause)}`, { code: 'bad-response', provider: 'local', cause })
}
