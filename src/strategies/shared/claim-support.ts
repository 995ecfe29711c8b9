/**
 * The lexical half of claim verification: whether the text a source showed holds a sentence of
 * the answer, without a model. The sentence's terms (content words, stemmed, stop words
 * dropped), its numbers and its names are looked up in the passage of the source that holds
 * most of them (one to three consecutive sentences). Numbers must match exactly, a name must be
 * there, and a negation in one but not the other is a mismatch. What this cannot settle (a
 * paraphrase that shares only part of its words) goes to the model judge.
 */
import { lexicalTerms } from '../../documents/lexical.js'
import { splitSentences } from './sentences.js'

/** What the lexical check found: a verdict, or `undefined` when a judge must decide. */
export interface LexicalSupport {
  verdict: 'supported' | 'unsupported' | undefined
  /** The share of the claim's terms the evidence holds, 0 to 1. */
  score: number
  /** The best-matching passage of the cited text (bounded). */
  evidence: string
  /** Why an `unsupported` verdict was given: said to the user as part of the evidence. */
  reason?: string
}

/** A source's text, split and indexed once however many claims cite it. */
export interface PreparedSource {
  sentences: readonly EvidenceSentence[]
}

interface EvidenceSentence {
  text: string
  terms: ReadonlySet<string>
  numbers: ReadonlySet<string>
  /** Its words in order: each word's term (undefined for a stop word) and whether it negates. */
  words: readonly Word[]
}

interface Word {
  term: string | undefined
  negates: boolean
}

/**
 * The thresholds below were chosen on SciFact's train claims (reworded by people from the
 * abstracts they cite) and reported on its dev claims (bench/verification-scifact.ts). The words
 * settle a sentence only where they are nearly the source's own; the judge, which reads
 * `JUDGE_BATCH` sentences a call, takes the paraphrases.
 */
/** At or above this share of its terms found, a claim whose numbers, names and polarity match is supported. */
export const SUPPORTED_AT = 0.9
/** Below this share, no judge is asked: the source does not say it. */
export const UNSUPPORTED_BELOW = 0.3
/**
 * A mismatch (a number, a name, a negation) is settled as `unsupported` without a judge only when
 * the wording is otherwise this close: then the sentence is the source's with one thing changed.
 * Looser wording with a mismatch is a paraphrase the words cannot judge: on SciFact's reworded
 * claims, settling those lexically at 0.7 flagged a quarter of the true ones.
 */
const MISMATCH_SETTLED_AT = 0.9
/** Sentences in a passage the claim may draw on. */
const WINDOW = 3
/** Characters of evidence kept for the reader. */
export const EVIDENCE_CHARS = 400

/** Citation markers, list bullets and heading marks: not part of what a sentence says. */
const MARKERS = /\[\d{1,4}(?:\s*,\s*\d{1,4})*\]/g
const BULLET = /^\s*(?:[-*+•]|\d{1,3}[.)]|#{1,6})\s+/

/** Negation words; `n't` as a suffix too. Stop-word lists drop them, so they are looked for apart. */
const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nor', 'neither', 'cannot', 'without', 'nothing', 'nobody', 'nowhere', 'lack', 'lacks', 'lacking'])
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu

