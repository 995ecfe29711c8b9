import type { RetryInfo } from './providers.js'

/** Per-call options of `EmbeddingProvider.embed()`. */
export interface EmbedOptions {
  signal?: AbortSignal
  onRetry?: (info: RetryInfo) => void
}

/** What one `embed` call returns: one vector per input text, in order, and what it consumed. */
export interface Embeddings {
  vectors: Float32Array[]
  /** Tokens the backend counted, when it reports them. */
  inputTokens?: number
  /** Dollars, when the backend or the price table knows it. */
  cost?: number
}

/**
 * Turns texts into vectors: the third kind of provider beside models and search. `embed` takes a
 * batch (the provider splits what is too large for its backend) and is cancellable.
 */
export interface EmbeddingProvider {
  /** The model's name: a store refuses vectors of another model than the one it was built with. */
  readonly model: string
  /** The vectors' length, once known (some backends only say after the first call). */
  readonly dimensions?: number
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Embeddings>
}
