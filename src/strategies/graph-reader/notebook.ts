import type { Fact } from '../../core/contracts/events.js'
import { normalizeText } from '../../core/util/text.js'
import { normalizeUrl } from '../../core/util/urls.js'
import type { NotebookView } from './prompts.js'

/** What `Notebook.add` did with a fact. */
export type AddOutcome =
  /** The text normalised to nothing (only punctuation or whitespace): not stored. */
  | { kind: 'empty' }
  /** Equal to or contained in a stored fact; its new sources (if any) joined that fact. */
  | { kind: 'duplicate'; fact: Fact; sourcesAdded: boolean }
  /** Stored as a new fact; `supersedes` names the shorter facts it contains, now removed. */
  | { kind: 'added'; fact: Fact; supersedes: string[] }

interface Entry {
  serial: number
  fact: Fact
  /** The comparison key, padded with spaces so containment is whole words only. */
  padded: string
  /** The rare gram (a word pair, or the word of a one-word fact) it is filed under in `anchors`. */
  anchor: number
  /** `fact.sources` as normalised URLs, index for index. */
  sourceKeys: string[]
}

/**
 * A notebook of atomic facts with containment dedup. Texts are compared by `normalizeText`
 * (NFKC, case-folded, punctuation ignored) and contain each other by whole words: a fact
 * equal to or inside a stored one is a duplicate whose sources merge into it, and a fact that
 * contains stored ones replaces them (inheriting their sources). So the stored facts are
 * always the maximal texts seen, whatever order they came in, and nothing added is lost.
 *
 * Indexes avoid the all-pairs scan. `postings` (word pair → facts holding it) finds the
 * facts that may contain a new one: they hold all its word pairs, so scanning the rarest
 * pair's list is enough (a one-word text needs only `wordHome`). `anchors` (gram → facts filed
 * under their own rarest gram: a pair, or the word of a one-word fact) finds the facts a new
 * one may contain: a fact inside another has its anchor among the other's words and pairs.
 * Word pairs are far more selective than words in facts that share a vocabulary (names,
 * years, "the", "in"), which keeps both scans short. The lists are plain arrays that keep
 * removed facts until read (superseding is rare; Sets cost more in GC).
 */
export class Notebook {
  /** Stored facts by serial; postings and anchors may still list removed serials, skipped on read. */
  private readonly entries = new Map<number, Entry>()
  /**
   * Every key ever added → the fact it went to (stored, merged into, or since superseded; see
   * `live`). A fact added again goes where it went the first time, whose sources it already
   * has, so adding the same facts twice changes nothing.
   */
  private readonly byKey = new Map<string, number>()
  /**
   * Word → the first fact that held it. Facts leave only when a fact containing them replaces
   * them, so `live(home)` always holds the word: one lookup finds a fact covering a one-word text.
   */
  private readonly wordHome = new Map<number, number>()
  /** Superseded serial → the serial of the fact that contains it. */
  private readonly replacedBy = new Map<number, number>()
  private readonly postings = new Map<number, number[]>()
  private readonly anchors = new Map<number, number[]>()
  /** Word → number, so a word pair is one number rather than a new string. */
  private readonly vocabulary = new Map<string, number>()
  /** Source → normalised URL: a page gives many facts, and parsing URLs dominates merging. */
  private readonly urlKeys = new Map<string, string>()
  private readonly newId: () => string
  private serial = 0
  /** `view()` since the facts last changed. */
  private viewed: NotebookView | undefined

  constructor(newId?: () => string) {
    let n = 0
    this.newId = newId ?? (() => `f${++n}`)
  }

  get size(): number {
    return this.entries.size
  }

  /** The stored facts, oldest first (copies). */
  facts(): Fact[] {
    return [...this.entries.values()].map(({ fact }) => copyFact(fact))
  }

  /**
   * What a prompt shows of the facts (`notebookView`), made again only once they changed: every
   * node's two prompts used to copy every fact for it.
   */
  view(): NotebookView {
    this.viewed ??= notebookView([...this.entries.values()].map((entry) => entry.fact))
    return this.viewed
  }

  add(text: string, sources: readonly string[] = [], queryId?: string): AddOutcome {
    return this.file(text, sources, queryId, undefined)
  }

