import { normalizeText, truncateAtSentence, type Strategy, type StrategyContext, type StrategyEvent, type StrategyOutcome } from '../../core/index.js'
import { parsePlannerDecision, type PlannerDecision } from './parse.js'
import { finalizerPrompt, finalizerSystem, plannerPrompt, plannerSystem, synthesizerPrompt, synthesizerSystem } from './prompts.js'

export { parsePlannerDecision, type PlannerDecision } from './parse.js'

const SNIPPET_CHARS = 300
const QUERY_CHARS = 120

/**
 * laconic's default loop: planner → search → synthesizer rewrites the knowledge → repeat →
 * finalizer streams the answer. The knowledge is rewritten, never appended to, and capped, so
 * every prompt stays the same size however many iterations run.
 */
export function scratchpad(): Strategy {
  return { name: 'scratchpad', run: runScratchpad }
}

async function* runScratchpad(question: string, ctx: StrategyContext): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const maxIterations = Math.max(0, ctx.options.maxIterations ?? 5)
  const budget = ctx.options.scratchpad?.knowledgeChars ?? 1500
  const historySize = ctx.options.scratchpad?.historySize ?? 8
  const hadPriorKnowledge = Boolean(ctx.input.knowledge?.trim())
  let knowledge = truncateAtSentence(ctx.input.knowledge?.trim() ?? '', budget)
  const pastQueries: string[] = []
  const searched = new Set<string>()

  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const reply = yield* ctx.complete('planner', {
      system: plannerSystem,
      prompt: plannerPrompt({
        question,
        knowledge,
        pastQueries: pastQueries.slice(-historySize).map((q) => q.slice(0, QUERY_CHARS)),
        iteration,
        maxIterations,
      }),
      maxTokens: 200,
      temperature: 0,
    })
    const decision = yield* decide(parsePlannerDecision(reply), { question, knowledge, hadPriorKnowledge, searched, ctx })
    if (decision.action === 'answer') {
      yield { type: 'plan', text: 'Answer: the knowledge covers the question.' }
      yield* finalize(question, knowledge, false, ctx)
      return { reason: 'answered' }
    }
    yield { type: 'plan', text: `Search: ${decision.query}`, queries: [decision.query] }
    pastQueries.push(decision.query)
    searched.add(normalizeText(decision.query))

    const { results, error } = yield* ctx.runSearch(decision.query)
    if (error || results.length === 0) continue

    const rewritten = yield* ctx.complete('synthesizer', {
      system: synthesizerSystem,
      prompt: synthesizerPrompt({
        question,
        knowledge,
        query: decision.query,
        results: results.map((r) => ({ ...r, snippet: truncateAtSentence(r.snippet, SNIPPET_CHARS) })),
        budgetChars: budget,
      }),
      temperature: 0,
    })
    if (!rewritten.trim()) {
      yield ctx.warning('the synthesizer returned nothing; the knowledge is unchanged', 'empty-output')
      continue
    }
    knowledge = truncateAtSentence(rewritten.trim(), budget)
    yield { type: 'knowledge-update', knowledge, iteration: iteration + 1 }
  }

  yield ctx.warning(`reached maxIterations (${maxIterations}); answering with what was found`, 'max-iterations')
  yield* finalize(question, knowledge, true, ctx)
  return { reason: 'max-iterations' }
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

async function* finalize(question: string, knowledge: string, bestEffort: boolean, ctx: StrategyContext): AsyncGenerator<StrategyEvent> {
  const text = yield* ctx.streamAnswer('finalizer', {
    system: finalizerSystem,
    prompt: finalizerPrompt({ question, knowledge, bestEffort }),
  })
  yield { type: 'answer', text, citations: [] }
}
