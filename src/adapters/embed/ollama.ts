/**
 * `ollamaEmbeddings({ host, model })`: Ollama's native `POST /api/embed`, which takes a batch of
 * texts and returns one vector each.
 */
import type { EmbeddingProvider } from '../../core/contracts/embeddings.js'
import { LaconicError } from '../../core/contracts/laconic-error.js'
import { secretHeaderValues, type HintFor } from '../http/index.js'
import { batchedEmbeddings, countOption, positiveInteger, type BatchReply } from './batched.js'
import { embeddingDollars } from './cost.js'
import type { EmbeddingAdapterOptions } from './options.js'
import { postJson, replyLimit } from './post-json.js'
import { toVector } from './vectors.js'

/** Options of `ollamaEmbeddings()`: the host, the model, and Ollama's own request settings. */
export interface OllamaEmbeddingsOptions extends EmbeddingAdapterOptions {
  /** @defaultValue `http://localhost:11434` */
  host?: string | undefined
  /** e.g. `nomic-embed-text`, `mxbai-embed-large`, `qwen3-embedding:0.6b` */
  model: string
  /** Asks for vectors of this length (models that support it) and refuses a reply of any other. */
  dimensions?: number | undefined
  /**
   * Cut a text longer than the model's context instead of failing the request.
   * @defaultValue true (Ollama's own default)
   */
  truncate?: boolean | undefined
  /** How long Ollama keeps the model loaded after the request, e.g. `'10m'`. @defaultValue Ollama's (5 minutes) */
  keepAlive?: string | number | undefined
}

/** Loading a model into memory happens before the first byte, so wait longer for it. */
const OLLAMA_FIRST_BYTE_MS = 300_000

/** An `EmbeddingProvider` for an embedding model served by Ollama (by default on `http://localhost:11434`). */
export function ollamaEmbeddings(options: OllamaEmbeddingsOptions): EmbeddingProvider {
  const { model } = options
  if (!model)
    throw new LaconicError('ollamaEmbeddings: `model` is required', { code: 'config', hint: 'pass it as `ollamaEmbeddings({ model: "nomic-embed-text" })`' })
  positiveInteger(options.dimensions, 'dimensions', 'ollama')
  const host = (options.host ?? 'http://localhost:11434').replace(/\/+$/, '')
  const url = `${host}/api/embed`
  const timeouts = { firstByteMs: OLLAMA_FIRST_BYTE_MS, ...options.timeouts }
  const hint: HintFor = (failure) => {
    if (failure.kind === 'network') return `is \`ollama serve\` running at ${host}?`
    if (failure.status === 404) return `pull the model (\`ollama pull ${model}\`), or upgrade an Ollama that predates /api/embed`
    return undefined
  }
  // Ollama runs models on the user's own hardware; its hosted service (ollama.com) is paid.
  const local = !/(^|\.)ollama\.com$/i.test(hostOf(host))
  return batchedEmbeddings(
    {
      provider: 'ollama',
      model,
      batchSize: countOption(options.batchSize, 'batchSize', 'ollama', 32),
      concurrency: countOption(options.concurrency, 'concurrency', 'ollama', 2),
      dimensions: options.dimensions,
      price: (tokens) => embeddingDollars(tokens, model, { pricing: options.pricing, local }),
    },
    async (texts, call) => {
      const body = {
        model,
        input: texts,
        ...(options.truncate !== undefined && { truncate: options.truncate }),
        ...(options.dimensions !== undefined && { dimensions: options.dimensions }),
        ...(options.keepAlive !== undefined && { keep_alive: options.keepAlive }),
      }
      const reply = await postJson({
        url,
        json: body,
        headers: { ...options.headers },
        provider: 'ollama',
        secrets: secretHeaderValues(options.headers),
        hint,
        signal: call.signal,
        onRetry: call.onRetry,
        timeouts,
        maxRetries: options.maxRetries,
        backoff: options.backoff,
        fetch: options.fetch,
        maxBytes: replyLimit(texts.length),
      })
      return parseOllamaEmbeddings(reply)
    },
  )
}

/** `{ embeddings: number[][], prompt_eval_count }`; total, like every parser of a server's reply. */
export function parseOllamaEmbeddings(reply: unknown): BatchReply {
  const record = typeof reply === 'object' && reply !== null ? (reply as Record<string, unknown>) : {}
  const embeddings = Array.isArray(record.embeddings) ? record.embeddings : []
  const tokens = record.prompt_eval_count
  return {
    vectors: embeddings.map(toVector),
    inputTokens: typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0 ? tokens : undefined,
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname
  } catch {
    return ''
  }
}
