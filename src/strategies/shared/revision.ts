/**
 * `verify: 'revise'`: one finalizer call that rewrites the answer without the sentences its
 * sources do not support, streamed as `revised` answer tokens and a `revised` answer. The first
 * answer stays (the result's `draft`); a revision that fails or comes back blank leaves it the
 * answer, with a warning.
 */
import type { Citation, Claim, StrategyEvent } from '../../core/contracts/events.js'
import { isAbortError } from '../../core/contracts/laconic-error.js'
import type { LLMRequest } from '../../core/contracts/providers.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'
import { estimateTokens } from '../../core/util/text.js'
import { citationFilter, citationNumbers } from './citations.js'

const SYSTEM =
  'You edit a research answer. Some of its sentences are not supported by the sources they cite. ' +
  'Rewrite the answer without them: drop each one, or keep only a part its sources do support. ' +
  'Keep every other sentence as it is, with its [n] citations. Add nothing new. Reply with the rewritten answer only.'

/** Room for the rewrite beyond the draft's own length. */
const SPARE_TOKENS = 64

export function revisionRequest(draft: string, unsupported: readonly Claim[]): Omit<LLMRequest, 'signal' | 'onRetry'> {
  const list = unsupported.map((claim) => `- ${claim.text}${claim.evidence ? `\n  (the source: ${claim.evidence})` : ''}`).join('\n')
  return {
    system: SYSTEM,
    prompt: `Answer:\n${draft}\n\nSentences the cited sources do not support:\n${list}\n\nThe answer without them:`,
    // No longer than the draft: a rewrite only removes.
    maxTokens: estimateTokens(draft) + SPARE_TOKENS,
    temperature: 0,
  }
}

/**
 * Rewrites `draft` when any of `claims` is unsupported; nothing otherwise. `citedIn` lists the
 * citations a text names. Citations the draft does not make are dropped from the rewrite.
 */
export async function* revise(
  ctx: StrategyContext,
  draft: string,
  claims: readonly Claim[],
  citedIn: (text: string) => Citation[],
): AsyncGenerator<StrategyEvent> {
  const unsupported = claims.filter((claim) => claim.verdict === 'unsupported')
  if (unsupported.length === 0) return
  const cited = new Set(citationNumbers(draft))
  const filter = citationFilter((n) => (cited.has(n) ? n : undefined))
  let text: string
  const call = ctx.streamAnswer('finalizer', revisionRequest(draft, unsupported), { filter })
  try {
    for (;;) {
      const step = await call.next()
      if (step.done) {
        text = step.value
        break
      }
      const event = step.value
      yield event.type === 'answer-token' ? { ...event, revised: true } : event
    }
  } catch (error) {
    if (ctx.signal.aborted || isAbortError(error)) throw error
    const why = error instanceof Error ? error.message : String(error)
    yield ctx.warning(`the answer could not be revised (${why.slice(0, 200)}); the first answer stands`, 'revision-failed')
    return
  } finally {
    // Left at a yield (the consumer stopped reading): the answer's stream is closed, not left paused.
    await call.return('').catch(() => undefined)
  }
  if (!text.trim()) {
    yield ctx.warning('the revised answer came back empty; the first answer stands', 'revision-failed')
    return
  }
  yield { type: 'answer', text, citations: citedIn(text), revised: true }
}
