import type { StrategyEvent } from '../../core/contracts/events.js'
import type { StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'
import { defineStrategy } from '../../core/run/registry.js'
import { normalizeText, truncateAtSentence } from '../../core/util/text.js'
import { type GraphReaderOptions, type GraphReaderSettings, graphReaderSettings } from './options.js'
import { restoredState } from '../shared/resume.js'
import { graphReaderState } from './state.js'
import { planGate, resumedPlan } from '../shared/plan-gate.js'
import { planAwaitsReview } from '../shared/early-searches.js'
import { recalledFindings, recalledLines } from '../shared/recalled.js'
import { explore, type ExploreState, type PlanStep } from './explore.js'
import { answerFromNotebook, condense } from './finalize.js'
import { Notebook } from './notebook.js'
import { parsePlan, type RationalPlan } from './parse.js'
import { plannerPrompt, plannerSystem } from './prompts.js'
import { budgetStop } from '../shared/budget.js'
import { planSchema } from './schemas.js'

export { Notebook, type AddOutcome } from './notebook.js'
export { checkSource, parseExtraction, parseNodeCheck, parsePlan, type Extraction, type NodeCheck, type RationalPlan, type SourceCheck } from './parse.js'

/** Knowledge carried to a follow-up run (`result.knowledge`), in characters at most. */
const KNOWLEDGE_CHARS = 4000
const PLAN_KNOWLEDGE_CHARS = 1000

/**
 * GraphReader (arXiv 2406.14550), after laconic's: a rational plan, then a breadth-first
 * exploration of search queries with bounded concurrency that files atomic facts in a
 * notebook, one answer-check-and-next-queries call per node, and an answer streamed from
 * the notebook with `[n]` citations.
 */
export const graphReader = defineStrategy<GraphReaderSettings, GraphReaderOptions>({
  name: 'graph-reader',
  optionsKey: 'graphReader',
  normalize: graphReaderSettings,
  concurrency: (settings) => settings.concurrency,
  run: runGraphReader,
})

/** What a graph-reader checkpoint holds: taken after the plan, then after each node. */
interface GraphReaderState {
  keyElements: string[]
  explore: ExploreState
  /** The run paused for approval of these queries. */
  pendingPlan?: string[]
}

/** Exploration before any node: the plan's queries at depth 0. */
function startingAt(queries: readonly string[]): ExploreState {
  return {
    frontier: queries.map((query) => ({ query, depth: 0 })),
    visited: [...new Set(queries.map(normalizeText))],
    searched: [],
    readUrls: [],
    titles: [],
    explored: 0,
    answered: false,
  }
}

async function* runGraphReader(question: string, ctx: StrategyContext, settings: GraphReaderSettings): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const notebook = new Notebook(() => ctx.newId('f'))
  const saved = restoredState<GraphReaderState>(ctx, 'graph-reader', graphReaderState)
  if (ctx.resumed) notebook.restore(ctx.resumed.facts)

  // A fresh run plans inside exploration, so the plan's queries start their nodes as they stream.
  let keyElements = saved?.keyElements ?? []
  let restored = saved?.explore
  const afterPause = yield* resumedPlan(ctx, saved?.pendingPlan)
  if (afterPause && 'end' in afterPause) return afterPause.end
  if (afterPause) restored = startingAt(afterPause.queries)
  /** How the run ends when its plan pauses it. */
  let pausedAt: StrategyOutcome | undefined
  const plan: PlanStep = async function* ({ onText, keep }) {
    const made = yield* makePlan(question, ctx, onText)
    keep(made.queries)
    keyElements = made.keyElements
    const passed = yield* planGate(
      ctx,
      { text: made.text, queries: made.queries, ...(made.keyElements.length ? { keyElements: made.keyElements } : {}) },
      { pause: (pending) => ctx.checkpoint({ keyElements, explore: startingAt(pending), pendingPlan: pending }) },
    )
    if ('end' in passed) {
      pausedAt = passed.end
      return undefined
    }
    // Early nodes still in flight are in this state's frontier: a resume explores them again.
    yield* ctx.checkpoint({ keyElements, explore: startingAt(passed.queries) })
    return { queries: passed.queries, keyElements }
  }
  // A plan put to the caller is never explored before the caller has seen it.
  const reviewed = planAwaitsReview(ctx)

  // Built only when the run saves checkpoints: it grows with every node.
  const save = (explored: () => ExploreState) => ctx.checkpoint(() => ({ keyElements, explore: explored() }))
  const exploration = yield* explore(ctx, {
    settings,
    notebook,
    keyElements,
    save,
    ...(restored ? { restored } : { plan: { step: plan, early: !reviewed } }),
  })
  if (pausedAt) return pausedAt

  const overBudget = !exploration.answered && (yield* budgetStop(ctx))
  const budgetSpent = !exploration.answered && !overBudget && exploration.explored >= settings.maxSteps
  if (budgetSpent) yield ctx.warning(`explored maxSteps (${settings.maxSteps}) nodes; answering with what was found`, 'max-iterations')

  const facts = notebook.facts()
  if (facts.length) {
    const lines = facts.map((f) => `- ${f.text}${f.sources.length ? ` (${f.sources.join(', ')})` : ''}`)
    const prior = priorNotFound(ctx.input.knowledge ?? '', facts)
    yield { type: 'knowledge-update', knowledge: fitLines(prior ? [...lines, prior] : lines, KNOWLEDGE_CHARS), iteration: exploration.explored }
  }
  const shown = facts.length > settings.condenseAbove ? yield* condense(facts, ctx, { above: settings.condenseAbove, batch: settings.condenseBatch }) : facts
  // What long-term memory recalled joins the notebook for the answer only, cited as its own source.
  const recalled = recalledFindings(ctx)
  const titles = new Map(exploration.titles)
  for (const finding of recalled) if (finding.title && !titles.has(finding.url)) titles.set(finding.url, finding.title)
  const notes = [...shown, ...recalled.map((finding) => ({ text: finding.text, sources: [finding.url] }))]
  yield* answerFromNotebook(notes, ctx, { titles, bestEffort: !exploration.answered })
  return { reason: budgetSpent ? 'max-iterations' : 'answered' }
}

