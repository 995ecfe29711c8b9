/**
 * The one lexical ranker every part of laconic shares: the local corpus, the knowledge base's
 * in-memory text index and the passage selector. Plain BM25 (k1 1.2, b 0.75, Lucene's idf) over
 * English terms: words and numbers, lower-cased, stop words dropped, Porter-stemmed. Stop words
 * are what keep a question's own words ("what is", "how does") from outranking its topic, and
 * idf is what makes a rare word count more than a common one. Web-standard: no Node APIs.
 */
import { stemmer } from 'stemmer'

/** BM25's term-frequency saturation and length normalisation, as Lucene and the BEIR baseline set them. */
const K1 = 1.2
const B = 0.75

/**
 * Snowball's English stop words (snowballstem.org, `english/stop.txt`), as data. Tokens keep their
 * inner apostrophes until this check, so "don't" and "it's" are caught whole; single letters such
 * as the "d" of "vitamin D" are not on the list and stay terms.
 */
const STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself
  it its itself they them their theirs themselves what which who whom this that these those am is are was were be
  been being have has had having do does did doing would should could ought i'm you're he's she's it's we're they're
  i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't
  wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot couldn't
  mustn't let's that's who's what's here's there's when's where's why's how's a an the and but if or because as until
  while of at by for with about against between into through during before after above below to from up down in out
  on off over under again further then once here there when where why how all any both each few more most other some
  such no nor not only own same so than too very`.split(/\s+/),
)

/** Letters and numbers, with apostrophes inside a word kept (so stop words such as "don't" match whole). */
const TOKEN = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu
const ASCII_WORD = /^[a-z]+$/
/** Longer than any English word: kept as it is, and out of the cache (hostile text has tokens of megabytes). */
const LONGEST_WORD = 40

/** Stems of words seen, so a large index stems each distinct word once; cleared when it grows large. */
const stems = new Map<string, string>()
const STEM_CACHE_LIMIT = 100_000

function stem(word: string): string {
  // Porter's rules are English: other scripts and words with digits are kept as they are.
  if (word.length > LONGEST_WORD || !ASCII_WORD.test(word)) return word
  let stemmed = stems.get(word)
  if (stemmed === undefined) {
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear()
    stemmed = stemmer(word)
    stems.set(word, stemmed)
  }
  return stemmed
}

/**
 * The words of `text` that carry its topic: runs of letters and numbers, lower-cased, English
 * stop words and a possessive "'s" dropped, apostrophes removed; not stemmed. For a search engine
 * that stems by itself but stops fewer words (LanceDB's full-text index), or to find a query's
 * words in a text.
 */
export function contentWords(text: string): string[] {
  const words: string[] = []
  for (const [token] of text.toLowerCase().matchAll(TOKEN)) {
    const word = token.includes('’') ? token.replaceAll('’', "'") : token
    if (STOP_WORDS.has(word)) continue
    const bare = word.includes("'") ? word.replace(/'s$/, '').replaceAll("'", '') : word
    if (bare) words.push(bare)
  }
  return words
}

/**
 * The terms BM25 counts in `text`: its `contentWords`, Porter-stemmed ("Tides" and "tide" are one
 * term). Numbers are terms. In text order, repeats kept.
 */
export function lexicalTerms(text: string): string[] {
  return contentWords(text).map(stem)
}

/** Lucene's BM25 idf: positive even for a term every text holds. */
const idf = (texts: number, holding: number) => Math.log(1 + (texts - holding + 0.5) / (holding + 0.5))

/** BM25's weight of a term seen `frequency` times in a text of `length` terms, where texts average `averageLength`. */
const saturation = (frequency: number, length: number, averageLength: number) =>
  (frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / (averageLength || 1)))

/** Each distinct query term with how often the query says it (a word said twice counts twice). */
function queryCounts(query: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const term of lexicalTerms(query)) counts.set(term, (counts.get(term) ?? 0) + 1)
  return counts
}

/**
 * The BM25 score of each of `texts` for `query`, idf computed over `texts` themselves: for ranking
 * a handful of texts at once (a page's windows, say). 0 for a text with none of the query's terms.
 */
export function rankTexts(query: string, texts: readonly string[]): number[] {
  return rankTermLists(query, texts.map(lexicalTerms))
}

/**
 * `rankTexts` of texts already cut into their `lexicalTerms`: a caller with much text can cut it
 * a slice at a time, letting other work run between slices, and rank once at the end.
 */
export function rankTermLists(query: string, termLists: readonly (readonly string[])[]): number[] {
  const scores = termLists.map(() => 0)
  const wanted = queryCounts(query)
  if (wanted.size === 0 || termLists.length === 0) return scores
  const lengths: number[] = []
  // Per query term, per text holding it, how often.
  const found = new Map<string, Map<number, number>>()
  for (const [at, terms] of termLists.entries()) {
    lengths.push(terms.length)
    for (const term of terms) {
      if (!wanted.has(term)) continue
      const holders = found.get(term) ?? new Map<number, number>()
      found.set(term, holders.set(at, (holders.get(at) ?? 0) + 1))
    }
  }
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / termLists.length
  for (const [term, holders] of found) {
    const weight = (wanted.get(term) as number) * idf(termLists.length, holders.size)
    for (const [at, frequency] of holders) scores[at] = (scores[at] as number) + weight * saturation(frequency, lengths[at] as number, averageLength)
  }
  return scores
}

/** A row a search found and its BM25 score. */
export interface LexicalHit {
  readonly row: number
  readonly score: number
}

/**
 * An incremental BM25 index over numbered rows: rows come and go (a removed row's number may be
 * reused), and a search returns the best `limit`. Scores equal `rankTexts` over the rows present.
 */
export interface LexicalIndex {
  /** Indexes `text` as row `row` (a row not present now). */
  add(row: number, text: string): void
  /** Drops row `row`; `text` is the text it was added with. */
  remove(row: number, text: string): void
  /** The `limit` best rows holding any of the query's terms, best first; a tie keeps the row that matched first. */
  search(query: string, limit: number): LexicalHit[]
  /** Rows present. */
  readonly size: number
}

/** An empty `LexicalIndex`. */
export function lexicalIndex(): LexicalIndex {
  /** Per term, the rows holding it and how often. */
  const postings = new Map<string, Map<number, number>>()
  /** Per row, its length in terms (-1 where no row is). */
  let lengths = new Float64Array(64).fill(-1)
  let totalLength = 0
  let size = 0

  const frequencies = (text: string) => {
    const terms = lexicalTerms(text)
    const counts = new Map<string, number>()
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1)
    return { counts, length: terms.length }
  }

  return {
    get size() {
      return size
    },

    add(row, text) {
      if (row >= lengths.length) {
        const grown = new Float64Array(Math.max(row + 1, lengths.length * 2)).fill(-1)
        grown.set(lengths)
        lengths = grown
      }
      const { counts, length } = frequencies(text)
      for (const [term, count] of counts) {
        const rows = postings.get(term)
        if (rows) rows.set(row, count)
        else postings.set(term, new Map([[row, count]]))
      }
      lengths[row] = length
      totalLength += length
      size++
    },

    remove(row, text) {
      if (row >= lengths.length || (lengths[row] as number) < 0) return
      for (const term of frequencies(text).counts.keys()) {
        const rows = postings.get(term)
        if (!rows) continue
        rows.delete(row)
        if (rows.size === 0) postings.delete(term)
      }
      totalLength -= lengths[row] as number
      lengths[row] = -1
      size--
    },

    search(query, limit) {
      if (limit <= 0 || size === 0) return []
      const averageLength = totalLength / size
      // Scores in an array by row, and the rows in the order they first matched: a common term
      // matching most rows costs an addition each, not a map entry.
      const scores = new Float64Array(lengths.length)
      const touched: number[] = []
      for (const [term, count] of queryCounts(query)) {
        const rows = postings.get(term)
        if (!rows) continue
        const weight = count * idf(size, rows.size)
        for (const [row, frequency] of rows) {
          if (scores[row] === 0) touched.push(row)
          scores[row] = (scores[row] as number) + weight * saturation(frequency, lengths[row] as number, averageLength)
        }
      }
      return bestOf(touched, scores, limit)
    },
  }
}

/** The `limit` best of `rows` by `scores`, best first; a tie keeps the order of `rows`. */
function bestOf(rows: readonly number[], scores: Float64Array, limit: number): LexicalHit[] {
  const score = (row: number) => scores[row] as number
  // Many kept: one stable sort. Few: insertion into the kept list, sorting only what it keeps.
  if (limit > 64 || rows.length <= limit) {
    return [...rows]
      .sort((a, b) => score(b) - score(a))
      .slice(0, limit)
      .map((row) => ({ row, score: score(row) }))
  }
  const kept: LexicalHit[] = []
  for (const row of rows) {
    const value = score(row)
    if (kept.length >= limit && value <= (kept[kept.length - 1] as LexicalHit).score) continue
    let at = kept.length
    while (at > 0 && (kept[at - 1] as LexicalHit).score < value) at--
    kept.splice(at, 0, { row, score: value })
    if (kept.length > limit) kept.pop()
  }
  return kept
}
