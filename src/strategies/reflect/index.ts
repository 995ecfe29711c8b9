import type { StrategyEvent } from '../../core/contracts/events.js'
import type { SearchResult } from '../../core/contracts/providers.js'
import type { StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'
import { defineStrategy } from '../../core/run/registry.js'
import { createMerge } from '../../core/util/merge.js'
import { normalizeText } from '../../core/util/text.js'
import { normalizeUrl } from '../../core/util/urls.js'
import { rewriteCitations } from '../shared/citations.js'
import { citedAnswer, evidenceText, nothingToAnswerFrom } from '../shared/cited-answer.js'
import { recalledFindings } from '../shared/recalled.js'
import { restoredState } from '../shared/resume.js'
import { reflectState } from './state.js'
import { planGate, resumedPlan } from '../shared/plan-gate.js'
import { earlySearches, planAwaitsReview, type EarlySearches } from '../shared/early-searches.js'
import { createQueryStream } from '../shared/query-stream.js'
import { cleanOneQuery, NEW_QUERY_KEYS, parseQueries, parseReflection, QUERY_LIST_KEYS, type Reflection, type Slot } from './parse.js'
import { queriesPrompt, queriesSystem, reflectPrompt, reflectSystem, synthesizePrompt, synthesizeSystem } from './prompts.js'
import { interleaveResults } from './sources.js'
import { wordLimitFilter } from './word-limit.js'
import { budgetStop } from '../shared/budget.js'
import { type ReflectOptions, type ReflectSettings, reflectSettings } from './options.js'
import { queriesSchema, reflectionSchema } from './schemas.js'

export { parseQueries, parseReflection, type Reflection, type Slot } from './parse.js'
export { wordLimitFilter, countWords } from './word-limit.js'

/** Results shown to the reflection and synthesis prompts at most. */
const SOURCES_SHOWN = 12
const SNIPPET_CHARS = 240
/** New queries taken from one reflection at most. */
const NEW_QUERIES = 3
/** Queries taken from the planner at most. */
const PLANNED_QUERIES = 5

/**
 * Multi-query research with reflection: generate 3–5 queries, search them concurrently, let the
 * model fill the answer's slots from the results and ask for what is missing (a bounded number
 * of rounds), then synthesise a short answer citing only results that were retrieved.
 */
export const reflect = defineStrategy<ReflectSettings, ReflectOptions>({
  name: 'reflect',
  optionsKey: 'reflect',
  normalize: reflectSettings,
  concurrency: (settings) => settings.concurrency,
  run: runReflect,
})

type Settings = ReflectSettings

/** What a reflect checkpoint holds: taken after each round's searches, and once the rounds are over. */
interface ReflectState {
  /** The next round (1-based). */
  round: number
  /** The queries that round still has to search (none once searched: the reflection comes next). */
  queries: string[]
  searched: string[]
  resultsPerQuery: SearchResult[][]
  queriesRun: string[]
  /** The rounds are over: synthesise from `reflection`. */
  done: boolean
  capped: boolean
  reflection: Reflection
  /** The run paused for approval of this plan. */
  pendingPlan?: string[]
}

async function* runReflect(question: string, ctx: StrategyContext, settings: Settings): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const saved = restoredState<ReflectState>(ctx, 'reflect', reflectState)
  /** The searches the last planner call started while its reply streamed (pipelining). */
  let early: EarlySearches | undefined
  let state: ReflectState
  if (saved) state = structuredClone(saved)
  else {
    const planned = yield* planQueries(question, ctx)
    if ('end' in planned) return planned.end
    ;({ state, early } = planned)
  }
  const afterPause = yield* resumedPlan(ctx, saved?.pendingPlan)
  if (afterPause && 'end' in afterPause) return afterPause.end
  if (afterPause) {
    state.queries = afterPause.queries
    delete state.pendingPlan
  }

  while (!state.done) {
    // The round's searches (some started while the reply naming them streamed), then the
    // checkpoint: once they have all ended, none is in flight for a crash to lose.
    if (state.queries.length) {
      for (const q of state.queries) state.searched.push(normalizeText(q))
      state.queriesRun.push(...state.queries)
      state.resultsPerQuery.push(...(yield* searchAll(state.queries, ctx, early)))
      state.queries = []
      yield* ctx.checkpoint(state)
    }
    const sources = interleaveResults(state.resultsPerQuery, SOURCES_SHOWN, SNIPPET_CHARS)

    const searched = new Set(state.searched)
    // The last round's gaps are never searched: nothing to start early then.
    const lastRound = state.round >= settings.maxSteps
    early = earlySearches(ctx, { limit: NEW_QUERIES, clean: cleanOneQuery, skip: searched, enabled: !lastRound })
    const reflection = yield* reflectOn(question, state.queriesRun, sources, ctx, early)
    const unseen = reflection.newQueries.filter((q) => !searched.has(normalizeText(q))).slice(0, NEW_QUERIES)
    const goOn = reflection.needMore && unseen.length > 0
    yield {
      type: 'plan',
      text: describe(reflection, goOn ? unseen : []),
      keyElements: reflection.slots.map((s) => s.name),
      ...(goOn ? { queries: unseen } : {}),
    }
    state.reflection = reflection
    if (!goOn) state.done = true
    else if (yield* budgetStop(ctx)) state.done = true
    else if (lastRound) {
      state.done = state.capped = true
      yield ctx.warning(`reached reflect.maxSteps (${settings.maxSteps}) with slots still empty; answering with what was found`, 'max-iterations')
    } else {
      state.round++
      state.queries = unseen
    }
    // What the rounds will not search is cancelled: the reflection did not keep it, or the rounds are over.
    yield* early.keepOnly(state.queries)
    if (state.done) yield* ctx.checkpoint(state)
  }

  yield* synthesize(question, state.reflection.slots, interleaveResults(state.resultsPerQuery, SOURCES_SHOWN, SNIPPET_CHARS), ctx, settings.maxWords)
  return { reason: state.capped ? 'max-iterations' : 'answered' }
}

