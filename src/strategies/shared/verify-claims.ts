/**
 * Claim verification as the answer streams: each sentence, once complete, is checked against the
 * text of the sources it cites, first lexically (`claim-support.ts`), then, where that cannot
 * settle it, by the `verifier` model (`claim-judge.ts`) under the run's concurrency limit. A
 * sentence settled lexically is reported at once. Sentences for the judge wait until
 * `JUDGE_BATCH` of them are ready (or the answer ends) and go in one call, whose verdicts are
 * reported when it answers, while the answer and other checks go on: the batches depend only on
 * the answer's text, so a replayed run asks the same calls. Verification never fails a run: a
 * judge that fails or replies garbage leaves its claims `unverifiable`, with a warning.
 */
import type { Claim, ClaimVerdict, StrategyEvent } from '../../core/contracts/events.js'
import { isAbortError } from '../../core/contracts/laconic-error.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'
import { JUDGE_BATCH, JUDGE_SOURCE_CHARS, judgeRequest, parseVerdicts } from './claim-judge.js'
import { claimBody, type LexicalSupport, lexicalSupport, type PreparedSource, prepareSource } from './claim-support.js'
import { citationNumbers } from './citations.js'
import { sentenceStream } from './sentences.js'

export interface ClaimCheckOptions {
  /** The text a source was shown with, by its number in the answer; undefined when unknown. */
  sourceText: (n: number) => string | undefined
  /** Starts a judged check: its events (the judge's `llm-call`/`cost`, then its `claim`s) join the run's stream. */
  start: (check: AsyncIterable<StrategyEvent>) => void
}

/** Checks an answer's sentences as its text arrives. */
export interface ClaimChecker {
  /** A piece of the answer: the claims settled at once for the sentences it completed. */
  push(text: string): StrategyEvent[]
  /** The answer is complete: the claims settled at once for its last sentence. */
  flush(): StrategyEvent[]
  /** Every claim settled so far, by index. */
  settled(): Claim[]
}

/**
 * Sentences judged by the model at most, per answer: a long answer that rewords everything costs
 * no more than this many calls; the rest are left `unverifiable`, with one warning.
 */
export const MAX_JUDGED = 24

/** A sentence without a citation counts as an (uncited) claim when it says this much. */
const UNCITED_MIN_WORDS = 4