  /**
   * Files facts that were in a notebook before (a resumed run's), keeping their ids and sources.
   * Stored facts never contain each other, so each is filed as it was.
   */
  restore(facts: readonly Fact[]): void {
    for (const fact of facts) this.file(fact.text, fact.sources, fact.queryId, fact.id)
  }

  private file(text: string, sources: readonly string[], queryId: string | undefined, id: string | undefined): AddOutcome {
    const raw = typeof text === 'string' ? text : ''
    const key = normalizeText(raw)
    if (!key) return { kind: 'empty' }
    const padded = ` ${key} `
    const words = this.wordIds(key)
    const own = ownGrams(words)

    const covering = this.findCovering(key, padded, own)
    if (covering) {
      this.byKey.set(key, covering.serial)
      const sourcesAdded = this.mergeSources(covering, sources)
      return { kind: 'duplicate', fact: copyFact(covering.fact), sourcesAdded }
    }

    const fact: Fact = { id: id ?? this.newId(), text: raw.trim(), sources: [], ...(queryId !== undefined ? { queryId } : {}) }
    // A repeated word or pair files the fact twice under it: harmless, and cheaper than a Set.
    const pairs = words.length === 1 ? [] : own
    const entry: Entry = { serial: this.serial++, fact, padded, anchor: this.rarest(own), sourceKeys: [] }
    this.mergeSources(entry, sources)
    const supersedes: string[] = []
    for (const serial of this.findContained(padded, words, pairs)) {
      const contained = this.entries.get(serial)
      if (!contained) continue // found twice (a repeated gram), already removed
      contained.fact.sources.forEach((url, i) => {
        addSource(entry, contained.sourceKeys[i]!, url)
      })
      supersedes.push(contained.fact.id)
      this.entries.delete(serial)
      this.replacedBy.set(serial, entry.serial)
    }
    this.insert(entry, words, pairs)
    return { kind: 'added', fact: copyFact(fact), supersedes }
  }

  /**
   * A stored fact whose text equals or contains `key`. One word: the fact that now stands for
   * the first fact holding it. More: such a fact holds every one of their pairs, so scan the
   * rarest pair's postings.
   */
  private findCovering(key: string, padded: string, own: readonly number[]): Entry | undefined {
    const known = this.byKey.get(key)
    if (known !== undefined) return this.live(known)
    if (own.length === 1 && !key.includes(' ')) {
      const home = this.wordHome.get(own[0]!)
      return home === undefined ? undefined : this.live(home)
    }
    let smallest: number[] | undefined
    for (const gram of own) {
      const posting = this.postings.get(gram)
      if (!posting) return undefined // no fact ever held this gram, so none contains the text
      if (!smallest || posting.length < smallest.length) smallest = posting
    }
    for (const serial of smallest ?? []) {
      const entry = this.entries.get(serial)
      if (entry && entry.padded.length > padded.length && entry.padded.includes(padded)) return entry
    }
    return undefined
  }

  /** The stored fact that now stands for `serial`: itself, or the fact that superseded it (transitively). */
  private live(serial: number): Entry {
    let current = serial
    for (let next = this.replacedBy.get(current); next !== undefined; next = this.replacedBy.get(current)) current = next
    if (current !== serial) this.replacedBy.set(serial, current)
    return this.entries.get(current)!
  }

  /** Serials of stored facts whose text lies inside `padded` (each has its anchor among its words and pairs). */
  private findContained(padded: string, words: readonly number[], pairs: readonly number[]): number[] {
    const found: number[] = []
    for (const grams of [words, pairs]) {
      for (const gram of grams) {
        const anchored = this.anchors.get(gram)
        if (!anchored) continue
        for (const serial of anchored) {
          const entry = this.entries.get(serial)
          if (entry && entry.padded.length < padded.length && padded.includes(entry.padded)) found.push(serial)
        }
      }
    }
    return found
  }

  /** The gram in the fewest facts so far: a short anchor list to scan later. */
  private rarest(own: readonly number[]): number {
    let best = own[0]!
    let bestCount = Infinity
    for (const gram of own) {
      const count = this.postings.get(gram)?.length ?? 0
      if (count < bestCount) {
        best = gram
        bestCount = count
      }
    }
    return best
  }

