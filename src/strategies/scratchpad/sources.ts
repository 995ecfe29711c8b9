import type { SearchResult } from '../../core/contracts/providers.js'
import { normalizeUrl } from '../../core/util/urls.js'
import { citationNumbers, replaceCitations } from '../shared/citations.js'
import { evidenceText } from '../shared/cited-answer.js'

/** A source the knowledge was rewritten from: what the synthesizer was shown of it. */
export interface KnowledgeSource {
  url: string
  title?: string
  /** Its snippets (distinct, bounded): what the synthesizer and the finalizer see of it. */
  text?: string
}

/** A source as a prompt shows it: its number in the knowledge's `[n]` markers. */
export interface NumberedSource extends KnowledgeSource {
  n: number
}

/** What one source keeps of its snippets, in characters at most. */
export const SOURCE_CHARS = 600
/** The finalizer's list of sources, in characters at most: the prompt stays small however long the run. */
const LIST_CHARS = 3000
/** Source URLs in parentheses after a fact, as `withUrls` writes them: ` (https://a, https://b)`. */
const URL_GROUP = /\s?\((https?:\/\/[^\s(),]+(?:,\s*https?:\/\/[^\s(),]+)*)\)/g
/** Between sentences (a URL's dots are followed by no space) and lines, kept by `split`. */
const SENTENCE_BREAK = /((?<=[.!?])[^\S\n]+|\n+)/

/**
 * The sources behind a scratchpad's knowledge, numbered 1, 2, … in the order the run first
 * read them. The knowledge cites them by these numbers (`[n]`, the synthesizer keeps them), so
 * the finalizer can be shown the sources its notes cite; the answer renumbers what it cites for
 * the conversation. A checkpoint keeps the list in order, so a resume numbers them the same.
 */
export class KnowledgeSources {
  private readonly sources: KnowledgeSource[] = []
  private readonly byUrl = new Map<string, number>()

  constructor(saved: readonly KnowledgeSource[] = []) {
    for (const source of saved) this.addOne(source)
  }

  /** The numbers `results` have or would get, in their order (no source is added). */
  numbersFor(results: readonly SearchResult[]): number[] {
    const fresh = new Map<string, number>()
    return results.map((r) => {
      const key = normalizeUrl(r.url)
      const known = this.byUrl.get(key) ?? fresh.get(key)
      if (known !== undefined) return known
      const n = this.sources.length + fresh.size + 1
      fresh.set(key, n)
      return n
    })
  }

  /** Adds the results (a known URL gains the snippet it lacked); their numbers, in order. */
  add(results: readonly SearchResult[]): number[] {
    return results.map((r) => this.addOne({ url: r.url, title: r.title, text: r.snippet }))
  }

  has(n: number): boolean {
    return n >= 1 && n <= this.sources.length
  }

  /** Every source, in number order: what a checkpoint keeps. */
  list(): KnowledgeSource[] {
    return this.sources.map((s) => ({ ...s }))
  }

  /**
   * The sources the finalizer is shown: those `notes` cite, by number; all of them when the notes
   * cite none (a synthesizer that dropped its markers); within the list's budget.
   */
  shownWith(notes: string): NumberedSource[] {
    const cited = [...new Set(citationNumbers(notes))].filter((n) => this.has(n)).sort((a, b) => a - b)
    const numbers = cited.length ? cited : this.sources.map((_, i) => i + 1)
    const shown: NumberedSource[] = []
    let chars = 0
    for (const n of numbers) {
      const source = this.sources[n - 1]!
      chars += source.url.length + (source.title?.length ?? 0) + (source.text?.length ?? 0)
      if (chars > LIST_CHARS && shown.length) break
      shown.push({ n, ...source })
    }
    return shown
  }

  /**
   * `notes` from outside the run (an earlier turn's knowledge, as `withUrls` wrote it) with each
   * source URL in parentheses made a source of this run, cited `[n]`; its evidence is the
   * sentence that named it. So an answer can cite what an earlier turn learned.
   */
  adopt(notes: string, titleOf: (url: string) => string | undefined): string {
    return notes
      .split(SENTENCE_BREAK)
      .map((part, i) => {
        if (i % 2 === 1) return part
        const said = part.replace(URL_GROUP, '').trim()
        return part.replace(URL_GROUP, (_match, group: string) => {
          const numbers = group.split(/,\s*/).map((url) => this.addOne({ url, title: titleOf(url), text: said }))
          return ` ${[...new Set(numbers)].map((n) => `[${n}]`).join('')}`
        })
      })
      .join('')
  }

  /** `notes` with each `[n]` written as its source's URL, for readers outside the run (the next turn, the caller). */
  withUrls(notes: string): string {
    return replaceCitations(notes, (numbers) => {
      const urls = [...new Set(numbers.flatMap((n) => (this.has(n) ? [this.sources[n - 1]!.url] : [])))]
      return urls.length ? `(${urls.join(', ')})` : ''
    })
  }

  private addOne(source: KnowledgeSource): number {
    const key = normalizeUrl(source.url)
    const known = this.byUrl.get(key)
    if (known !== undefined) {
      const held = this.sources[known - 1]!
      const text = evidenceText([held.text ?? '', source.text ?? ''], SOURCE_CHARS)
      if (text) held.text = text
      if (!held.title && source.title) held.title = source.title
      return known
    }
    const text = evidenceText([source.text ?? ''], SOURCE_CHARS)
    this.sources.push({ url: source.url, ...(source.title ? { title: source.title } : {}), ...(text ? { text } : {}) })
    this.byUrl.set(key, this.sources.length)
    return this.sources.length
  }
}
