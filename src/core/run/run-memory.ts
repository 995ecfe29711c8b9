/**
 * The runtime's side of long-term memory, kept out of the run loop: the agent's `memory` option
 * checked, the recall before a run plans (bounded, deduplicated, never trusted raw), and the
 * write after it ends (a policy, then a write nobody waits for).
 */
import { addCost, type Cost, type Pricing, zeroCost } from '../contracts/run-cost.js'
import { abortError, describeError, LaconicError } from '../contracts/laconic-error.js'
import type { Citation } from '../contracts/events.js'
import type { MemoryEntry, MemoryOptions, MemoryStore, RecalledFinding, SessionFact } from '../contracts/long-term-memory.js'
import { optionsSection, wholeNumberOption } from './shared-options.js'
import { type UsageReporter, usageCost } from '../contracts/provider-usage.js'
import type { ResearchResult } from '../contracts/result.js'
import { normalizeText, truncateAtSentence } from '../util/text.js'
import { normalizeUrl } from '../util/urls.js'

/** Findings one recall may give a run, at most: `memory.recall` above it is a config error. */
export const MAX_RECALL = 50

/** The `memory` option checked, with its defaults filled in. */
export interface MemorySettings {
  store: MemoryStore
  recall: number
  recallChars: number
  writePolicy: false | { minAnswerChars: number; minFindings: number }
  onWriteError: (error: unknown, runId: string) => void
  onWrite: ((cost: Cost, runId: string) => void) | undefined
}

const warnWriteFailed = (error: unknown, runId: string) =>
  console.warn(`laconic: writing run ${runId} to long-term memory failed: ${describeError(error).message}`)

/** Checks the agent's `memory` option (undefined: memory is off); a `config` error names what is wrong. */
export function memorySettings(raw: MemoryOptions | undefined): MemorySettings | undefined {
  if (raw === undefined) return undefined
  const section = optionsSection(raw, 'memory', ['store', 'recall', 'recallChars', 'writePolicy', 'onWriteError', 'onWrite'])
  const store = section.store as Partial<MemoryStore> | undefined
  if (typeof store?.remember !== 'function' || typeof store.recall !== 'function') {
    throw new LaconicError('`memory.store` must be a MemoryStore: an object with `remember` and `recall` methods', {
      code: 'config',
      hint: 'e.g. memoryStore({ store: memoryVectorStore(), embed }) from laconic-research/kb',
    })
  }
  const recall = wholeNumberOption(section.recall, 'memory.recall', 5, 0)
  if (recall > MAX_RECALL) throw new LaconicError(`\`memory.recall\` must be at most ${MAX_RECALL}, got ${recall}`, { code: 'config' })
  const onWriteError = section.onWriteError
  if (onWriteError !== undefined && typeof onWriteError !== 'function') {
    throw new LaconicError('`memory.onWriteError` must be a function', { code: 'config', hint: 'leave it out to log failed writes with console.warn' })
  }
  const onWrite = section.onWrite
  if (onWrite !== undefined && typeof onWrite !== 'function') {
    throw new LaconicError('`memory.onWrite` must be a function', { code: 'config', hint: 'it is called with what writing a run cost, and its id' })
  }
  return {
    store: store as MemoryStore,
    recall,
    recallChars: wholeNumberOption(section.recallChars, 'memory.recallChars', 2000, 200),
    writePolicy: writePolicyOf(section.writePolicy),
    onWriteError: (onWriteError as MemorySettings['onWriteError'] | undefined) ?? warnWriteFailed,
    onWrite: onWrite as MemorySettings['onWrite'],
  }
}

function writePolicyOf(raw: unknown): MemorySettings['writePolicy'] {
  if (raw === false) return false
  const policy = optionsSection(raw, 'memory.writePolicy', ['minAnswerChars', 'minFindings'])
  return {
    minAnswerChars: wholeNumberOption(policy.minAnswerChars, 'memory.writePolicy.minAnswerChars', 40, 0),
    minFindings: wholeNumberOption(policy.minFindings, 'memory.writePolicy.minFindings', 1, 0),
  }
}

/**
 * What a store's recall gave, made safe for a prompt: well-formed findings only (a store of the
 * user's may return anything), each fact once (same text and source), at most `limit` of them and
 * `chars` characters of text in all (a first one too long is cut at a sentence).
 */
export function keptFindings(found: unknown, limit: number, chars: number): RecalledFinding[] {
  if (!Array.isArray(found)) return []
  const kept: RecalledFinding[] = []
  const seen = new Set<string>()
  let left = chars
  for (const item of found) {
    if (kept.length >= limit || left <= 0) break
    const finding = wellFormed(item)
    if (!finding) continue
    const key = `${normalizeText(finding.text)}\n${normalizeUrl(finding.url)}`
    if (seen.has(key)) continue
    if (finding.text.length > left) {
      if (kept.length) continue
      finding.text = truncateAtSentence(finding.text, left)
    }
    seen.add(key)
    kept.push(finding)
    left -= finding.text.length
  }
  return kept
}

function wellFormed(item: unknown): RecalledFinding | undefined {
  if (typeof item !== 'object' || item === null) return undefined
  const { text, url, title, question } = item as Record<string, unknown>
  if (typeof text !== 'string' || !text.trim() || typeof url !== 'string' || !url.trim()) return undefined
  return {
    text: text.trim(),
    url: url.trim(),
    ...(typeof title === 'string' && title.trim() ? { title: title.trim() } : {}),
    question: typeof question === 'string' ? question.trim() : '',
  }
}

