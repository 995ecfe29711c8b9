import type { Citation } from '../../core/contracts/events.js'
import type { RecalledFinding } from '../../core/contracts/long-term-memory.js'
import type { PriorAnswer } from '../../core/contracts/result.js'
import { normalizeUrl } from '../../core/util/urls.js'
import { rewriteCitations } from '../shared/citations.js'
import { readConfidence } from './parse.js'
import type { ShownFinding } from './prompts.js'

/** The answer to one sub-question: `{query, answer, confidence 0–1, sources}` (source URLs). */
export interface Finding {
  query: string
  answer: string
  confidence: number
  sources: string[]
}

/** Confidence given to a prior answer that came without one. */
const PRIOR_CONFIDENCE = 0.5

/** Prior answers as findings, with their old citation markers removed (prompts number sources afresh). */
export function priorFindings(priors: readonly PriorAnswer[] = []): Finding[] {
  return priors
    .filter((p) => typeof p?.query === 'string' && typeof p.answer === 'string')
    .map((p) => ({
      query: p.query,
      answer: rewriteCitations(p.answer, () => undefined).trim(),
      // A caller's figure is read like a model's (0–1, a percentage, junk ignored), never trusted raw.
      confidence: readConfidence(p.confidence) ?? PRIOR_CONFIDENCE,
      sources: (p.sources ?? []).filter((s): s is string => typeof s === 'string' && s !== ''),
    }))
}

/** Findings long-term memory recalled, one per finding: the earlier run's question, the fact as its answer, and its source. */
export function recalledAsFindings(recalled: readonly RecalledFinding[]): Finding[] {
  return recalled.map((r) => ({ query: r.question || 'an earlier question', answer: r.text, confidence: PRIOR_CONFIDENCE, sources: [r.url] }))
}

/** Titles of every source seen in the run (and those the conversation already numbered). */
export class SourceTitles {
  private readonly titles = new Map<string, string>()

  /** `saved`: the entries of a checkpoint (`entries()`), when the run resumes. */
  constructor(citations: readonly Citation[] = [], saved: readonly (readonly [string, string])[] = []) {
    for (const c of citations) if (c.title) this.titles.set(normalizeUrl(c.url), c.title)
    for (const [key, title] of saved) this.titles.set(key, title)
  }

  /** Every title by normalised URL, for a checkpoint. */
  entries(): [string, string][] {
    return [...this.titles]
  }

  note(url: string, title: string | undefined): void {
    const key = normalizeUrl(url)
    if (title && !this.titles.has(key)) this.titles.set(key, title)
  }

  of(url: string): string {
    return this.titles.get(normalizeUrl(url)) ?? ''
  }
}

/**
 * Numbers the sources of the findings 1..n for one prompt (deduplicated by normalised URL, in
 * order of first use) and shows each finding with its source numbers.
 */
export function numberFindings(findings: readonly Finding[], titles: SourceTitles): { shown: ShownFinding[]; sources: { url: string; title: string }[] } {
  const byKey = new Map<string, number>()
  const sources: { url: string; title: string }[] = []
  const shown = findings.map((f) => {
    const sourceNumbers: number[] = []
    for (const url of f.sources) {
      const key = normalizeUrl(url)
      let n = byKey.get(key)
      if (n === undefined) {
        sources.push({ url, title: titles.of(url) })
        n = sources.length
        byKey.set(key, n)
      }
      if (!sourceNumbers.includes(n)) sourceNumbers.push(n)
    }
    return { query: f.query, answer: f.answer, confidence: f.confidence, sourceNumbers }
  })
  return { shown, sources }
}

/** The mean confidence of the findings, two decimals; 0 with none. */
export function meanConfidence(findings: readonly Finding[]): number {
  if (!findings.length) return 0
  return Math.round((findings.reduce((sum, f) => sum + f.confidence, 0) / findings.length) * 100) / 100
}