function wordsOf(text: string): Word[] {
  return [...text.toLowerCase().matchAll(WORD)].map(([word]) => ({
    term: lexicalTerms(word)[0],
    negates: NEGATIONS.has(word) || /n['’]t$/.test(word),
  }))
}

/**
 * Words before the claim's first matched term that still belong to what it says ("not a test").
 * None after its last: a negation there begins what the source goes on to say ("orbit, a
 * capability not seen since").
 */
const NEGATION_REACH = 2
/** At or above this share of its terms found in one sentence, the claim is that sentence, and its negations must be as many. */
const VERBATIM_AT = 0.9

/**
 * Numbers as written, with thousands separators dropped ("1,200" is "1200"); a decimal keeps its
 * point. Digits inside a word with letters ("GPT-4", "H2O") are names, not numbers.
 */
const NUMBER = /(?<![\p{L}\d.,])\d+(?:,\d{3})*(?:\.\d+)?(?![\p{L}\d])/gu

function numbersIn(text: string): Set<string> {
  const found = new Set<string>()
  for (const [raw] of text.matchAll(NUMBER)) found.add(raw.replace(/,/g, '').replace(/\.0+$/, ''))
  return found
}

/** Number words a source may spell where the claim uses digits (and the other way round). */
const NUMBER_WORDS: Readonly<Record<string, string>> = {
  zero: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  eleven: '11',
  twelve: '12',
  twenty: '20',
  hundred: '100',
  thousand: '1000',
}

function spelledNumbers(text: string): Set<string> {
  const found = new Set<string>()
  for (const [word] of text.toLowerCase().matchAll(/\p{L}+/gu)) {
    const n = NUMBER_WORDS[word]
    if (n) found.add(n)
  }
  return found
}

/**
 * The claim's names: words written with a capital (or a digit inside letters) that do not begin
 * the sentence, as their terms. "Sekine" and "BM25" are names; "The" at the start is not.
 */
function nameTerms(claim: string): Set<string> {
  const names = new Set<string>()
  const words = [...claim.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)]
  for (const [at, [word]] of words.entries()) {
    const capital = /^\p{Lu}/u.test(word) && at > 0
    const mixed = /\p{L}/u.test(word) && /\d/.test(word)
    if (!capital && !mixed) continue
    for (const term of lexicalTerms(word)) if (!/^\d+$/.test(term)) names.add(term)
  }
  return names
}

/** What a sentence says, without its markers and bullet. */
export function claimBody(sentence: string): string {
  return sentence.replace(MARKERS, ' ').replace(BULLET, '').replace(/\s+/g, ' ').trim()
}

/** Splits and indexes a source's text for `lexicalSupport`. */
export function prepareSource(text: string): PreparedSource {
  return {
    sentences: splitSentences(text).map((sentence) => ({
      text: sentence,
      terms: new Set(lexicalTerms(sentence)),
      numbers: new Set([...numbersIn(sentence), ...spelledNumbers(sentence)]),
      words: wordsOf(sentence),
    })),
  }
}

interface Passage {
  sentences: EvidenceSentence[]
  matched: number
}

/** The one to three consecutive sentences of a source holding most of `terms` (the shortest on a tie), and those terms. */
function bestWindow(terms: ReadonlySet<string>, source: PreparedSource): { sentences: EvidenceSentence[]; seen: Set<string> } | undefined {
  let best: { sentences: EvidenceSentence[]; seen: Set<string> } | undefined
  const all = source.sentences
  for (let first = 0; first < all.length; first++) {
    const seen = new Set<string>()
    for (let last = first; last < Math.min(all.length, first + WINDOW); last++) {
      for (const term of (all[last] as EvidenceSentence).terms) if (terms.has(term)) seen.add(term)
      const length = last - first + 1
      if (!best || seen.size > best.seen.size || (seen.size === best.seen.size && length < best.sentences.length)) {
        best = { sentences: all.slice(first, last + 1), seen: new Set(seen) }
      }
    }
  }
  return best
}

/**
 * The passage a claim is checked against: the best window of the source that holds most of its
 * terms, joined by the best window of each other cited source that holds terms the ones before
 * do not (a sentence citing [2][3] may say part from each).
 */
function bestPassage(terms: ReadonlySet<string>, sources: readonly PreparedSource[]): Passage | undefined {
  const windows = sources
    .map((source) => bestWindow(terms, source))
    .filter((window) => window !== undefined)
    .sort((a, b) => b.seen.size - a.seen.size)
  if (windows.length === 0) return undefined
  const matched = new Set<string>()
  const sentences: EvidenceSentence[] = []
  for (const window of windows) {
    if (sentences.length > 0 && ![...window.seen].some((term) => !matched.has(term))) continue
    for (const term of window.seen) matched.add(term)
    sentences.push(...window.sentences)
  }
  return { sentences, matched: matched.size }
}