/** Checks findings a caller passes as `recalled`: a `config` error names the first that is not one. */
export function checkRecalled(recalled: unknown): void {
  if (recalled === undefined) return
  const hint = 'each finding is { text, url, question, title? }, text and url non-empty strings'
  if (!Array.isArray(recalled)) throw new LaconicError('`recalled` must be an array of findings', { code: 'config', hint })
  recalled.forEach((item, i) => {
    const finding = item as Partial<RecalledFinding> | null
    if (!wellFormed(item) || typeof finding?.question !== 'string' || (finding.title !== undefined && typeof finding.title !== 'string')) {
      throw new LaconicError(`\`recalled[${i}]\` is not a finding`, { code: 'config', hint })
    }
  })
}

/**
 * The earlier findings for `question`, or the warning to give when the store failed (the run goes
 * on without them); what the recall spent goes to `onUsage`. Throws only when the run was aborted.
 */
export async function recallFindings(
  settings: MemorySettings,
  question: string,
  signal: AbortSignal,
  onUsage: UsageReporter,
): Promise<{ findings: RecalledFinding[] } | { warning: string }> {
  try {
    const found = await settings.store.recall(question, { limit: settings.recall, signal, onUsage })
    if (signal.aborted) throw abortError(signal)
    return { findings: keptFindings(found, settings.recall, settings.recallChars) }
  } catch (error) {
    if (signal.aborted) throw abortError(signal)
    return { warning: `recalling earlier findings failed; researching without them: ${describeError(error).message}` }
  }
}

/** A citation marker: `[3]` or `[1, 2]`. */
const MARKER = /\s*\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g

/**
 * The findings a finished run leaves: its facts, one per source, titled from its citations; a run
 * without facts (scratchpad, reflect, react) leaves its answer's cited sentences, each with the
 * source it cites. Each fact once per source.
 */
export function findingsOf(result: Pick<ResearchResult, 'facts' | 'answer' | 'citations'>): SessionFact[] {
  const titles = new Map(result.citations.filter((c) => c.title).map((c) => [normalizeUrl(c.url), c.title as string]))
  const found: SessionFact[] = []
  const seen = new Set<string>()
  const add = (text: string, url: string) => {
    const key = `${normalizeText(text)}\n${normalizeUrl(url)}`
    if (!text || !url || seen.has(key)) return
    seen.add(key)
    const title = titles.get(normalizeUrl(url))
    found.push({ text, url, ...(title ? { title } : {}) })
  }
  for (const fact of result.facts) for (const url of fact.sources) add(fact.text.trim(), url)
  if (result.facts.length) return found
  for (const { text, cites } of citedSentences(result.answer, result.citations)) for (const citation of cites) add(text, citation.url)
  return found
}

/** The answer's sentences that cite a source, without their markers (and without list bullets or heading marks). */
function citedSentences(answer: string, citations: readonly Citation[]): { text: string; cites: Citation[] }[] {
  const byIndex = new Map(citations.map((c) => [c.index, c]))
  const sentences: { text: string; cites: Citation[] }[] = []
  for (const sentence of answer.split(/(?<=[.!?])\s+|\n+/)) {
    const cites = new Set<Citation>()
    for (const marker of sentence.matchAll(MARKER)) {
      for (const n of (marker[1] as string).split(',')) {
        const citation = byIndex.get(Number(n.trim()))
        if (citation) cites.add(citation)
      }
    }
    const text = sentence
      .replace(MARKER, '')
      .replace(/^\s*(?:[-*•]|#{1,6})\s+/, '')
      .trim()
    if (text && cites.size) sentences.push({ text, cites: [...cites] })
  }
  return sentences
}

/** The run as memory keeps it, or undefined when the policy does not keep it. */
export function entryToRemember(settings: MemorySettings, run: { runId: string; question: string; result: ResearchResult; at: Date }): MemoryEntry | undefined {
  const { writePolicy } = settings
  const { result } = run
  if (writePolicy === false || (result.reason !== 'answered' && result.reason !== 'max-iterations')) return undefined
  const answer = result.answer.trim()
  if (!answer || answer.length < writePolicy.minAnswerChars) return undefined
  const facts = findingsOf(result)
  if (!facts.length || facts.length < writePolicy.minFindings) return undefined
  return { runId: run.runId, question: run.question, answer, facts, at: run.at.toISOString() }
}

/**
 * Writes a finished run to memory when the policy keeps it. Nobody waits for the write: it
 * starts after the caller's turn (so `run-end` reaches the consumer first); what it spent goes to
 * `onWrite` (priced with `pricing`, as the run's calls are), its failure to `onWriteError`, never
 * to the run.
 */
export function rememberRun(settings: MemorySettings, run: { runId: string; question: string; result: ResearchResult }, pricing: Pricing | undefined): void {
  const entry = entryToRemember(settings, { ...run, at: new Date() })
  if (!entry) return
  let spent = zeroCost()
  const onUsage: UsageReporter = (usage) => {
    spent = addCost(spent, usageCost(usage, pricing).delta)
  }
  // A reporter that throws must not turn a write into an unhandled rejection.
  const report = (call: () => void) => {
    try {
      call()
    } catch {}
  }
  void Promise.resolve()
    .then(() => settings.store.remember(entry, { onUsage }))
    .then(
      () => report(() => settings.onWrite?.(spent, run.runId)),
      (error: unknown) => report(() => settings.onWriteError(error, run.runId)),
    )
}
