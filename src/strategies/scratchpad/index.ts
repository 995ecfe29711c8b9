import type { StrategyEvent } from '../../core/contracts/events.js'
import type { RecalledFinding } from '../../core/contracts/long-term-memory.js'
import type { StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'
import { defineStrategy } from '../../core/run/registry.js'
import { normalizeText, truncateAtSentence } from '../../core/util/text.js'
import { normalizeUrl } from '../../core/util/urls.js'
import { rewriteCitations } from '../shared/citations.js'
import { citedAnswer } from '../shared/cited-answer.js'
import { KnowledgeSources, type KnowledgeSource } from './sources.js'
import { recalledFindings, recalledLines } from '../shared/recalled.js'
import { type ScratchpadOptions, type ScratchpadSettings, scratchpadSettings } from './options.js'
import { restoredState } from '../shared/resume.js'
import { scratchpadState } from './state.js'
import { planGate, resumedPlan } from '../shared/plan-gate.js'
import { earlySearches, planAwaitsReview, type EarlySearches } from '../shared/early-searches.js'
import { createQueryStream } from '../shared/query-stream.js'
import { lineQuery, parsePlannerDecision, plannerQuery, type PlannerDecision } from './parse.js'
import { finalizerPrompt, finalizerSystem, plannerPrompt, plannerSystem, synthesizerPrompt, synthesizerSystem } from './prompts.js'
import { budgetStop } from '../shared/budget.js'

export { parsePlannerDecision, type PlannerDecision } from './parse.js'

const SNIPPET_CHARS = 300
const QUERY_CHARS = 120

/**
 * laconic's default loop: planner → search → synthesizer rewrites the knowledge → repeat →
 * finalizer streams the answer. The knowledge is rewritten, never appended to, and capped, so
 * every prompt stays the same size however many iterations run.
 */
export const scratchpad = defineStrategy<ScratchpadSettings, ScratchpadOptions>({
  name: 'scratchpad',
  optionsKey: 'scratchpad',
  normalize: scratchpadSettings,
  run: runScratchpad,
})

type Settings = ScratchpadSettings

/** What a scratchpad checkpoint holds: where the loop is and everything its prompts depend on. */
interface ScratchpadState {
  /** The next iteration to run. */
  iteration: number
  /** The notes, citing `sources` by number. */
  knowledge: string
  pastQueries: string[]
  searched: string[]
  /** Approved queries still to search, one per iteration, without asking the planner. */
  queued: string[]
  /** The run paused for approval of this plan. */
  pendingPlan?: string[]
  /** The sources the knowledge was rewritten from so far, in number order. */
  sources?: KnowledgeSource[]
}

/**
 * The knowledge a fresh run starts from: what long-term memory recalled, then the caller's
 * knowledge (its `[n]` dropped, since they numbered another run's sources; its source URLs made
 * this run's sources), every fact cited by its source's number so the answer can cite it;
 * within the budget.
 */
function startingKnowledge(ctx: StrategyContext, recalled: readonly RecalledFinding[], sources: KnowledgeSources, budget: number): string {
  const numbers = sources.add(recalled.map((finding) => ({ url: finding.url, title: finding.title ?? '', snippet: finding.text })))
  const numberOf = new Map(recalled.map((finding, i) => [finding, numbers[i]]))
  const lines = recalled.length ? `Earlier findings:\n${recalledLines(recalled, (finding) => `[${numberOf.get(finding)}]`)}` : ''
  const titles = new Map((ctx.input.citations ?? []).map((c) => [normalizeUrl(c.url), c.title]))
  const given = rewriteCitations(ctx.input.knowledge?.trim() ?? '', () => undefined)
  const prior = sources.adopt(given, (url) => titles.get(normalizeUrl(url)))
  return truncateAtSentence([lines, prior].filter(Boolean).join('\n\n'), budget)
}

async function* runScratchpad(question: string, ctx: StrategyContext, settings: Settings): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const { maxSteps, knowledgeChars: budget, historySize } = settings
  const recalled = recalledFindings(ctx)
  const hadPriorKnowledge = Boolean(ctx.input.knowledge?.trim()) || recalled.length > 0
  const saved = restoredState<ScratchpadState>(ctx, 'scratchpad', scratchpadState)
  const pastQueries = [...(saved?.pastQueries ?? [])]
  const searched = new Set(saved?.searched ?? [])
  let queued = [...(saved?.queued ?? [])]
  const sources = new KnowledgeSources(saved?.sources)
  let knowledge = saved?.knowledge ?? startingKnowledge(ctx, recalled, sources, budget)
  const afterPause = yield* resumedPlan(ctx, saved?.pendingPlan)
  if (afterPause && 'end' in afterPause) return afterPause.end
  if (afterPause) queued = afterPause.queries
  // A step is one iteration; its checkpoint says where the next one starts.
  const state = (iteration: number, pendingPlan?: string[]): ScratchpadState => ({
    iteration,
    knowledge,
    pastQueries,
    searched: [...searched],
    queued,
    ...(pendingPlan ? { pendingPlan } : {}),
    sources: sources.list(),
  })

  /** The run's plan was put to the caller already: later queries are searched early. */
  let reviewed = false

  for (let iteration = saved?.iteration ?? 0; iteration < maxSteps; iteration++) {
    if (yield* budgetStop(ctx)) {
      yield* finalize(question, knowledge, true, ctx, sources)
      return { reason: 'answered' }
    }
    let query = queued.shift()
    // The planner's query is searched as soon as its line ends (or its JSON string closes).
    let early: EarlySearches | undefined
    if (query === undefined) {
      early = earlySearches(ctx, { limit: 1, clean: plannerQuery, skip: searched, enabled: reviewed || !planAwaitsReview(ctx) })
      const call = (onText: (text: string) => void) =>
        ctx.complete(
          'planner',
          {
            system: plannerSystem,
            prompt: plannerPrompt({
              question,
              knowledge,
              pastQueries: pastQueries.slice(-historySize).map((q) => q.slice(0, QUERY_CHARS)),
              iteration,
              maxSteps,
            }),
            maxTokens: 200,
            temperature: 0,
          },
          { onText },
        )
      const reply = yield* early.during(call, createQueryStream({ line: lineQuery, fields: ['query'] }))
      const decision = yield* decide(parsePlannerDecision(reply), { question, knowledge, hadPriorKnowledge, searched, ctx })
      if (decision.action === 'answer') {
        yield* early.keepOnly([])
        yield { type: 'plan', text: 'Answer: the knowledge covers the question.' }
        yield* finalize(question, knowledge, false, ctx, sources)
        return { reason: 'answered' }
      }
      const gate = early
      const passed = yield* planGate(
        ctx,
        { text: `Search: ${decision.query}`, queries: [decision.query] },
        { keepOnly: (kept) => gate.keepOnly(kept.slice(0, 1)), pause: (pending) => ctx.checkpoint(state(iteration, pending)) },
      )
      reviewed = true
      if ('end' in passed) return passed.end
      ;[query, ...queued] = passed.queries as [string, ...string[]]
    }
    pastQueries.push(query)
    searched.add(normalizeText(query))
    knowledge = yield* searchAndRewrite(query, { question, knowledge, budget, iteration, ctx, sources, ...(early && { early }) })
    yield* ctx.checkpoint(state(iteration + 1))
  }

  yield ctx.warning(`reached scratchpad.maxSteps (${maxSteps}); answering with what was found`, 'max-iterations')
  yield* finalize(question, knowledge, true, ctx, sources)
  return { reason: 'max-iterations' }
}

