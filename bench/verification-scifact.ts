/**
 * Claim verification on reworded claims (issue 34, item 5): SciFact (Wadden et al., 2020), whose
 * claims annotators wrote as paraphrases of sentences in the abstracts they cite, each labelled
 * per cited abstract SUPPORT or CONTRADICT (or neither: not enough information). Data in
 * bench/data/scifact (PROVENANCE.md): `claims-train.jsonl.gz` (SciFact's train claims, 809) and
 * `claims-dev.jsonl.gz` (its dev claims, 300), the abstracts in `corpus.jsonl.gz`.
 *
 * Each (claim, cited abstract) pair is one claim citing that abstract's text: SUPPORT → should be
 * `supported`, CONTRADICT → `unsupported`, neither → `unsupported` too (the abstract does not say
 * it; reported apart). The claim goes through the verifier's own lexical check (`lexicalSupport`
 * on the abstract as `prepareSource` reads it, the claim written with its citation `[1]`); where
 * the check leaves it unsettled, a scripted judge is asked, counted, and answers the gold label.
 * So the final verdict is the lexical one where it settled and the gold one where it was judged.
 *
 * The split: thresholds may be chosen on `train`; the figures reported are those of `dev`,
 * which no choice was made on.
 */
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { JUDGE_BATCH } from '../src/strategies/shared/claim-judge.js'
import { lexicalSupport, prepareSource } from '../src/strategies/shared/claim-support.js'
import { round } from './stats.js'

type Gold = 'SUPPORT' | 'CONTRADICT' | 'NEI'

interface SciFactClaim {
  id: number
  claim: string
  evidence: Record<string, { sentences: number[]; label: 'SUPPORT' | 'CONTRADICT' }[]>
  cited_doc_ids: number[]
}

export interface ScifactPair {
  claim: string
  abstract: string
  gold: Gold
}

const DATA = new URL('./data/scifact/', import.meta.url)
const jsonl = <T>(file: string): T[] =>
  gunzipSync(readFileSync(new URL(file, DATA)))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T)

let abstracts: Map<string, string> | undefined

/** The (claim, cited abstract, label) pairs of a split. */
export function scifactPairs(split: 'train' | 'dev'): ScifactPair[] {
  abstracts ??= new Map(jsonl<{ _id: string; text: string }>('corpus.jsonl.gz').map((doc) => [doc._id, doc.text]))
  const pairs: ScifactPair[] = []
  for (const claim of jsonl<SciFactClaim>(`claims-${split}.jsonl.gz`)) {
    for (const id of claim.cited_doc_ids) {
      const abstract = abstracts.get(String(id))
      if (!abstract) continue
      const gold: Gold = claim.evidence[String(id)]?.[0]?.label ?? 'NEI'
      pairs.push({ claim: claim.claim, abstract, gold })
    }
  }
  return pairs
}

/** "… end." → "… end [1]." (a claim without an end mark gets the marker at its end). */
const cited = (sentence: string) => (/[.!?]$/.test(sentence) ? sentence.replace(/([.!?])$/, ' [1]$1') : `${sentence} [1]`)

interface Outcome {
  pair: ScifactPair
  lexical: 'supported' | 'unsupported' | undefined
  judged: boolean
  final: 'supported' | 'unsupported'
}

/**
 * Claims per answer when judge calls are counted: the verifier sends the sentences of one answer
 * that the words cannot settle `JUDGE_BATCH` to a call, so calls depend on how many claims an
 * answer makes. Five is a short answer (the strategies' answers run to 5–10 cited sentences).
 */
export const CLAIMS_PER_ANSWER = 5