/**
 * The negations in the part of the passage that holds the claim's terms (from `NEGATION_REACH`
 * words before the first matched word to the last): a "not" elsewhere in a long sentence is
 * about something else.
 */
function negationsNear(terms: ReadonlySet<string>, passage: Passage): number {
  const words = passage.sentences.flatMap((s) => s.words)
  let first = -1
  let last = -1
  for (const [at, word] of words.entries()) {
    if (word.term === undefined || !terms.has(word.term)) continue
    if (first === -1) first = at
    last = at
  }
  if (first === -1) return 0
  let count = 0
  for (let at = Math.max(0, first - NEGATION_REACH); at <= last; at++) if (words[at]?.negates) count++
  return count
}

/** `text` cut to `EVIDENCE_CHARS` at a word boundary. */
function bounded(text: string): string {
  if (text.length <= EVIDENCE_CHARS) return text
  const cut = text.lastIndexOf(' ', EVIDENCE_CHARS - 1)
  return `${text.slice(0, cut > EVIDENCE_CHARS / 2 ? cut : EVIDENCE_CHARS - 1)}…`
}

/**
 * Checks one sentence of the answer against the prepared texts of the sources it cites.
 * Undefined when there is nothing to check against (no source text, or a sentence without a
 * single term).
 */
export function lexicalSupport(sentence: string, sources: readonly PreparedSource[]): LexicalSupport | undefined {
  const body = claimBody(sentence)
  const terms = new Set(lexicalTerms(body))
  if (terms.size === 0) return undefined
  const passage = bestPassage(terms, sources)
  if (!passage) return undefined
  const score = passage.matched / terms.size
  const evidence = bounded(passage.sentences.map((s) => s.text).join(' '))
  const unsupported = (reason: string): LexicalSupport => ({ verdict: 'unsupported', score, evidence, reason })

  if (score < UNSUPPORTED_BELOW) return unsupported('the source does not say this')
  const judge: LexicalSupport = { verdict: undefined, score, evidence }
  const shownTerms = new Set(passage.sentences.flatMap((s) => [...s.terms]))
  /** Whether the claim's other terms, those of `differing` aside, are close to the passage's: the source's sentence with that one thing changed. */
  const closeBesides = (differing: ReadonlySet<string>) => {
    let rest = 0
    let found = 0
    for (const term of terms) {
      if (differing.has(term)) continue
      rest++
      if (shownTerms.has(term)) found++
    }
    return rest > 0 && found / rest >= MISMATCH_SETTLED_AT
  }

  const shownNumbers = new Set(passage.sentences.flatMap((s) => [...s.numbers]))
  const missingNumber = [...numbersIn(body)].find((n) => !shownNumbers.has(n))
  if (missingNumber !== undefined) {
    return closeBesides(new Set(lexicalTerms(missingNumber))) ? unsupported(`the source does not give the number ${missingNumber}`) : judge
  }

  const missingNames = new Set([...nameTerms(body)].filter((name) => !shownTerms.has(name)))
  if (missingNames.size > 0) return closeBesides(missingNames) ? unsupported('the source does not name what the sentence names') : judge

  const claimed = wordsOf(body).filter((word) => word.negates).length
  const shown = negationsNear(terms, passage)
  const verbatim = passage.sentences.length === 1 && score >= VERBATIM_AT
  if (claimed > 0 !== shown > 0 || (verbatim && claimed !== shown)) {
    return score >= MISMATCH_SETTLED_AT ? unsupported(claimed > shown ? 'the source does not say "not"' : 'the source says the opposite') : judge
  }
  return score >= SUPPORTED_AT ? { verdict: 'supported', score, evidence } : judge
}