/** One search, and the knowledge rewritten from its results (unchanged when it found nothing). */
async function* searchAndRewrite(
  query: string,
  args: { question: string; knowledge: string; budget: number; iteration: number; ctx: StrategyContext; sources: KnowledgeSources; early?: EarlySearches },
): AsyncGenerator<StrategyEvent, string> {
  const { question, knowledge, budget, iteration, ctx, sources, early } = args
  const { results: found, error } = yield* early?.take(query) ?? ctx.runSearch(query)
  if (error || found.length === 0) return knowledge
  const results = found.map((r) => ({ ...r, snippet: truncateAtSentence(r.snippet, SNIPPET_CHARS) }))
  // Results are numbered as the notes will cite them: a source seen before keeps its number.
  const numbers = sources.numbersFor(results)
  const rewritten = yield* ctx.complete('synthesizer', {
    system: synthesizerSystem,
    prompt: synthesizerPrompt({ question, knowledge, query, results, numbers, budgetChars: budget }),
    temperature: 0,
  })
  if (!rewritten.trim()) {
    yield ctx.warning('the synthesizer returned nothing; the knowledge is unchanged', 'empty-output')
    return knowledge
  }
  sources.add(results)
  // A number that names no source the notes were written from is the model's invention.
  const next = truncateAtSentence(
    rewriteCitations(rewritten.trim(), (n) => (sources.has(n) ? n : undefined)),
    budget,
  )
  yield { type: 'knowledge-update', knowledge: sources.withUrls(next), iteration: iteration + 1 }
  return next
}

