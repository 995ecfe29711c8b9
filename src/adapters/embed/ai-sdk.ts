/**
 * `aiSdkEmbeddings(model)`: any Vercel AI SDK embedding model (`openai.embedding(…)`,
 * `google.textEmbeddingModel(…)`, `mistral.embedding(…)`, `cohere.embedding(…)`, …) as a laconic
 * embedding provider. It calls the provider-level `doEmbed` (specification v2 or v3), split into
 * batches the model accepts. Like `aiSdkModel`, it takes the model by its shape and imports no
 * AI SDK package.
 */
import type { EmbeddingProvider } from '../../core/contracts/embeddings.js'
import { LaconicError } from '../../core/contracts/laconic-error.js'
import { withRetries, type Backoff } from '../http/index.js'
import { aiSdkFailure } from '../llm/ai-sdk.js'
import { batchedEmbeddings, countOption, type BatchReply } from './batched.js'
import { embeddingDollars } from './cost.js'
import type { EmbeddingBatchOptions } from './options.js'
import { toVector } from './vectors.js'

/**
 * What this adapter needs of an AI SDK `EmbeddingModelV2<string>`/`EmbeddingModelV3`: every
 * provider package's embedding model fits.
 */
export interface AiSdkEmbeddingModel {
  readonly specificationVersion: string
  readonly provider: string
  readonly modelId: string
  /** Texts one call takes (`Infinity` for no limit). */
  readonly maxEmbeddingsPerCall: PromiseLike<number | undefined> | number | undefined
  readonly supportsParallelCalls: PromiseLike<boolean> | boolean
  /**
   * Called with `{ values, abortSignal, providerOptions }`. Typed `never` so that any provider's
   * own, wider options type fits.
   */
  doEmbed(options: never): PromiseLike<{ embeddings: unknown[]; usage?: { tokens?: number } | undefined }>
}

/** Options of `aiSdkEmbeddings()`: batches, prices, retries and provider options passed through. */
export interface AiSdkEmbeddingsOptions extends EmbeddingBatchOptions {
  /** Refuse vectors of any other length. @defaultValue the model's own, learnt from the first reply */
  dimensions?: number | undefined
  /** Retries of a call whose error says it is retryable. @defaultValue 2 */
  maxRetries?: number | undefined
  backoff?: Backoff | undefined
  /** Passed to every call as the AI SDK's `providerOptions` (e.g. `{ openai: { dimensions: 512 } }`). */
  providerOptions?: Record<string, Record<string, unknown>> | undefined
}

/** A batch when the model names no limit of its own. */
const DEFAULT_BATCH = 128

/** An `EmbeddingProvider` from an AI SDK embedding model (e.g. `openai.embedding("text-embedding-3-small")`). */
export function aiSdkEmbeddings(model: AiSdkEmbeddingModel, options: AiSdkEmbeddingsOptions = {}): EmbeddingProvider {
  if (!model || typeof model !== 'object' || typeof model.doEmbed !== 'function') {
    throw new LaconicError('aiSdkEmbeddings expects an AI SDK embedding model object (with doEmbed)', {
      code: 'config',
      hint: 'pass a provider embedding model such as `openai.embedding("text-embedding-3-small")`',
    })
  }
  if (model.specificationVersion !== 'v2' && model.specificationVersion !== 'v3') {
    throw new LaconicError(`aiSdkEmbeddings supports embedding model specification v2 and v3, got ${String(model.specificationVersion)}`, {
      code: 'config',
      hint: 'upgrade the provider package to one made for AI SDK 5 or later',
    })
  }
  const provider = model.provider || 'ai-sdk'
  const batchSize = countOption(options.batchSize, 'batchSize', provider, DEFAULT_BATCH)
  const concurrency = countOption(options.concurrency, 'concurrency', provider, 2)
  return batchedEmbeddings(
    {
      provider,
      model: model.modelId,
      // The model's own limits win: a batch it cannot take, or calls it cannot run side by side, would fail.
      batchSize: async () => Math.min(batchSize, positiveOr(await model.maxEmbeddingsPerCall, batchSize)),
      concurrency: async () => ((await model.supportsParallelCalls) ? concurrency : 1),
      dimensions: options.dimensions,
      price: (tokens) => embeddingDollars(tokens, model.modelId, { pricing: options.pricing }),
    },
    (texts, call) =>
      withRetries({ maxRetries: options.maxRetries, backoff: options.backoff, onRetry: call.onRetry, signal: call.signal }, async () => {
        try {
          call.signal.throwIfAborted()
          const result = await model.doEmbed({
            values: texts,
            abortSignal: call.signal,
            ...(options.providerOptions && { providerOptions: options.providerOptions }),
          } as never)
          return replyOf(result)
        } catch (error) {
          throw aiSdkFailure(error, provider, call.signal)
        }
      }),
  )
}

/** The result's vectors and token count; total, like every parser of what a backend returns. */
function replyOf(result: unknown): BatchReply {
  const record = typeof result === 'object' && result !== null ? (result as { embeddings?: unknown; usage?: { tokens?: unknown } }) : {}
  const tokens = record.usage?.tokens
  return {
    vectors: Array.isArray(record.embeddings) ? record.embeddings.map(toVector) : [],
    inputTokens: typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0 ? tokens : undefined,
  }
}

function positiveOr(limit: number | undefined, fallback: number): number {
  return typeof limit === 'number' && limit >= 1 ? Math.floor(Math.min(limit, Number.MAX_SAFE_INTEGER)) : fallback
}
