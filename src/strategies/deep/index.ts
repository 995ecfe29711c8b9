import type { StrategyEvent } from '../../core/contracts/events.js'
import type { StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'
import { defineStrategy } from '../../core/run/registry.js'
import { normalizeText, truncateAtSentence } from '../../core/util/text.js'
import { restoredState } from '../shared/resume.js'
import { deepState } from './state.js'
import { planGate, resumedPlan } from '../shared/plan-gate.js'
import { numberFindings, priorFindings, recalledAsFindings, SourceTitles, type Finding } from './findings.js'
import { recalledFindings } from '../shared/recalled.js'
import { earlySearches, planAwaitsReview, type EarlySearches } from '../shared/early-searches.js'
import { createQueryStream } from '../shared/query-stream.js'
import { cleanSubQuestion, NEXT_QUESTION_KEYS, nextQuestionLine, parsePlanNext, type PlanDecision } from './parse.js'
import { planPrompt, planSystem } from './prompts.js'
import { searchOne } from './search-one.js'
import { synthesize } from './synthesize.js'
import { budgetStop } from '../shared/budget.js'
import { type DeepOptions, type DeepSettings, deepSettings } from './options.js'
import { planSchema } from './schemas.js'

export { parsePlanNext, parseSubAnswer, parseReport, readConfidence, type PlanDecision, type SubAnswerReply, type ReportBody } from './parse.js'
export type { Finding } from './findings.js'

/** What the planner sees of the caller's `knowledge` (a previous run's summary) at most. */
const BACKGROUND_CHARS = 1500

type Settings = DeepSettings

/**
 * Deep research, one sub-question at a time: `plan_next` proposes the next standalone
 * sub-question (or declares the research complete), `search_one` answers it with a few searches,
 * and the loop repeats until complete or `maxSteps`; then a report (or a direct answer).
 */
export const deep = defineStrategy<DeepSettings, DeepOptions>({
  name: 'deep',
  optionsKey: 'deep',
  normalize: deepSettings,
  concurrency: (settings) => settings.concurrency,
  run: runDeep,
})

/** What a deep checkpoint holds: taken after each sub-question is answered. */
interface DeepState {
  /** The next step (1-based). */
  step: number
  findings: Finding[]
  asked: string[]
  titles: [string, string][]
  /** Approved sub-questions still to research, without asking the planner. */
  queued: string[]
  /** The run paused for approval of this plan. */
  pendingPlan?: string[]
}

async function* runDeep(question: string, ctx: StrategyContext, settings: Settings): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const saved = restoredState<DeepState>(ctx, 'deep', deepState)
  const titles = new SourceTitles(ctx.input.citations, saved?.titles)
  const recalled = recalledFindings(ctx)
  for (const finding of recalled) titles.note(finding.url, finding.title)
  const prior = [...priorFindings(ctx.input.priorAnswers), ...recalledAsFindings(recalled)]
  const findings: Finding[] = saved ? saved.findings.map((f) => ({ ...f, sources: [...f.sources] })) : [...prior]
  const asked = new Set(saved?.asked ?? findings.map((f) => normalizeText(f.query)))
  const background = truncateAtSentence(ctx.input.knowledge?.trim() ?? '', BACKGROUND_CHARS)
  let queued = [...(saved?.queued ?? [])]
  const afterPause = yield* resumedPlan(ctx, saved?.pendingPlan)
  if (afterPause && 'end' in afterPause) return afterPause.end
  if (afterPause) queued = afterPause.queries
  const state = (step: number, pendingPlan?: string[]): DeepState => ({
    step,
    findings,
    asked: [...asked],
    titles: titles.entries(),
    queued,
    ...(pendingPlan ? { pendingPlan } : {}),
  })
  let complete = false
  let stopped = false
  /** The run's plan was put to the caller already: later sub-questions are searched early. */
  let reviewed = false

  for (let step = saved?.step ?? 1; step <= settings.maxSteps; step++) {
    if (yield* budgetStop(ctx)) {
      stopped = true
      break
    }
    let subQuestion = queued.shift()
    // The sub-question is its own first search: it starts as soon as the planner's reply names it.
    let early: EarlySearches | undefined
    if (subQuestion === undefined) {
      early = earlySearches(ctx, { limit: 1, clean: cleanSubQuestion, skip: asked, enabled: reviewed || !planAwaitsReview(ctx) })
      const call = (onText: (text: string) => void) =>
        ctx.complete(
          'planner',
          {
            system: planSystem,
            json: planSchema,
            prompt: planPrompt({
              question,
              background,
              findings: numberFindings(findings, titles).shown,
              hasPrior: prior.length > 0,
              step,
              maxSteps: settings.maxSteps,
            }),
            maxTokens: 300,
            temperature: 0,
          },
          { onText },
        )
      const reply = yield* early.during(call, createQueryStream({ fields: NEXT_QUESTION_KEYS, line: nextQuestionLine }))
      const next = yield* nextSubQuestion(parsePlanNext(reply), { question, findings, asked, ctx })
      if (next.kind === 'complete') {
        yield* early.keepOnly([])
        complete = true
        yield { type: 'plan', text: `Complete${next.reasoning ? `: ${next.reasoning}` : '.'}` }
        break
      }
      const gate = early
      const passed = yield* planGate(
        ctx,
        { text: `Next: ${next.question}${next.reasoning ? ` (${next.reasoning})` : ''}`, queries: [next.question] },
        { keepOnly: (kept) => gate.keepOnly(kept.slice(0, 1)), pause: (pending) => ctx.checkpoint(state(step, pending)) },
      )
      reviewed = true
      if ('end' in passed) return passed.end
      ;[subQuestion, ...queued] = passed.queries as [string, ...string[]]
    }
    asked.add(normalizeText(subQuestion))
    const finding = yield* searchOne(subQuestion, ctx, { ...settings, titles, ...(early && { early }) })
    findings.push(finding)
    yield { type: 'knowledge-update', knowledge: knowledgeOf(findings), iteration: step }
    yield* ctx.checkpoint(state(step + 1))
  }

  if (!complete && !stopped) {
    yield ctx.warning(`reached deep.maxSteps (${settings.maxSteps}) before the planner called the research complete`, 'max-iterations')
  }
  yield* synthesize(question, findings, settings.mode, titles, ctx)
  return { reason: complete || stopped ? 'answered' : 'max-iterations' }
}