/**
 * The first queries: from earlier answers when they leave gaps (or no search at all when they
 * fill every slot), else from the model, whose queries are searched as they stream in (unless
 * the plan awaits the caller's review). Returns the state of round 1, `done` when the earlier
 * answers suffice; or the run's end, when it pauses at its plan.
 */
async function* planQueries(
  question: string,
  ctx: StrategyContext,
): AsyncGenerator<StrategyEvent, { state: ReflectState; early?: EarlySearches } | { end: StrategyOutcome }> {
  const state: ReflectState = {
    round: 1,
    queries: [],
    searched: [],
    resultsPerQuery: [],
    queriesRun: [],
    done: false,
    capped: false,
    reflection: { slots: [], needMore: false, newQueries: [] },
  }
  // Earlier answers in the conversation, and findings long-term memory recalled, are results too: when they already fill every slot,
  // the run answers from them without searching.
  const prior = priorResults(ctx)
  let gaps: string[] = []
  if (prior.length) {
    state.resultsPerQuery.push(prior)
    const sources = interleaveResults(state.resultsPerQuery, SOURCES_SHOWN, SNIPPET_CHARS)
    const covered = yield* reflectOn(question, state.queriesRun, sources, ctx)
    if (!covered.needMore) {
      yield { type: 'plan', text: `${describe(covered, [])} (from earlier answers)`, keyElements: covered.slots.map((s) => s.name) }
      return { state: { ...state, done: true, reflection: covered } }
    }
    // The reflection already named what is missing: search that instead of asking again.
    gaps = covered.newQueries
  }

  let early: EarlySearches | undefined
  let queries = gaps
  if (!queries.length) {
    early = earlySearches(ctx, { limit: PLANNED_QUERIES, clean: cleanOneQuery, enabled: !planAwaitsReview(ctx) })
    const reply = yield* early.during(
      (onText) =>
        ctx.complete('planner', { system: queriesSystem, prompt: queriesPrompt(question), json: queriesSchema, maxTokens: 200, temperature: 0 }, { onText }),
      createQueryStream({ lists: QUERY_LIST_KEYS, topLevelList: true, bareList: true }),
    )
    queries = parseQueries(reply, PLANNED_QUERIES)
    yield* early.keepOnly(queries)
  }
  if (!queries.length) {
    yield ctx.warning('could not read search queries from the model; searching the question itself', 'unparseable-output')
    queries = [question]
  }
  const passed = yield* planGate(
    ctx,
    { text: `Search: ${queries.join(' | ')}`, queries },
    { ...(early && { keepOnly: (kept) => early.keepOnly(kept) }), pause: (pending) => ctx.checkpoint({ ...state, queries: pending, pendingPlan: pending }) },
  )
  if ('end' in passed) return passed
  return { state: { ...state, queries: passed.queries }, ...(early && { early }) }
}

/**
 * Runs every query at once under the run's one limiter, taking over those `early` started
 * while the planner's reply streamed; a failing query only warns (runSearch reports it).
 * Returns the results in query order, whatever order they arrived in.
 */