/** Headings, a lead-in ending in a colon, and short bits are not claims. */
function isClaimLike(sentence: string): boolean {
  if (/^#{1,6}\s/.test(sentence) || /:\s*$/.test(sentence)) return false
  return (claimBody(sentence).match(/[\p{L}\p{N}]+/gu)?.length ?? 0) >= UNCITED_MIN_WORDS
}

/** The cited text a judge reads: around where the best-matching passage stands in it, bounded. */
function judgeSource(texts: readonly string[], evidence: string): string {
  const probe = evidence.slice(0, 60)
  for (const text of texts) {
    const at = text.indexOf(probe)
    if (at === -1) continue
    const from = Math.max(0, at - Math.floor((JUDGE_SOURCE_CHARS - evidence.length) / 2))
    return text.slice(from, from + JUDGE_SOURCE_CHARS)
  }
  return texts.join('\n\n').slice(0, JUDGE_SOURCE_CHARS)
}

export function claimChecker(ctx: StrategyContext, options: ClaimCheckOptions): ClaimChecker {
  const sentences = sentenceStream()
  const prepared = new Map<number, PreparedSource | undefined>()
  const claims = new Map<number, Claim>()
  let next = 0
  let judged = 0

  const preparedSource = (n: number): PreparedSource | undefined => {
    if (!prepared.has(n)) {
      const text = options.sourceText(n)
      prepared.set(n, text?.trim() ? prepareSource(text) : undefined)
    }
    return prepared.get(n)
  }

  const settle = (claim: Omit<Claim, 'verdict' | 'score' | 'evidence'>, verdict: ClaimVerdict, support?: LexicalSupport): StrategyEvent => {
    const evidence = support ? (support.reason && verdict === 'unsupported' ? `${support.reason}: ${support.evidence}` : support.evidence) : undefined
    const done: Claim = { ...claim, verdict, ...(evidence ? { evidence } : {}), score: support?.score ?? 0 }
    claims.set(done.index, done)
    return { type: 'claim', ...done }
  }

  /** A claim the words could not settle, with what the judge is shown. */
  interface Pending {
    claim: Omit<Claim, 'verdict' | 'score' | 'evidence'>
    support: LexicalSupport
    source: string
  }
  let waiting: Pending[] = []

  async function* judge(batch: readonly Pending[]): AsyncGenerator<StrategyEvent> {
    if (ctx.budgetExhausted()) {
      for (const { claim, support } of batch) yield settle(claim, 'unverifiable', support)
      return
    }
    const which = `claim${batch.length === 1 ? '' : 's'} ${batch.map((p) => p.claim.index + 1).join(', ')}`
    let reply: string
    try {
      const request = judgeRequest(batch.map(({ claim, source }) => ({ sentence: claimBody(claim.text), source })))
      reply = yield* ctx.complete('verifier', request)
    } catch (error) {
      if (ctx.signal.aborted || isAbortError(error)) throw error
      const why = error instanceof Error ? error.message : String(error)
      yield ctx.warning(`${which} could not be checked (the verifier failed: ${why.slice(0, 200)}); left unverifiable`, 'verifier-failed')
      for (const { claim, support } of batch) yield settle(claim, 'unverifiable', support)
      return
    }
    const verdicts = parseVerdicts(reply, batch.length)
    const missing = batch.filter((_, i) => !verdicts[i])
    if (missing.length) {
      const whose = missing.length === batch.length ? which : `claim${missing.length === 1 ? '' : 's'} ${missing.map((p) => p.claim.index + 1).join(', ')}`
      yield ctx.warning(`the verifier's reply holds no verdict for ${whose}; left unverifiable`, 'unparseable-output')
    }
    for (const [i, { claim, support }] of batch.entries()) yield settle(claim, verdicts[i] ?? 'unverifiable', support)
  }

  /** Sends the waiting claims to the judge, `JUDGE_BATCH` to a call; with `all`, a last smaller batch too. */
  const sendWaiting = (all: boolean): void => {
    while (waiting.length >= JUDGE_BATCH || (all && waiting.length > 0)) {
      options.start(judge(waiting.slice(0, JUDGE_BATCH)))
      waiting = waiting.slice(JUDGE_BATCH)
    }
  }

  const check = (sentence: string): StrategyEvent[] => {
    const citations = [...new Set(citationNumbers(sentence))]
    if (citations.length === 0) {
      if (!isClaimLike(sentence)) return []
      return [settle({ index: next++, text: sentence, citations }, 'uncited')]
    }
    const claim = { index: next++, text: sentence, citations }
    const sources = citations.map(preparedSource).filter((source): source is PreparedSource => source !== undefined)
    const support = sources.length ? lexicalSupport(sentence, sources) : undefined
    if (!support) return [settle(claim, 'unverifiable')]
    if (support.verdict) return [settle(claim, support.verdict, support)]
    if (judged === MAX_JUDGED) {
      judged++
      return [
        ctx.warning(
          `only ${MAX_JUDGED} sentences of an answer are judged by the model; the rest it could not settle by their words are left unverifiable`,
          'verifier-limit',
        ),
        settle(claim, 'unverifiable', support),
      ]
    }
    if (judged > MAX_JUDGED) return [settle(claim, 'unverifiable', support)]
    judged++
    const texts = citations.map(options.sourceText).filter((text): text is string => !!text?.trim())
    waiting.push({ claim, support, source: judgeSource(texts, support.evidence) })
    sendWaiting(false)
    return []
  }

  return {
    push: (text) => sentences.push(text).flatMap(check),
    flush: () => {
      const last = sentences.flush().flatMap(check)
      sendWaiting(true)
      return last
    },
    settled: () => [...claims.values()].sort((a, b) => a.index - b.index),
  }
}
