/**
 * The `limit` best-scoring rows of a search, kept in order as they are offered: a search over
 * every row sorts only the few it returns. A tie keeps the row offered first.
 */
export class BestRows {
  private readonly rows: number[] = []
  private readonly scores: number[] = []

  constructor(private readonly limit: number) {}

  /** The score a row must beat to be kept: the last kept one's once `limit` are kept. */
  get floor(): number {
    return this.scores.length < this.limit ? Number.NEGATIVE_INFINITY : (this.scores[this.limit - 1] as number)
  }

  offer(row: number, score: number): void {
    if (this.limit <= 0 || !(score > this.floor)) return
    let at = this.scores.length
    while (at > 0 && (this.scores[at - 1] as number) < score) at--
    this.scores.splice(at, 0, score)
    this.rows.splice(at, 0, row)
    if (this.scores.length > this.limit) {
      this.scores.pop()
      this.rows.pop()
    }
  }

  /** The rows kept, best first. */
  results(): { row: number; score: number }[] {
    return this.rows.map((row, at) => ({ row, score: this.scores[at] as number }))
  }
}
