import type { Report, StrategyEvent, WarningCode } from '../../core/contracts/events.js'
import type { LLMRequest } from '../../core/contracts/providers.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'
import { runVerifyMode } from '../../core/run/shared-options.js'
import { createMerge } from '../../core/util/merge.js'
import { chainFilters, normalizeText, type TextFilter, truncateAtSentence } from '../../core/util/text.js'
import { CitationRegistry, citationFilter, rewriteCitations } from './citations.js'
import { revise } from './revision.js'
import { claimChecker } from './verify-claims.js'

/** A source the answer's text may cite. */
export interface CitedSource {
  /** Its address: the answer's citation, and the key that gives it one number across the conversation. */
  url: string
  /** Its title, listed with the citation. */
  title?: string | undefined
  /**
   * The text the answering model was shown for this source (its facts, passages or snippets,
   * bounded): the evidence a claim citing it is checked against. Undefined where the strategy
   * showed none.
   */
  text?: string | undefined
}

/** The evidence a source keeps, in characters at most: a few passages' worth, whatever the strategy showed. */
export const EVIDENCE_CHARS = 4000

/**
 * What the model was shown for one source as one evidence text: the distinct `parts` (facts,
 * passages, snippets) in order, one a line, cut at a sentence within `maxChars`; undefined when
 * there are none.
 */
export function evidenceText(parts: Iterable<string>, maxChars = EVIDENCE_CHARS): string | undefined {
  const seen = new Set<string>()
  const kept: string[] = []
  let chars = 0
  for (const part of parts) {
    const text = part.trim()
    const key = normalizeText(text)
    if (!key || seen.has(key)) continue
    seen.add(key)
    kept.push(text)
    chars += text.length + 1
    if (chars > maxChars) break
  }
  return kept.length ? truncateAtSentence(kept.join('\n'), maxChars) : undefined
}

/** What the answer event carries besides its text and citations. */
export interface AnswerDetails {
  report?: Report
  confidence?: number
  /** More text whose citations the answer lists (a report's sections). */
  alsoCited?: readonly string[]
}

/** What `citedAnswer` writes the answer from: its text, the sources its `[n]` name, and what to do when it is blank. */
export interface CitedAnswerArgs {
  /**
   * Where the text comes from: the finalizer model, streamed (`request`), or a text already
   * written (`draft`: react's answer, which the gate read before it was released).
   */
  from: { request: Omit<LLMRequest, 'signal' | 'onRetry'> } | { draft: string }
  /** The source the text's `[n]` names (n as the model saw it), or undefined: an invented number, dropped. */
  source: (n: number) => CitedSource | undefined
  /** A filter after the citation filter (reflect's word limit). */
  filter?: TextFilter
  /**
   * When the text is blank: `warning` (an `empty-output` warning, unless one was given already)
   * and `text`, the answer instead (given `cite`, the number of a source in the conversation);
   * without `text` the blank text is the answer.
   */
  empty: { warning?: string; text?: (cite: (source: CitedSource) => number) => string }
  /**
   * The rest of the answer event, once its text is final: at once, or after more steps (deep's
   * report); `renumber` rewrites other text's citations as the text's were.
   */
  details?: (text: string, renumber: (text: string) => string) => AnswerDetails | AsyncGenerator<StrategyEvent, AnswerDetails>
}

/**
 * The end of a run that cites its sources: the text (streamed from the finalizer, or a draft)
 * with each `[n]` rewritten to the source's number in the conversation (first cited first;
 * numbers that name no source dropped), a fallback when it is blank, then the `answer` event
 * listing the sources the text cites. Every answer-token is part of the answer's text.
 */
export async function* citedAnswer(ctx: StrategyContext, args: CitedAnswerArgs): AsyncGenerator<StrategyEvent> {
  const registry = new CitationRegistry(ctx.input.citations)
  /** The text each numbered source was shown with (a source may be shown under several numbers). */
  const shown = new Map<number, Set<string>>()
  const cite = (source: CitedSource) => {
    const index = registry.indexOf(source.url, source.title || undefined)
    if (source.text?.trim()) shown.set(index, (shown.get(index) ?? new Set()).add(source.text))
    return index
  }
  const toStable = (n: number) => {
    const source = args.source(n)
    return source ? cite(source) : undefined
  }
  const mode = runVerifyMode(ctx.options, ctx.input)
  if (!mode) {
    yield* answerSteps(ctx, args, registry, cite, toStable)
    return
  }
  // The answer streams through the merge, which also carries each judged claim's check as it
  // runs; claims settled without a model follow the token that completed their sentence.
  const merge = createMerge<StrategyEvent>()
  const checker = claimChecker(ctx, {
    sourceText: (n) => {
      const texts = shown.get(n)
      return texts ? [...texts].join('\n\n') : undefined
    },
    start: (check) => merge.add(check),
  })
  let draft: string | undefined
  merge.add(
    (async function* checked() {
      for await (const event of answerSteps(ctx, args, registry, cite, toStable)) {
        yield event
        if (event.type === 'answer-token') yield* checker.push(event.text)
        else if (event.type === 'answer') {
          draft = event.text
          yield* checker.flush()
        }
      }
    })(),
  )
  yield* merge
  if (mode === 'revise' && draft !== undefined) yield* revise(ctx, draft, checker.settled(), (text) => registry.citedIn(text))
}

/** The answer's text (streamed, or the draft), its fallback when blank, and the `answer` event. */
async function* answerSteps(
  ctx: StrategyContext,
  args: CitedAnswerArgs,
  registry: CitationRegistry,
  cite: (source: CitedSource) => number,
  toStable: (n: number) => number | undefined,
): AsyncGenerator<StrategyEvent> {
  const filter = args.filter ? chainFilters(citationFilter(toStable), args.filter) : citationFilter(toStable)
  let text: string
  if ('request' in args.from) text = yield* ctx.streamAnswer('finalizer', args.from.request, { filter })
  else {
    text = filter.push(args.from.draft) + filter.flush()
    if (text.trim()) yield { type: 'answer-token', text }
  }
  if (!text.trim()) {
    if (args.empty.warning) yield ctx.warning(args.empty.warning, 'empty-output')
    const fallback = args.empty.text?.(cite)
    if (fallback) {
      yield { type: 'answer-token', text: fallback }
      // Whatever blank text was streamed already stays part of the answer.
      text += fallback
    }
  }
  const made = args.details?.(text, (s) => rewriteCitations(s, toStable)) ?? {}
  const { alsoCited = [], ...details } = Symbol.asyncIterator in made ? yield* made : made
  yield { type: 'answer', text, citations: registry.citedIn([text, ...alsoCited].join('\n')), ...details }
}

/** The end of a run with nothing to answer from: a warning, and `text` as the answer. */
export async function* nothingToAnswerFrom(ctx: StrategyContext, warning: { message: string; code: WarningCode }, text: string): AsyncGenerator<StrategyEvent> {
  yield ctx.warning(warning.message, warning.code)
  yield { type: 'answer-token', text }
  yield { type: 'answer', text, citations: [] }
}
