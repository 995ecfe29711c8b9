/**
 * The in-memory store's full-text index: BM25 over numbered rows of a few fields, scored as
 * MiniSearch scores (its tokenizer, field boosts, prefix matches of terms longer than three
 * characters, BM25+ parameters, and a document's score times the query terms it matched), but
 * keeping only the best `limit` rows. MiniSearch's own `search` builds and sorts an object per
 * matching document, and a word most chunks contain matches every chunk: that was most of a
 * query's time. Here a match is a number added into an array.
 */
import MiniSearch from 'minisearch'
import SearchableMap from 'minisearch/SearchableMap'
import { BestRows } from './best-rows.js'

/** MiniSearch's defaults, so the two rank alike. */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 }
const PREFIX_WEIGHT = 0.375
const tokenize: (text: string) => string[] = MiniSearch.getDefault('tokenize')

/** A row's fields, in the order of the index's boosts. */
export type Fields = readonly string[]

/** Per field, the rows holding the term and how often (undefined where no row has it in that field). */
type Postings = (Map<number, number> | undefined)[]

export interface TextIndex {
  add(row: number, fields: Fields): void
  /** `fields` are those the row was added with. */
  remove(row: number, fields: Fields): void
  /** The `limit` best rows for the query's words, best first. */
  search(query: string, limit: number): { row: number; score: number }[]
}

const terms = (text: string): string[] => tokenize(text).flatMap((token) => (token ? [token.toLowerCase()] : []))

/** A search's running scores: per row, the sum so far and how many distinct query terms it matched. */
class Tally {
  private readonly scores: Float64Array
  private readonly matched: Int32Array
  /** The last query term each row was counted for (terms are numbered from 1). */
  private readonly lastTerm: Int32Array
  /** Rows in the order they first matched: ties keep it. */
  private readonly touched: number[] = []

  constructor(rows: number) {
    this.scores = new Float64Array(rows)
    this.matched = new Int32Array(rows)
    this.lastTerm = new Int32Array(rows)
  }

  add(row: number, score: number, queryTerm: number): void {
    this.scores[row] = (this.scores[row] as number) + score
    if (this.lastTerm[row] === queryTerm) return
    this.lastTerm[row] = queryTerm
    if (this.matched[row] === 0) this.touched.push(row)
    this.matched[row] = (this.matched[row] as number) + 1
  }

  /** The `limit` best rows, each score multiplied by the terms it matched (as MiniSearch does). */
  best(limit: number): { row: number; score: number }[] {
    const best = new BestRows(limit)
    for (const row of this.touched) best.offer(row, (this.scores[row] as number) * (this.matched[row] as number))
    return best.results()
  }
}

/** A text index of `boosts.length` fields, each field's BM25 score multiplied by its boost. */
export function textIndex(boosts: readonly number[]): TextIndex {
  const postings = new SearchableMap<Postings>()
  /** Per row, its fields' lengths (distinct tokens, as MiniSearch counts them). */
  const lengths: (number[] | undefined)[] = []
  const totalLengths = boosts.map(() => 0)
  let rowCount = 0

  /** Adds `weight × boost × BM25` of the term to each row having it, as a match of `queryTerm`. */
  const score = (term: Postings, weight: number, queryTerm: number, tally: Tally) => {
    for (const [field, boost] of boosts.entries()) {
      const rows = term[field]
      if (!rows) continue
      const idf = Math.log(1 + (rowCount - rows.size + 0.5) / (rows.size + 0.5))
      const averageLength = (totalLengths[field] as number) / rowCount
      for (const [row, frequency] of rows) {
        const length = (lengths[row] as number[])[field] as number
        const saturation = (frequency * (BM25.k + 1)) / (frequency + BM25.k * (1 - BM25.b + (BM25.b * length) / averageLength))
        tally.add(row, weight * boost * (idf * (BM25.d + saturation)), queryTerm)
      }
    }
  }

  return {
    add(row, fields) {
      rowCount++
      lengths[row] = fields.map((text, field) => {
        const tokens = tokenize(text)
        for (const token of tokens) {
          if (!token) continue
          const byField = postings.fetch(token.toLowerCase(), () => [])
          const rows = byField[field] ?? new Map<number, number>()
          byField[field] = rows.set(row, (rows.get(row) ?? 0) + 1)
        }
        const length = new Set(tokens).size
        totalLengths[field] = (totalLengths[field] as number) + length
        return length
      })
    },

    remove(row, fields) {
      rowCount--
      for (const [field, text] of fields.entries()) {
        for (const term of new Set(terms(text))) {
          const byField = postings.get(term)
          byField?.[field]?.delete(row)
          if (byField?.[field]?.size === 0) byField[field] = undefined
          if (byField?.every((rows) => rows === undefined)) postings.delete(term)
        }
        totalLengths[field] = (totalLengths[field] as number) - ((lengths[row] as number[])[field] as number)
      }
      lengths[row] = undefined
    },

    search(query, limit) {
      const queryTerms = terms(query)
      if (limit <= 0 || queryTerms.length === 0 || rowCount === 0) return []
      const tally = new Tally(lengths.length)
      // A word said twice counts twice, but is one term matched.
      const times = new Map<string, number>()
      for (const term of queryTerms) times.set(term, (times.get(term) ?? 0) + 1)
      let queryTerm = 0
      for (const [term, count] of times) {
        queryTerm++
        const exact = postings.get(term)
        if (exact) score(exact, count, queryTerm, tally)
        if (term.length <= 3) continue
        for (const [longer, found] of postings.atPrefix(term)) {
          const distance = longer.length - term.length
          if (distance > 0) score(found, (count * PREFIX_WEIGHT * longer.length) / (longer.length + 0.3 * distance), queryTerm, tally)
        }
      }
      return tally.best(limit)
    },
  }
}