/**
 * The rational plan and the initial nodes; unreadable → the question itself is the only node.
 * Its `plan` event is the caller's to yield (`planGate`); `onText` reads the reply as it streams.
 */
async function* makePlan(
  question: string,
  ctx: StrategyContext,
  onText: ((text: string) => void) | undefined,
): AsyncGenerator<StrategyEvent, RationalPlan & { text: string }> {
  const recalled = recalledLines(recalledFindings(ctx), (finding) => `(${finding.url})`)
  const knowledge = [recalled, truncateAtSentence(ctx.input.knowledge?.trim() ?? '', PLAN_KNOWLEDGE_CHARS)].filter(Boolean).join('\n')
  const reply = yield* ctx.complete(
    'planner',
    {
      system: plannerSystem,
      prompt: plannerPrompt({ question, knowledge }),
      json: planSchema,
      maxTokens: 500,
      temperature: 0,
    },
    onText ? { onText } : undefined,
  )
  let plan = parsePlan(reply)
  if (!plan) {
    yield ctx.warning('could not read queries from the rational plan; searching the question itself', 'unparseable-output')
    plan = { goal: '', steps: [], keyElements: [], queries: [question] }
  }
  // Sentences end once, whether or not the model ended them.
  const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`)
  const steps = plan.steps.length ? ` Steps: ${sentence(plan.steps.join('; '))}` : ''
  return { ...plan, text: `${plan.goal ? `Goal: ${sentence(plan.goal)}` : `Research: ${question}`}${steps}` }
}

/** Whole lines, in order, while they fit in `maxChars`. */
function fitLines(lines: readonly string[], maxChars: number): string {
  const kept: string[] = []
  let chars = 0
  for (const line of lines) {
    if (chars + line.length > maxChars) break
    kept.push(line)
    chars += line.length + 1
  }
  return kept.join('\n') || truncateAtSentence(lines[0] ?? '', maxChars)
}

/**
 * The knowledge the run was given, without the lines that state a fact the notebook holds: a
 * follow-up that finds a fact again would otherwise list it twice (a conversation's knowledge
 * lists the facts of earlier turns as `- text (url)`, or `- text`).
 */
function priorNotFound(knowledge: string, facts: readonly { text: string }[]): string {
  const found = new Set(facts.map((fact) => fact.text.trim()))
  return knowledge
    .split('\n')
    .filter((line) => {
      const text = line.replace(/^\s*-\s*/, '').trim()
      return !found.has(text) && !found.has(text.replace(/\s*\([^()]*\)$/, ''))
    })
    .join('\n')
    .trim()
}
