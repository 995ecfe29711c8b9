/**
 * What every `VectorStore.putDocument` checks before it writes: the vectors come from the model
 * the store was built with, and all have its length. A store of mixed models would rank chunks
 * by numbers that cannot be compared.
 */
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { Chunk } from './vector-store.js'

/** The embedding model and vector length a store was built with. */
export interface EmbeddingInfo {
  model: string
  dimensions: number
}

export function checkEmbedding(store: string, current: EmbeddingInfo | undefined, next: EmbeddingInfo, chunks: readonly Chunk[]): void {
  if (!Number.isInteger(next.dimensions) || next.dimensions <= 0) {
    throw new LaconicError(`${store}: \`dimensions\` must be a positive integer, got ${next.dimensions}`, { code: 'config' })
  }
  if (current && (current.model !== next.model || current.dimensions !== next.dimensions)) {
    throw new LaconicError(`${store}: the store holds vectors of ${current.model} (${current.dimensions} dimensions), not ${next.model} (${next.dimensions})`, {
      code: 'config',
      hint: `embed with ${current.model}, or index into a new store`,
    })
  }
  for (const chunk of chunks) {
    if (chunk.vector.length !== next.dimensions) {
      throw new LaconicError(`${store}: chunk ${chunk.id} has a vector of ${chunk.vector.length} numbers, not ${next.dimensions}`, {
        code: 'config',
        hint: 'every vector of one model has the same length',
      })
    }
  }
}