/**
 * Turns the planner's decision into one the loop can trust: an empty, repeated or unreadable
 * sub-question is rejected with a warning, and the research then ends, unless nothing at all is
 * known yet, in which case the question itself is researched first. So is a premature "complete".
 */
async function* nextSubQuestion(
  decision: PlanDecision,
  state: { question: string; findings: readonly Finding[]; asked: ReadonlySet<string>; ctx: StrategyContext },
): AsyncGenerator<StrategyEvent, { kind: 'complete'; reasoning: string } | { kind: 'next'; question: string; reasoning: string }> {
  const { question, findings, asked, ctx } = state
  const fallback = () =>
    findings.length === 0 && !asked.has(normalizeText(question))
      ? ({ kind: 'next', question, reasoning: 'nothing is known yet: researching the question itself' } as const)
      : ({ kind: 'complete', reasoning: 'no new sub-question' } as const)

  if (decision.kind === 'unclear') {
    yield ctx.warning('could not read the planner reply; falling back', 'unparseable-output')
    return fallback()
  }
  if (decision.kind === 'complete') {
    if (findings.length > 0) return decision
    yield ctx.warning('the planner called the research complete with nothing found; researching the question first', 'forced-search')
    return fallback()
  }
  if (!decision.question) {
    yield ctx.warning('the planner gave an empty sub-question; rejected', 'empty-question')
    return fallback()
  }
  if (asked.has(normalizeText(decision.question))) {
    yield ctx.warning(`the planner repeated the sub-question "${decision.question}"; rejected`, 'repeated-question')
    return fallback()
  }
  return decision
}

/** The findings as knowledge a caller can carry into a follow-up run. */
function knowledgeOf(findings: readonly Finding[]): string {
  return findings.map((f) => `Q: ${f.query}\nA: ${f.answer} (confidence ${f.confidence})`).join('\n\n')
}
