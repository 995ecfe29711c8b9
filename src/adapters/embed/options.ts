import type { Pricing } from '../../core/contracts/run-cost.js'
import type { Backoff, HttpTimeouts } from '../http/index.js'

/** Options every embedding adapter accepts besides its own: how it splits the work, and what a call may cost. */
export interface EmbeddingBatchOptions {
  /** Texts per request. @defaultValue the adapter's own (OpenAI 128, Ollama 32, AI SDK the model's limit) */
  batchSize?: number | undefined
  /** Requests in flight at once. @defaultValue 2 */
  concurrency?: number | undefined
  /** Prices by model name (`inputPerMillion`), for a model the built-in table does not know. */
  pricing?: Pricing | undefined
}

/** Options of the HTTP embedding adapters (`openAIEmbeddings`, `ollamaEmbeddings`). */
export interface EmbeddingAdapterOptions extends EmbeddingBatchOptions {
  /** Extra request headers (a proxy token, an organisation header). */
  headers?: Record<string, string> | undefined
  /** First-byte, idle and whole-call limits of each request. */
  timeouts?: HttpTimeouts | undefined
  /** Retries of a request (408/409/429/5xx, network errors, first-byte timeouts). @defaultValue 2 */
  maxRetries?: number | undefined
  backoff?: Backoff | undefined
  fetch?: typeof globalThis.fetch | undefined
}
