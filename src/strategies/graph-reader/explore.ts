import type { StrategyEvent } from '../../core/contracts/events.js'
import type { ScopedContext, StrategyContext } from '../../core/contracts/strategy-types.js'
import { createFrontier, type FrontierState } from './frontier.js'
import { earlyNodes, nodeWork, type Exploring, type NodeSettings } from './node.js'
import type { Notebook } from './notebook.js'
import { SearchedQueries } from './searched-view.js'
import { PLAN_QUERIES, planQueryStream } from './parse.js'

export interface ExploreSettings extends NodeSettings {
  concurrency: number
}

export type { Node } from './frontier.js'

/** Where exploration stands, for a checkpoint: taken when a node finishes. */
export interface ExploreState extends FrontierState {
  searched: string[]
  readUrls: string[]
  titles: [string, string][]
}

/** How exploration ended. */
export interface Exploration {
  explored: number
  /** An answer check said the notebook answers the question. */
  answered: boolean
  /** Queries were left when the step budget ran out. */
  budgetSpent: boolean
  /** The plan was put to the caller, who paused the run (or said no). */
  paused: boolean
  /** Every URL of every result seen, with its title, for citations. */
  titles: Map<string, string>
}

/** How a reply that names the run's first queries is made: see `explore`'s `plan`. */
export type PlanStep = (hooks: {
  /** Give the planner's reply to this as it streams (undefined: nothing starts early). */
  onText: ((text: string) => void) | undefined
  /** The parse kept these queries: the other early nodes are cancelled; call before the `plan` event. */
  keep: (queries: readonly string[]) => void
}) => AsyncGenerator<StrategyEvent, { queries: string[]; keyElements: string[] } | undefined>

/**
 * Explores the query graph breadth-first. At most `concurrency` nodes hold a slot of the
 * frontier at once, each doing search → deep reads → extractor → answer check in order; every
 * search, page fetch and model call also holds a slot of the run's one limit (`ctx.limit`, of
 * the same size) while in flight, so the run never has more than `concurrency` requests out.
 * With concurrency 1 nodes run one after another in queue order: deterministic.
 *
 * Pipelining (`pipelining`, concurrency 2 or more): a query that closes in a reply still
 * streaming (the plan's, a node check's) starts its node at once, without a slot: its search
 * and deep reads run while the reply streams. Its model calls wait until the parse of the
 * whole reply keeps it and a slot is free (before nodes from the queue); a query the parse
 * drops has its node cancelled (its `result` says aborted). Model calls thus stay within the
 * limit (the planner's included: early roots call no model before the plan is parsed), and an
 * early root's extractor sees the plan's final key elements. At concurrency 1 nothing starts
 * early: one request at a time, in a fixed order.
 *
 * Each node has its own scope inside exploration's, linked to the run's: when an answer check
 * says the notebook suffices, queued nodes are dropped and in-flight ones aborted at once
 * (their finished events, facts included, are kept; the calls cut short report no cost).
 */
export async function* explore(
  ctx: StrategyContext,
  args: {
    settings: ExploreSettings
    notebook: Notebook
    keyElements: readonly string[]
    /** Where a resumed run's exploration stood. */
    restored?: ExploreState
    /** Makes the plan, whose queries become the first nodes (with no `restored`). */
    plan?: { step: PlanStep; early: boolean }
    /** Saves a checkpoint after each node, of the state it is given a function for (called only when there is a store). */
    save?: (state: () => ExploreState) => AsyncGenerator<StrategyEvent, void>
  },
): AsyncGenerator<StrategyEvent, Exploration> {
  const { settings, restored } = args
  // Node work runs in a child scope: its own signal, the run's ids and cost.
  const nodeCtx = ctx.scope()
  const frontier = createFrontier<StrategyEvent, ScopedContext>({
    concurrency: settings.concurrency,
    maxSteps: settings.maxSteps,
    restored,
    awaitingPlan: args.plan !== undefined,
    mayStart: () => !ctx.budgetExhausted(),
    scope: () => nodeCtx.scope(),
    work: (node, ticket) => work(node, ticket),
    afterNode: args.save && (() => args.save!(snapshot)),
  })
  const run: Exploring = {
    ctx,
    settings,
    notebook: args.notebook,
    frontier,
    pipelined: ctx.options.pipelining !== false && settings.concurrency > 1,
    keyElements: args.keyElements,
    searched: new SearchedQueries(restored?.searched),
    readUrls: new Set(restored?.readUrls),
    titles: new Map(restored?.titles),
    reserved: new Map(),
  }
  const work = nodeWork(run)
  let paused = false

  /**
   * The state after a node: the frontier's (in-flight nodes queued again, tentative early ones left
   * out), and of what nodes in flight already changed, nothing. The notebook is not here: a resume
   * rebuilds it from the facts the run had emitted (`ctx.resumed.facts`), which is exactly what
   * consumers saw, whatever nodes were in flight.
   */
  const snapshot = (): ExploreState => {
    const inFlight = new Set(frontier.inFlight().map((n) => n.query))
    const reserved = new Set([...run.reserved.values()].flat())
    return {
      ...frontier.snapshot(),
      searched: run.searched.list.filter((q) => !inFlight.has(q)),
      readUrls: [...run.readUrls].filter((u) => !reserved.has(u)),
      titles: [...run.titles],
    }
  }

  /** Makes the plan; its queries start early nodes as they stream, and the kept ones go on once it is settled. */
  async function* planning(plan: { step: PlanStep; early: boolean }): AsyncGenerator<StrategyEvent> {
    const early = earlyNodes(frontier, { depth: 0 }, PLAN_QUERIES, run.pipelined && plan.early, planQueryStream())
    let made: { queries: string[]; keyElements: string[] } | undefined
    try {
      made = yield* plan.step({ onText: run.pipelined && plan.early ? early.onText : undefined, keep: early.drop })
    } catch (error) {
      early.drop([])
      throw error
    }
    if (!made) {
      paused = true
      early.drop([])
      return
    }
    run.keyElements = made.keyElements
    early.settle(made.queries)
    frontier.planSettled()
    early.keep()
  }

  try {
    yield* frontier.run(args.plan && planning(args.plan))
  } finally {
    nodeCtx.close()
  }
  return { explored: frontier.explored, answered: frontier.answered, paused, budgetSpent: !frontier.answered && frontier.queued > 0, titles: run.titles }
}
