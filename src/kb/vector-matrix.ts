/**
 * The in-memory store's vectors: each scaled to length 1 and kept in one Float32Array, a row per
 * chunk, so a cosine is one dot product and an exact search is one pass over contiguous memory.
 * Rows are written and cleared in place: a write costs its own rows, never a rebuild.
 */
import { BestRows } from './best-rows.js'

function norm(vector: Float32Array): number {
  let sum = 0
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number)
  return Math.sqrt(sum)
}

export class VectorMatrix {
  private values: Float32Array
  private live: Uint8Array
  /** Rows up to the highest one written: what a search passes over. */
  private used = 0

  constructor(
    readonly dimensions: number,
    capacity = 64,
  ) {
    this.values = new Float32Array(capacity * dimensions)
    this.live = new Uint8Array(capacity)
  }

  /** Writes `vector`, scaled to length 1, at `row` (a vector of zeros stays zeros: it scores 0). */
  set(row: number, vector: Float32Array): void {
    if (row >= this.live.length) this.grow(row + 1)
    const length = norm(vector)
    const offset = row * this.dimensions
    for (let i = 0; i < this.dimensions; i++) this.values[offset + i] = length === 0 ? 0 : (vector[i] as number) / length
    this.live[row] = 1
    this.used = Math.max(this.used, row + 1)
  }

  /** Leaves `row` out of every search until it is written again. */
  clear(row: number): void {
    if (row < this.live.length) this.live[row] = 0
  }

  /** The `limit` rows of highest cosine similarity to `query`, best first (none for a query of zeros). */
  nearest(query: Float32Array, limit: number): { row: number; score: number }[] {
    const queryNorm = norm(query)
    if (queryNorm === 0 || query.length !== this.dimensions) return []
    const { values, live, dimensions } = this
    const best = new BestRows(limit)
    const fours = dimensions - (dimensions % 4)
    for (let row = 0, offset = 0; row < this.used; row++, offset += dimensions) {
      if (live[row] === 0) continue
      // Four sums in turn rather than one: about a quarter less time per row, measured on 10,000 × 384.
      let a = 0
      let b = 0
      let c = 0
      let d = 0
      let i = 0
      for (; i < fours; i += 4) {
        a += (values[offset + i] as number) * (query[i] as number)
        b += (values[offset + i + 1] as number) * (query[i + 1] as number)
        c += (values[offset + i + 2] as number) * (query[i + 2] as number)
        d += (values[offset + i + 3] as number) * (query[i + 3] as number)
      }
      for (; i < dimensions; i++) a += (values[offset + i] as number) * (query[i] as number)
      const sum = a + b + c + d
      if (sum > best.floor) best.offer(row, sum)
    }
    // Rows are unit vectors, so dividing by the query's length alone makes a cosine.
    return best.results().map(({ row, score }) => ({ row, score: score / queryNorm }))
  }

  private grow(rows: number): void {
    const capacity = Math.max(rows, this.live.length * 2)
    const values = new Float32Array(capacity * this.dimensions)
    values.set(this.values)
    const live = new Uint8Array(capacity)
    live.set(this.live)
    this.values = values
    this.live = live
  }
}
