/**
 * A deterministic embedding model for knowledge-base tests: each word is hashed to one of
 * `dimensions` axes, so texts sharing words point the same way. Served as OpenAI's
 * `POST /v1/embeddings` on a loopback server, or called in process.
 */
import { type Loopback, startLoopback } from '../adapters/http/loopback.js'
import { fakeVector } from './fake-vector.js'
import type { EmbeddingProvider } from '../../src/index.js'

type Embeddings = Awaited<ReturnType<EmbeddingProvider['embed']>>

export { fakeVector }

export const FAKE_MODEL = 'fake-embed'

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
