/**
 * `rerankEndpoint({ baseURL, model })`: the `/rerank` API that Cohere, Jina, Voyage, Mixedbread
 * and local servers (Infinity, vLLM, llama.cpp's server) share: `POST {baseURL}/rerank` with
 * `{ model, query, documents, top_n }`, answered by `{ results: [{ index, relevance_score }] }`.
 * Read totally: a result without a usable index is dropped, `score` is taken for
 * `relevance_score`, and a bare array of results (Hugging Face TEI's shape) is read too.
 */
import { LaconicError } from '../core/contracts/laconic-error.js'
import { callTimeouts } from '../adapters/http/index.js'
import { requestJson } from '../adapters/search/request-json.js'
import type { RerankedPassage, Reranker } from './reranker.js'

/** Options of `rerankEndpoint()`: where the API is, which model, and how to call it. */
export interface RerankEndpointOptions {
  /** The API's base, `/rerank` appended: e.g. `https://api.jina.ai/v1`, `https://api.cohere.com/v2`, `http://localhost:7997`. */
  readonly baseURL: string
  readonly model: string
  /** Sent as `Authorization: Bearer …` when given. */
  readonly apiKey?: string
  readonly headers?: Readonly<Record<string, string>>
  /** @defaultValue 30_000 */
  readonly timeoutMs?: number
  /** Retries of a failed call (429, 5xx, network). @defaultValue 2 */
  readonly maxRetries?: number
  readonly fetch?: typeof globalThis.fetch
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** `{ results: [{ index, relevance_score }] }` (or a bare array of them) as reranked passages. Total. */
export function parseRerankResponse(body: unknown): RerankedPassage[] {
  const results = Array.isArray(body) ? body : isRecord(body) ? body.results : undefined
  if (!Array.isArray(results)) return []
  const ranked: RerankedPassage[] = []
  for (const result of results) {
    if (!isRecord(result) || typeof result.index !== 'number' || !Number.isInteger(result.index)) continue
    const score = typeof result.relevance_score === 'number' ? result.relevance_score : typeof result.score === 'number' ? result.score : undefined
    ranked.push(score === undefined ? { index: result.index } : { index: result.index, score })
  }
  // Servers mostly send them best first; sorting makes it so when they send input order.
  return ranked.every((passage) => passage.score !== undefined) ? ranked.sort((a, b) => (b.score as number) - (a.score as number)) : ranked
}

/** A `Reranker` over a `POST /rerank` API in the common Cohere/Jina format. */
export function rerankEndpoint(options: RerankEndpointOptions): Reranker {
  if (!options?.baseURL || !options.model) {
    throw new LaconicError('rerankEndpoint: `baseURL` and `model` are required', {
      code: 'config',
      hint: "e.g. rerankEndpoint({ baseURL: 'http://localhost:7997', model: 'BAAI/bge-reranker-base' })",
    })
  }
  const url = `${options.baseURL.replace(/\/+$/, '')}/rerank`
  return {
    async rerank(query, passages, opts = {}) {
      if (passages.length === 0) return []
      const body = await requestJson({
        url,
        method: 'POST',
        json: { model: options.model, query, documents: passages, top_n: passages.length },
        headers: { ...options.headers, ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        provider: 'rerank',
        secrets: [options.apiKey],
        timeouts: callTimeouts(options.timeoutMs ?? 30_000),
        maxRetries: options.maxRetries ?? 2,
        signal: opts.signal,
        fetch: options.fetch,
      })
      return parseRerankResponse(body)
    },
  }
}