async function* searchAll(queries: readonly string[], ctx: StrategyContext, early: EarlySearches | undefined): AsyncGenerator<StrategyEvent, SearchResult[][]> {
  const results: SearchResult[][] = queries.map(() => [])
  const merge = createMerge<StrategyEvent>()
  queries.forEach((query, i) => {
    merge.add(
      (async function* () {
        results[i] = (yield* early?.take(query) ?? ctx.runSearch(query)).results
      })(),
    )
  })
  yield* merge
  return results
}

async function* reflectOn(
  question: string,
  searched: readonly string[],
  sources: readonly SearchResult[],
  ctx: StrategyContext,
  early?: EarlySearches,
): AsyncGenerator<StrategyEvent, Reflection> {
  const call = (onText?: (text: string) => void) =>
    ctx.complete(
      'planner',
      { system: reflectSystem, prompt: reflectPrompt({ question, searched, sources }), json: reflectionSchema, maxTokens: 400, temperature: 0 },
      { onText },
    )
  // The gaps it names are searched as they stream in; the caller keeps those the next round runs.
  const reply = yield* early ? early.during(call, createQueryStream({ lists: NEW_QUERY_KEYS })) : call()
  const parsed = parseReflection(reply)
  if (parsed) return parsed
  // The design's fallback: decide on the result count alone, with no new queries to run.
  yield ctx.warning('could not read the reflection; deciding on the result count', 'unparseable-output')
  return { slots: [], needMore: sources.length === 0, newQueries: [] }
}

/**
 * One result per source of each prior answer, its snippet the answer itself; then one per finding
 * long-term memory recalled, its snippet the finding.
 */
function priorResults(ctx: StrategyContext): SearchResult[] {
  const titles = new Map((ctx.input.citations ?? []).map((c) => [normalizeUrl(c.url), c.title]))
  const answers = (ctx.input.priorAnswers ?? []).flatMap((prior) =>
    (prior.sources ?? []).map((url) => ({
      title: titles.get(normalizeUrl(url)) ?? `Earlier answer: ${prior.query}`,
      url,
      snippet: `${prior.query}: ${rewriteCitations(prior.answer, () => undefined)}`,
    })),
  )
  const recalled = recalledFindings(ctx).map((finding) => ({
    title: finding.title ?? titles.get(normalizeUrl(finding.url)) ?? `Earlier finding: ${finding.question}`,
    url: finding.url,
    snippet: finding.text,
  }))
  return [...answers, ...recalled]
}

function describe(reflection: Reflection, next: readonly string[]): string {
  const slots = reflection.slots.map((s) => `${s.name} ${s.evidence === undefined ? '✗' : '✓'}`).join(', ')
  const head = slots ? `Slots: ${slots}.` : 'No slots named.'
  return next.length ? `${head} Need more: ${next.join(' | ')}` : `${head} Enough to answer.`
}

async function* synthesize(
  question: string,
  slots: readonly Slot[],
  sources: readonly SearchResult[],
  ctx: StrategyContext,
  maxWords: number,
): AsyncGenerator<StrategyEvent> {
  if (!sources.length) {
    yield* nothingToAnswerFrom(
      ctx,
      { message: 'no search results were retrieved; nothing to answer from', code: 'no-sources' },
      'No sources were found for this question.',
    )
    return
  }
  const checklist = slots.map((s) => (s.evidence === undefined ? s : { ...s, evidence: rewriteCitations(s.evidence, () => undefined) }))
  yield* citedAnswer(ctx, {
    from: {
      request: {
        system: synthesizeSystem(maxWords),
        prompt: synthesizePrompt({ question, slots: checklist, sources }),
        maxTokens: maxWords * 4 + 64,
        temperature: 0,
      },
    },
    // The model cites positions in the list it saw: only those exist.
    source: (n) => {
      const source = sources[n - 1]
      // The evidence is the snippet the synthesizer saw under that number.
      return source && { url: source.url, title: source.title, text: evidenceText([source.snippet]) }
    },
    filter: wordLimitFilter(maxWords),
    empty: {
      warning: 'the synthesizer wrote nothing; answering with the top result',
      text: (cite) => `${wordLimitText(sources[0]!.snippet || sources[0]!.title, maxWords - 1)} [${cite(sources[0]!)}]`,
    },
  })
}

function wordLimitText(text: string, maxWords: number): string {
  const filter = wordLimitFilter(Math.max(1, maxWords))
  return (filter.push(rewriteCitations(text, () => undefined)) + filter.flush()).trim()
}
