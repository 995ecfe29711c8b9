/**
 * A deterministic embedding model for knowledge-base tests: each word is hashed to one of
 * `dimensions` axes, so texts sharing words point the same way. Served as OpenAI's
 * `POST /v1/embeddings` on a loopback server, or called in process.
 */
import type { EmbeddingProvider, Embeddings } from '../../src/core/embeddings.js'
import { type Loopback, startLoopback } from '../adapters/http/loopback.js'

export const FAKE_MODEL = 'fake-embed'

function wordAxis(word: string, dimensions: number): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % dimensions
}

/** The text's words counted on their axes, scaled to length 1 (all zeros for a text with no words). */
export function fakeVector(text: string, dimensions = 64): Float32Array {
  const vector = new Float32Array(dimensions)
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const axis = wordAxis(word, dimensions)
    vector[axis] = (vector[axis] as number) + 1
  }
  const length = Math.hypot(...vector)
  if (length > 0) for (let i = 0; i < dimensions; i++) vector[i] = (vector[i] as number) / length
  return vector
}

/** An in-process embedder that counts its calls and texts. */
export function fakeEmbedder(dimensions = 64): EmbeddingProvider & { calls: number; texts: string[] } {
  const texts: string[] = []
  return {
    model: FAKE_MODEL,
    dimensions,
    calls: 0,
    texts,
    async embed(batch): Promise<Embeddings> {
      this.calls += 1
      texts.push(...batch)
      return { vectors: batch.map((text) => fakeVector(text, dimensions)) }
    },
  }
}

export interface EmbeddingServer extends Loopback {
  /** Every text the server embedded, in order. */
  texts: string[]
}

/** OpenAI's `/v1/embeddings` answered with `fakeVector`s. */
export async function startEmbeddingServer(dimensions = 64): Promise<EmbeddingServer> {
  const texts: string[] = []
  const server = await startLoopback((req, res) => {
    const body = JSON.parse(req.body) as { model: string; input: string | string[] }
    const input = typeof body.input === 'string' ? [body.input] : body.input
    texts.push(...input)
    res.setHeader('content-type', 'application/json')
    res.end(
      JSON.stringify({
        object: 'list',
        model: body.model,
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(fakeVector(text, dimensions)) })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      }),
    )
  })
  return Object.assign(server, { texts })
}

/** A bare client of `/v1/embeddings` (until the embeddings adapters land): one request per call. */
export function embeddingClient(baseURL: string, model = FAKE_MODEL): EmbeddingProvider {
  return {
    model,
    async embed(texts, options = {}) {
      const response = await fetch(`${baseURL}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, input: texts }),
        ...(options.signal ? { signal: options.signal } : {}),
      })
      const body = (await response.json()) as { data: { index: number; embedding: number[] }[] }
      return { vectors: body.data.sort((a, b) => a.index - b.index).map((item) => Float32Array.from(item.embedding)) }
    },
  }
}