  /**
   * The words of a key as numbers. Pairs are exact below 2^21 distinct words; past that two
   * pairs may share a number, which only adds candidates that the text check then rejects.
   */
  private wordIds(key: string): number[] {
    const words = key.split(' ')
    const ids = new Array<number>(words.length)
    for (let i = 0; i < words.length; i++) {
      let id = this.vocabulary.get(words[i]!)
      if (id === undefined) {
        id = this.vocabulary.size
        this.vocabulary.set(words[i]!, id)
      }
      ids[i] = id
    }
    return ids
  }

  /** Adds the sources `entry` lacks (compared as normalised URLs); true when any was added. */
  private mergeSources(entry: Entry, sources: readonly string[]): boolean {
    let added = false
    for (const source of sources) {
      if (typeof source !== 'string' || !source.trim()) continue
      added = addSource(entry, this.urlKey(source), source.trim()) || added
    }
    return added
  }

  private urlKey(source: string): string {
    let key = this.urlKeys.get(source)
    if (key === undefined) {
      key = normalizeUrl(source)
      this.urlKeys.set(source, key)
    }
    return key
  }

  /** Files `entry` under its word pairs (`postings`), its words (`wordHome`) and its anchor. */
  private insert(entry: Entry, words: readonly number[], pairs: readonly number[]): void {
    const serial = entry.serial
    this.entries.set(serial, entry)
    this.viewed = undefined
    this.byKey.set(entry.padded.slice(1, -1), serial)
    for (const pair of pairs) append(this.postings, pair, serial)
    for (const word of words) if (!this.wordHome.has(word)) this.wordHome.set(word, serial)
    append(this.anchors, entry.anchor, serial)
  }
}

const PAIR = 2 ** 21

/**
 * The grams any text containing these words must hold: its word pairs, or its one word. A
 * word is its number; a pair is `(first + 1) * 2^21 + second`, above every word number.
 */
function ownGrams(words: readonly number[]): number[] {
  if (words.length === 1) return [words[0]!]
  const pairs: number[] = []
  for (let i = 1; i < words.length; i++) pairs.push((words[i - 1]! + 1) * PAIR + words[i]!)
  return pairs
}

function append(index: Map<number, number[]>, gram: number, serial: number): void {
  const list = index.get(gram)
  if (list) list.push(serial)
  else index.set(gram, [serial])
}

function addSource(entry: Entry, key: string, url: string): boolean {
  if (entry.sourceKeys.includes(key)) return false
  entry.sourceKeys.push(key)
  entry.fact.sources.push(url)
  return true
}

function copyFact(fact: Fact): Fact {
  return { ...fact, sources: [...fact.sources] }
}

/** The notebook the extractor and the answer check see: at most this many characters of facts. */
export const NOTEBOOK_VIEW_CHARS = 3000
/** How many facts leave the view at once when it is full: few enough to keep recent ones in sight. */
const VIEW_STEP = 8

/**
 * The facts a prompt shows, oldest first, within NOTEBOOK_VIEW_CHARS. When they do not all fit:
 * the oldest that fit in half of it (the head: from then on the same facts, in practice those of
 * the planned searches), then the newest that fit in the rest (the tail), the facts between left
 * out. The tail's start moves in whole batches of VIEW_STEP. So a role's consecutive prompts share
 * their text up to their last common fact, and when a batch leaves, still up to the head's end:
 * the prefix a provider's prompt cache reuses. (Dropping the oldest facts instead would change the
 * prompt right after the key elements each time the view moved.)
 */
export function notebookView(notebook: readonly { text: string }[]): NotebookView {
  const facts = notebook.map((f) => f.text)
  const size = (text: string) => text.length + 3 // "- " and the newline
  const total = facts.reduce((sum, text) => sum + size(text), 0)
  if (total <= NOTEBOOK_VIEW_CHARS) return { head: [...facts], hidden: 0, tail: [] }
  let headEnd = 0
  let headChars = 0
  while (headEnd < facts.length - 1 && headChars + size(facts[headEnd]!) <= NOTEBOOK_VIEW_CHARS / 2) headChars += size(facts[headEnd++]!)
  let tailStart = headEnd
  let tailChars = total - headChars
  while (tailChars > NOTEBOOK_VIEW_CHARS - headChars && tailStart < facts.length - 1) {
    const end = Math.min(tailStart + VIEW_STEP, facts.length - 1)
    for (const text of facts.slice(tailStart, end)) tailChars -= size(text)
    tailStart = end
  }
  return { head: facts.slice(0, headEnd), hidden: tailStart - headEnd, tail: facts.slice(tailStart) }
}
