/**
 * The mechanism every embedding adapter shares: texts split into batches, a few batches in
 * flight at once, the replies checked and put back in input order, the tokens added up and
 * priced. An adapter only says how one batch is embedded.
 */
import pLimit from 'p-limit'
import { onAbort } from '../../core/util/abort-listener.js'
import type { EmbeddingProvider, EmbedOptions, Embeddings } from '../../core/contracts/embeddings.js'
import { abortError, LaconicError } from '../../core/contracts/laconic-error.js'
import type { RetryInfo } from '../../core/contracts/providers.js'
import { Dimensions } from './vectors.js'

/** What one batch's call returns: a raw vector per text (checked by the caller) and the tokens counted. */
export interface BatchReply {
  vectors: ReadonlyArray<Float32Array | undefined>
  inputTokens?: number | undefined
}

/** One batch's call: cancellable by `signal`, reporting its retries to `onRetry`. */
export type EmbedBatch = (texts: string[], call: { signal: AbortSignal; onRetry?: ((info: RetryInfo) => void) | undefined }) => Promise<BatchReply>

export interface BatchedSettings {
  provider: string
  model: string
  batchSize: number | (() => Promise<number>)
  concurrency: number | (() => Promise<number>)
  dimensions?: number | undefined
  /** Dollars for a call's tokens, `undefined` when unknown. */
  price: (inputTokens: number | undefined) => number | undefined
}

/** An `EmbeddingProvider` that embeds through `embedBatch`, a batch at a time. */
export function batchedEmbeddings(settings: BatchedSettings, embedBatch: EmbedBatch): EmbeddingProvider {
  const dimensions = new Dimensions(settings.provider, settings.model, settings.dimensions)
  return {
    model: settings.model,
    get dimensions() {
      return dimensions.known
    },
    async embed(texts, options = {}) {
      checkTexts(texts, settings.provider)
      const [batchSize, concurrency] = await Promise.all([resolve(settings.batchSize), resolve(settings.concurrency)])
      const { vectors, inputTokens } = await inBatches(texts, batchSize, concurrency, options, async (batch, signal) => {
        const reply = await embedBatch(batch, { signal, onRetry: options.onRetry })
        return { vectors: dimensions.check(reply.vectors, batch.length), inputTokens: reply.inputTokens }
      })
      const cost = settings.price(inputTokens)
      const result: Embeddings = { vectors }
      if (inputTokens !== undefined) result.inputTokens = inputTokens
      if (cost !== undefined) result.cost = cost
      return result
    },
  }
}

/** A batch size or concurrency option: a positive integer, or `fallback` when left out. */
export function countOption(value: number | undefined, name: string, provider: string, fallback: number): number {
  return positiveInteger(value, name, provider) ?? fallback
}

/** Refuses an option that must be a positive integer and is something else. */
export function positiveInteger(value: number | undefined, name: string, provider: string): number | undefined {
  if (value === undefined || (Number.isInteger(value) && value >= 1)) return value
  throw new LaconicError(`${provider}: \`${name}\` must be a positive integer, got ${String(value)}`, {
    code: 'config',
    hint: 'or leave it out for the default',
  })
}

async function inBatches(
  texts: readonly string[],
  batchSize: number,
  concurrency: number,
  options: EmbedOptions,
  embed: (batch: string[], signal: AbortSignal) => Promise<{ vectors: Float32Array[]; inputTokens?: number | undefined }>,
): Promise<{ vectors: Float32Array[]; inputTokens?: number | undefined }> {
  const { signal } = options
  if (signal?.aborted) throw abortError(signal)
  if (texts.length === 0) return { vectors: [], inputTokens: 0 }
  // One controller for the call: the caller's signal aborts every batch, and so does the first
  // batch that fails (its siblings' answers would be thrown away).
  const controller = new AbortController()
  const stopForwarding = onAbort(signal, () => controller.abort(signal?.reason))
  const limit = pLimit(concurrency)
  const batches: string[][] = []
  for (let start = 0; start < texts.length; start += batchSize) batches.push(texts.slice(start, start + batchSize))
  try {
    const replies = await Promise.all(
      batches.map((batch) =>
        limit(async () => {
          if (controller.signal.aborted) throw abortError(controller.signal)
          try {
            return await embed(batch, controller.signal)
          } catch (error) {
            controller.abort(error)
            throw signal?.aborted ? abortError(signal) : error
          }
        }),
      ),
    )
    const counted = replies.every((reply) => reply.inputTokens !== undefined)
    return {
      vectors: replies.flatMap((reply) => reply.vectors),
      // A count with a batch missing would read as the whole call's: report none instead.
      inputTokens: counted ? replies.reduce((sum, reply) => sum + (reply.inputTokens ?? 0), 0) : undefined,
    }
  } finally {
    stopForwarding()
  }
}

function checkTexts(texts: unknown, provider: string): asserts texts is readonly string[] {
  if (typeof texts === 'string')
    throw new LaconicError(`${provider}: embed() takes an array of texts, got one string`, { code: 'config', hint: 'did you mean `embed([text])`?' })
  if (!Array.isArray(texts) || texts.some((text) => typeof text !== 'string'))
    throw new LaconicError(`${provider}: embed() takes an array of strings`, { code: 'config', hint: 'pass `embed(["first text", "second text"])`' })
}

function resolve(value: number | (() => Promise<number>)): Promise<number> {
  return typeof value === 'number' ? Promise.resolve(value) : value()
}