/** Each pair through the lexical check, and a judge that answers the gold label where it cannot settle. */
export function verifyPairs(pairs: readonly ScifactPair[]): { outcomes: Outcome[]; judgeCalls: number } {
  const prepared = new Map<string, ReturnType<typeof prepareSource>>()
  const outcomes = pairs.map((pair): Outcome => {
    let source = prepared.get(pair.abstract)
    if (!source) {
      source = prepareSource(pair.abstract)
      prepared.set(pair.abstract, source)
    }
    const support = lexicalSupport(cited(pair.claim), [source])
    const goldVerdict = pair.gold === 'SUPPORT' ? 'supported' : 'unsupported'
    if (support?.verdict) return { pair, lexical: support.verdict, judged: false, final: support.verdict }
    return { pair, lexical: undefined, judged: true, final: goldVerdict }
  })
  let judgeCalls = 0
  for (let from = 0; from < outcomes.length; from += CLAIMS_PER_ANSWER) {
    judgeCalls += Math.ceil(outcomes.slice(from, from + CLAIMS_PER_ANSWER).filter((o) => o.judged).length / JUDGE_BATCH)
  }
  return { outcomes, judgeCalls }
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole)

/** The rows for one split. */
export function scifactRows(split: 'train' | 'dev'): { rows: Record<string, unknown>[]; details: unknown } {
  const pairs = scifactPairs(split)
  const { outcomes, judgeCalls } = verifyPairs(pairs)
  const callsPerClaim = share(judgeCalls, outcomes.length)
  const set = (gold: Gold) => outcomes.filter((o) => o.pair.gold === gold)
  const labelled = outcomes.filter((o) => o.pair.gold !== 'NEI')
  const row = (name: string, of: readonly Outcome[], metric: string, value: number, target?: string, met?: boolean) => ({
    set: `SciFact ${split}: ${name}`,
    claims: of.length,
    metric,
    value: round(value, 3),
    ...(target ? { target, met } : {}),
  })
  const calls = (of: readonly Outcome[]) => share(of.filter((o) => o.judged).length, of.length)
  const wrongly = (of: readonly Outcome[], verdict: string) => share(of.filter((o) => !o.judged && o.lexical === verdict).length, of.length)
  const rows = [
    row(
      'all pairs',
      outcomes,
      `judge calls per claim (answers of ${CLAIMS_PER_ANSWER} claims, ${JUDGE_BATCH} sentences to a call)`,
      callsPerClaim,
      '≤ 0.333',
      callsPerClaim <= 1 / 3,
    ),
    row('all pairs', outcomes, 'sentences sent to the judge per claim', calls(outcomes)),
    row('SUPPORT', set('SUPPORT'), 'sentences sent to the judge per claim', calls(set('SUPPORT'))),
    row('SUPPORT', set('SUPPORT'), 'settled supported (right)', wrongly(set('SUPPORT'), 'supported')),
    row('SUPPORT', set('SUPPORT'), 'settled unsupported (wrong: a false alarm)', wrongly(set('SUPPORT'), 'unsupported')),
    row('CONTRADICT', set('CONTRADICT'), 'sentences sent to the judge per claim', calls(set('CONTRADICT'))),
    row('CONTRADICT', set('CONTRADICT'), 'settled unsupported (right)', wrongly(set('CONTRADICT'), 'unsupported')),
    row('CONTRADICT', set('CONTRADICT'), 'settled supported (wrong: a miss)', wrongly(set('CONTRADICT'), 'supported')),
    row('not enough info', set('NEI'), 'sentences sent to the judge per claim', calls(set('NEI'))),
    row('not enough info', set('NEI'), 'settled supported (wrong)', wrongly(set('NEI'), 'supported')),
    row(
      'SUPPORT + CONTRADICT',
      labelled,
      'final verdict right (lexical where settled, gold judge elsewhere)',
      share(labelled.filter((o) => o.final === (o.pair.gold === 'SUPPORT' ? 'supported' : 'unsupported')).length, labelled.length),
    ),
  ]
  const sample = (of: readonly Outcome[], pick: (o: Outcome) => boolean) =>
    of
      .filter(pick)
      .slice(0, 15)
      .map((o) => o.pair.claim)
  return {
    rows,
    details: {
      split,
      pairs: { SUPPORT: set('SUPPORT').length, CONTRADICT: set('CONTRADICT').length, NEI: set('NEI').length },
      judgeCalls,
      supportFlagged: sample(set('SUPPORT'), (o) => o.lexical === 'unsupported'),
      contradictPassed: sample(set('CONTRADICT'), (o) => o.lexical === 'supported'),
    },
  }
}