/**
 * Turns the parsed reply into an action the loop can trust: grounding forces a first search,
 * and an unreadable reply falls back to searching the question (once) or answering.
 */
async function* decide(
  parsed: PlannerDecision,
  state: { question: string; knowledge: string; hadPriorKnowledge: boolean; searched: Set<string>; ctx: StrategyContext },
): AsyncGenerator<StrategyEvent, { action: 'search'; query: string } | { action: 'answer' }> {
  const { question, knowledge, hadPriorKnowledge, searched, ctx } = state
  const questionSearched = searched.has(normalizeText(question))
  if (parsed.action === 'unclear') {
    yield ctx.warning('could not read the planner reply; falling back', 'unparseable-output')
    return questionSearched ? { action: 'answer' } : { action: 'search', query: question }
  }
  if (parsed.action === 'answer' && !knowledge && !hadPriorKnowledge) {
    if (questionSearched) return { action: 'answer' }
    yield ctx.warning('the planner wanted to answer with no knowledge; searching first', 'forced-search')
    return { action: 'search', query: question }
  }
  if (parsed.action === 'search' && searched.has(normalizeText(parsed.query))) {
    // The same search gives the same results: try the question itself once, else answer.
    const fallback = knowledge || questionSearched ? 'answering instead' : 'searching the question instead'
    yield ctx.warning(`the planner repeated the search "${parsed.query}"; ${fallback}`, 'repeated-query')
    return knowledge || questionSearched ? { action: 'answer' } : { action: 'search', query: question }
  }
  return parsed
}

/**
 * The answer, streamed from the notes and the sources they cite (numbered as the notes cite
 * them, each with its snippets); the answer cites them `[n]`, renumbered for the conversation.
 */
async function* finalize(
  question: string,
  knowledge: string,
  bestEffort: boolean,
  ctx: StrategyContext,
  sources: KnowledgeSources,
): AsyncGenerator<StrategyEvent> {
  const shown = sources.shownWith(knowledge)
  yield* citedAnswer(ctx, {
    from: { request: { system: finalizerSystem, prompt: finalizerPrompt({ question, knowledge, sources: shown, bestEffort }) } },
    // Only a listed number names a source the finalizer saw; its evidence is the snippets shown.
    source: (n) => {
      const source = shown.find((s) => s.n === n)
      return source && { url: source.url, title: source.title, text: source.text }
    },
    empty: { warning: 'the finalizer wrote nothing' },
  })
}
