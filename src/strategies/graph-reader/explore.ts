import {
  abortError,
  createMerge,
  isAdUrl,
  normalizeText,
  normalizeUrl,
  ProviderError,
  truncateAtSentence,
  type Schedule,
  type ScopedContext,
  type SearchResult,
  type StrategyContext,
  type StrategyEvent,
} from '../../core/index.js'
import { onAbort } from '../../core/abort-listener.js'
import type { Notebook } from './notebook.js'
import type { QueryStream } from '../shared/query-stream.js'
import { cleanQuery } from '../shared/read.js'
import { documentPassages, type Passage } from '../shared/document-passages.js'
import { CHECK_QUERIES, checkQueryStream, checkSource, parseExtraction, parseNodeCheck, PLAN_QUERIES, planQueryStream, type ExtractedFact } from './parse.js'
import { extractorPrompt, extractorSystem, neighborPrompt, neighborSystem, type NotebookView, type SourceView } from './prompts.js'
import { extractionSchema, nodeCheckSchema } from './schemas.js'

export interface ExploreSettings {
  maxSteps: number
  concurrency: number
  maxPagesPerNode: number
  pageChars: number
}

export interface Node {
  query: string
  parentId?: string
  depth: number
}

/** Where exploration stands, for a checkpoint: taken when a node finishes. */
export interface ExploreState {
  frontier: Node[]
  visited: string[]
  searched: string[]
  readUrls: string[]
  titles: [string, string][]
  explored: number
  answered: boolean
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

const SNIPPET_CHARS = 300
const FACT_CHARS = 300
const FACTS_PER_NODE = 12
/** The notebook the extractor and the answer check see: at most this many characters of facts. */
export const NOTEBOOK_VIEW_CHARS = 3000
/** How many facts leave the view at once when it is full: few enough to keep recent ones in sight. */
const VIEW_STEP = 8

/** What a node's search and deep reads found, for its model calls. */
interface Gathered {
  queryId: string
  usable: SearchResult[]
  pages: Map<string, PageRead>
}

/** A deep-read page: where it was read from, and what of it the extractor sees (a document's pages apart). */
interface PageRead {
  url: string
  passages: Passage[]
}

/** A node being explored. */
interface Running {
  /** The node's own scope (a child of exploration's): cancelling the node aborts its requests alone. */
  scope: ScopedContext
  /** Page URLs it reserved. */
  reserved: string[]
  /** Started from a reply still streaming, and its reply's parse has not kept it yet: left out of checkpoints. */
  tentative: boolean
  /** Dropped by its reply's parse: aborted, and no longer counted as explored. */
  cancelled: boolean
  /** An early node's search and deep reads are done: it is ready for a slot once kept. */
  gathered: boolean
  /** Holds one of the `concurrency` slots (model calls happen only while holding one). */
  holdsSlot: boolean
  /** Settles when the node is given a slot. */
  granted: Promise<void>
  grant: () => void
}

/**
 * The queries of one streaming reply (the plan, or a node check), started as nodes as they
 * close in it: each searches and deep-reads at once, then waits until the reply's parse keeps
 * it (`settle`, then `keep`) before its model calls.
 */
interface EarlyNodes {
  /** Reads the next piece of the reply; starts a node for each query that closed in it. */
  onText(text: string): void
  /** Cancels the nodes started for any query not among `queries` (the parse's). */
  drop(queries: readonly string[]): void
  /**
   * The reply's parse kept `queries`: cancels the nodes started for any other query, queues the
   * kept queries not started yet (unless explored before), and returns the kept queries that
   * are new (started early or queued), in the parse's order. The kept early nodes go on once
   * `keep()` is called.
   */
  settle(queries: readonly string[]): string[]
  /** Lets the kept early nodes go on to their model calls (first in line for a slot), and fills free slots. */
  keep(): void
}

/** How a reply that names the run's first queries is made: see `explore`'s `plan`. */
export type PlanStep = (hooks: {
  /** Give the planner's reply to this as it streams (undefined: nothing starts early). */
  onText: ((text: string) => void) | undefined
  /** The parse kept these queries: the other early nodes are cancelled; call before the `plan` event. */
  keep: (queries: readonly string[]) => void
}) => AsyncGenerator<StrategyEvent, { queries: string[]; keyElements: string[] } | undefined>

/**
 * Explores the query graph breadth-first. At most `concurrency` nodes hold a slot at once, each
 * doing search → deep reads → extractor → answer check in order, so at most `concurrency`
 * model calls are in flight; searches and page fetches also go through `schedule`, the run's
 * one limiter. Model calls stay outside it so that slow page fetches never hold up another
 * node's answer check. With concurrency 1 nodes run one after another in queue order:
 * deterministic.
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
    schedule: Schedule
    notebook: Notebook
    keyElements: readonly string[]
    /** Where a resumed run's exploration stood. */
    restored?: ExploreState
    /** Makes the plan, whose queries become the first nodes (with no `restored`). */
    plan?: { step: PlanStep; early: boolean }
    /** Saves a checkpoint after each node. */
    save?: (state: ExploreState) => AsyncGenerator<StrategyEvent, void>
  },
): AsyncGenerator<StrategyEvent, Exploration> {
  const { settings, schedule, notebook, restored } = args
  let keyElements = args.keyElements
  // Node work runs in a child scope: its own signal, the run's ids and cost.
  const nodeCtx = ctx.scope()
  const pipelined = ctx.options.pipelining !== false && settings.concurrency > 1

  const frontier = restored ? restored.frontier.map((n) => ({ ...n })) : []
  const visited = new Set(restored?.visited)
  const searched: string[] = [...(restored?.searched ?? [])]
  const readUrls = new Set<string>(restored?.readUrls)
  const titles = new Map<string, string>(restored?.titles)
  let explored = restored?.explored ?? 0
  /** Nodes holding a slot. */
  let active = 0
  let answered = restored?.answered ?? false
  /** The plan is settled (always, when resuming): checkpoints may be taken. */
  let planned = !args.plan
  let paused = false
  const inFlight = new Map<Node, Running>()
  /** Early nodes kept and ready for their model calls, waiting for a slot: served before the queue. */
  const waiting: Running[] = []

  /**
   * The state after a node: nodes still in flight go back to the front of the frontier (a resume
   * explores them again), and what they already changed is left out; tentative and cancelled
   * early nodes are left out altogether (a resume's replay of their reply starts them again).
   * The notebook is not here: a resume rebuilds it from the facts the run had emitted
   * (`ctx.resumed.facts`), which is exactly what consumers saw, whatever nodes were in flight.
   */
  const snapshot = (): ExploreState => {
    const running = [...inFlight].filter(([, r]) => !r.tentative && !r.cancelled).map(([node]) => node)
    const unsure = new Set([...inFlight].filter(([, r]) => r.tentative).map(([node]) => normalizeText(node.query)))
    const inFlightQueries = new Set([...inFlight.keys()].map((n) => n.query))
    const reserved = new Set([...inFlight.values()].flatMap((r) => r.reserved))
    return {
      frontier: [...running, ...frontier],
      visited: [...visited].filter((key) => !unsure.has(key)),
      searched: searched.filter((q) => !inFlightQueries.has(q)),
      readUrls: [...readUrls].filter((u) => !reserved.has(u)),
      titles: [...titles],
      explored: explored - [...inFlight.values()].filter((r) => !r.cancelled).length,
      answered,
    }
  }
  const merge = createMerge<StrategyEvent>()

  // Work still queued in the limiter is not cleared (its promise would never settle): it starts
  // with the aborted signal and fails at once.
  const stop = () => {
    answered = true
    nodeCtx.abort(new DOMException('the notebook answers the question', 'AbortError'))
  }

  const canStart = () => !answered && !ctx.budgetExhausted() && explored < settings.maxSteps

  /** Starts a node: from the queue it takes a slot at once; an early one takes one before its model calls. */
  const launch = (node: Node, early: boolean): Running => {
    let grant!: () => void
    const granted = new Promise<void>((resolve) => (grant = resolve))
    const running: Running = { scope: nodeCtx.scope(), reserved: [], tentative: early, cancelled: false, gathered: false, holdsSlot: !early, granted, grant }
    if (!early) active++
    explored++
    inFlight.set(node, running)
    merge.add(guarded(node, running))
    return running
  }

  /** An early node kept by its reply and done gathering queues for a slot, in the order it got there. */
  const readyForSlot = (running: Running) => {
    if (running.gathered && !running.tentative && !running.holdsSlot && !waiting.includes(running)) waiting.push(running)
  }

  /** Gives free slots to the early nodes waiting for one, then to the queue. */
  const fill = () => {
    while (active < settings.concurrency && waiting.length) {
      const next = waiting.shift()!
      if (next.scope.signal.aborted) continue
      active++
      next.holdsSlot = true
      next.grant()
    }
    while (planned && !waiting.length && canStart() && active < settings.concurrency && frontier.length) launch(frontier.shift()!, false)
  }

  const earlyNodes = (place: Omit<Node, 'query'>, limit: number, enabled: boolean, stream: QueryStream): EarlyNodes => {
    /** This reply's early nodes, by normalised query. */
    const mine = new Map<string, { node: Node; running: Running }>()
    /** Distinct queries sighted: no more than the parser keeps start. */
    const sighted = new Set<string>()
    const drop = (queries: readonly string[]) => {
      const kept = new Set(queries.map(normalizeText))
      for (const [key, { running }] of mine) {
        if (kept.has(key)) continue
        mine.delete(key)
        running.cancelled = true
        explored--
        visited.delete(key)
        running.scope.abort(new DOMException(`the reply's parse did not keep the query`, 'AbortError'))
      }
    }
    return {
      onText(text) {
        if (!enabled) return
        for (const raw of stream.push(text)) {
          const query = cleanQuery(raw)
          const key = query && normalizeText(query)
          if (!query || !key || sighted.has(key) || sighted.size >= limit) continue
          sighted.add(key)
          if (visited.has(key) || !canStart()) continue
          visited.add(key)
          const node: Node = { query, ...place }
          mine.set(key, { node, running: launch(node, true) })
        }
      },
      drop,
      settle(queries) {
        drop(queries)
        const fresh: string[] = []
        for (const query of queries) {
          const key = normalizeText(query)
          if (mine.has(key)) fresh.push(query)
          else if (!visited.has(key)) {
            visited.add(key)
            frontier.push({ query, ...place })
            fresh.push(query)
          }
        }
        return fresh
      },
      keep() {
        for (const { running } of mine.values()) {
          running.tentative = false
          readyForSlot(running)
        }
        fill()
      },
    }
  }

  async function* guarded(node: Node, running: Running): AsyncGenerator<StrategyEvent> {
    try {
      const gathered = yield* gather(node, running)
      if (!running.holdsSlot) {
        running.gathered = true
        readyForSlot(running)
        fill()
        await untilAborted(running.granted, running.scope.signal)
      }
      yield* digest(node, running, gathered)
    } catch (error) {
      const cut = running.scope.signal.aborted
      if (ctx.signal.aborted || !(cut || error instanceof ProviderError)) throw error
      // Cut short (an early stop, or its reply's parse dropped it), or one node's model call failed: the run goes on.
      if (!cut) yield ctx.warning(`exploring "${node.query}" failed: ${(error as Error).message}`, 'node-failed')
    } finally {
      running.scope.close()
      inFlight.delete(node)
      if (running.holdsSlot) active--
      // A cancelled node is as if never started: a later reply may propose its query again.
      const at = running.cancelled ? searched.lastIndexOf(node.query) : -1
      if (at >= 0) searched.splice(at, 1)
    }
    if (args.save && planned && !running.cancelled) yield* args.save(snapshot())
    fill()
  }

  /** The node's search and deep reads: no model call, so an early node does them before its reply is parsed. */
  async function* gather(node: Node, running: Running): AsyncGenerator<StrategyEvent, Gathered> {
    const { queryId, results } = yield* running.scope.runSearch(node.query, {
      ...(node.parentId !== undefined ? { parentId: node.parentId } : {}),
      depth: node.depth,
      schedule,
    })
    searched.push(node.query)
    const usable = results.filter((r) => !isAdUrl(r.url))
    for (const r of usable) if (!titles.has(r.url)) titles.set(r.url, r.title)
    const pages = usable.length ? yield* deepRead(usable, node.query, queryId, running) : new Map<string, PageRead>()
    return { queryId, usable, pages }
  }

  /** The node's model calls: extraction, then the answer check, whose queries start early nodes as they stream. */
  async function* digest(node: Node, running: Running, { queryId, usable, pages }: Gathered): AsyncGenerator<StrategyEvent> {
    const { scope } = running
    if (usable.length) {
      // A document read by pages is one source per page shown, so a fact cites its page.
      const sources: SourceView[] = usable.flatMap((r) => {
        const snippet = truncateAtSentence(r.snippet, SNIPPET_CHARS)
        const passages = pages.get(r.url)?.passages ?? []
        if (passages.some((p) => p.page !== undefined)) {
          return passages.map((p, i) => {
            const title = `${r.title} (page ${p.page})`
            if (!titles.has(p.url)) titles.set(p.url, title)
            return { title, url: p.url, snippet: i === 0 ? snippet : '', page: p.text }
          })
        }
        return [{ title: r.title, url: r.url, snippet, ...(passages[0] ? { page: passages[0].text } : {}) }]
      })
      const reply = yield* scope.complete('extractor', {
        system: extractorSystem,
        prompt: extractorPrompt({ question: ctx.question, keyElements, notebook: notebookView(notebook.facts()), query: node.query, sources }),
        json: extractionSchema,
        temperature: 0,
      })
      const extraction = parseExtraction(reply)
      if (!extraction.readable) yield ctx.warning(`could not read facts from the extractor for "${node.query}"; none kept`, 'unparseable-output')
      const numbered = sources.map((s) => s.url)
      const seen = [...usable.map((r) => r.url), ...numbered, ...[...pages.values()].map((p) => p.url)]
      yield* addFacts(extraction.facts.slice(0, FACTS_PER_NODE), numbered, seen, queryId)
    }
    if (answered) return

    const early = earlyNodes({ parentId: queryId, depth: node.depth + 1 }, CHECK_QUERIES, pipelined, checkQueryStream())
    let reply: string
    try {
      reply = yield* scope.complete(
        'neighbor',
        {
          system: neighborSystem,
          prompt: neighborPrompt({
            question: ctx.question,
            keyElements,
            notebook: notebookView(notebook.facts()),
            query: node.query,
            searched,
            canSearchMore: explored < settings.maxSteps,
          }),
          json: nodeCheckSchema,
          temperature: 0,
        },
        { onText: early.onText },
      )
    } catch (error) {
      early.drop([]) // no reply to stand on: its early nodes are cancelled
      throw error
    }
    const check = parseNodeCheck(reply)
    if (!check.readable) yield ctx.warning(`could not read the answer check after "${node.query}"; exploring on`, 'unparseable-output')
    if (answered || (check.answerable && notebook.size > 0)) early.drop([])
    if (answered) return
    if (check.answerable && notebook.size > 0) {
      stop()
      yield { type: 'plan', text: `The notebook answers the question (after "${node.query}"); exploration stops.` }
      return
    }
    const fresh = early.settle(check.queries)
    early.keep()
    const missing = check.missing ? ` Missing: ${check.missing}.` : ''
    yield {
      type: 'plan',
      text: fresh.length ? `After "${node.query}":${missing} Next: ${fresh.join(' | ')}` : `After "${node.query}":${missing} No new queries.`,
      ...(fresh.length ? { queries: fresh } : {}),
    }
  }

  /** Makes the plan; its queries start early nodes as they stream, and the kept ones go on once it is settled. */
  async function* planning(plan: { step: PlanStep; early: boolean }): AsyncGenerator<StrategyEvent> {
    const early = earlyNodes({ depth: 0 }, PLAN_QUERIES, pipelined && plan.early, planQueryStream())
    let made: { queries: string[]; keyElements: string[] } | undefined
    try {
      made = yield* plan.step({ onText: pipelined && plan.early ? early.onText : undefined, keep: early.drop })
    } catch (error) {
      early.drop([])
      throw error
    }
    if (!made) {
      paused = true
      early.drop([])
      return
    }
    keyElements = made.keyElements
    early.settle(made.queries)
    planned = true
    early.keep()
  }

  /** Reads the node's best-ranked results not read before in this run (ads never), in parallel. */
  async function* deepRead(
    results: readonly SearchResult[],
    query: string,
    queryId: string,
    running: Running,
  ): AsyncGenerator<StrategyEvent, Map<string, PageRead>> {
    const pages = new Map<string, PageRead>()
    if (!running.scope.fetch || settings.maxPagesPerNode <= 0) return pages
    const chosen: string[] = []
    for (const { url } of results) {
      if (chosen.length >= settings.maxPagesPerNode) break
      // A document's pages (`#page=n`, as a local corpus returns them) are one read.
      const key = normalizeUrl(url.replace(/#page=\d+$/, ''))
      // Web pages, and the `file:` documents of a local corpus (the corpus is then the reader).
      if (readUrls.has(key) || !/^(?:https?:\/\/|file:)/i.test(url)) continue
      readUrls.add(key) // reserved now, so a concurrent node does not read it too
      running.reserved.push(key)
      chosen.push(url)
    }
    const reads = createMerge<StrategyEvent>()
    for (const url of chosen) {
      reads.add(
        (async function* () {
          const page = yield* running.scope.readPage(url, { queryId, schedule })
          const passages = page ? documentPassages({ ...page, url: page.url || url }, query, settings.pageChars) : []
          if (passages.length > 0) pages.set(url, { url: page?.url || url, passages })
        })(),
      )
    }
    yield* reads
    return pages
  }

  /** Checks each fact's sources against what the node saw, then files it in the notebook. */
  async function* addFacts(
    facts: readonly ExtractedFact[],
    numbered: readonly string[],
    seen: readonly string[],
    queryId: string,
  ): AsyncGenerator<StrategyEvent> {
    let corrected = 0
    let dropped = 0
    for (const extracted of facts) {
      const urls: string[] = []
      for (const ref of extracted.sources) {
        const check = checkSource(ref, numbered, seen)
        if (check.kind === 'dropped') dropped++
        else urls.push(check.url)
        if (check.kind === 'corrected') corrected++
      }
      const outcome = notebook.add(truncateAtSentence(extracted.text, FACT_CHARS), urls, queryId)
      if (outcome.kind === 'added') yield { type: 'fact', fact: outcome.fact, ...(outcome.supersedes.length ? { supersedes: outcome.supersedes } : {}) }
      // A known fact with a new source: the same id again, now with every source.
      else if (outcome.kind === 'duplicate' && outcome.sourcesAdded) yield { type: 'fact', fact: outcome.fact }
    }
    if (corrected || dropped) {
      yield ctx.warning(
        `${corrected + dropped} cited source(s) were not among the URLs this node saw: ${corrected} corrected to a seen URL on the same host, ${dropped} dropped`,
        'invented-source',
      )
    }
  }

  try {
    if (args.plan) merge.add(planning(args.plan))
    fill()
    yield* merge
  } finally {
    nodeCtx.close()
  }
  return { explored, answered, paused, budgetSpent: !answered && frontier.length > 0, titles }
}

/** `promise`, or a rejection with the signal's abort error as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal))
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(abortError(signal)))
    promise.then(
      (value) => {
        stop()
        resolve(value)
      },
      (error: unknown) => {
        stop()
        reject(error)
      },
    )
  })
}

/**
 * The facts a prompt shows, oldest first, within NOTEBOOK_VIEW_CHARS. When they do not all fit:
 * the oldest that fit in half of it (the head: from then on the same facts, in practice those of
 * the planned searches), then the newest that fit in the rest (the tail), the facts between left
 * out. The tail's start moves in whole batches of VIEW_STEP. So a role's consecutive prompts share
 * their text up to their last common fact, and when a batch leaves, still up to the head's end:
 * the prefix a provider's prompt cache reuses. (Dropping the oldest facts instead would change the
 * prompt right after the key elements each time the view moved.)
 */
export function notebookView(notebook: readonly { text: string }[]): NotebookView {
  const facts = notebook.map((f) => f.text)
  const size = (text: string) => text.length + 3 // "- " and the newline
  const total = facts.reduce((sum, text) => sum + size(text), 0)
  if (total <= NOTEBOOK_VIEW_CHARS) return { head: [...facts], hidden: 0, tail: [] }
  let headEnd = 0
  let headChars = 0
  while (headEnd < facts.length - 1 && headChars + size(facts[headEnd]!) <= NOTEBOOK_VIEW_CHARS / 2) headChars += size(facts[headEnd++]!)
  let tailStart = headEnd
  let tailChars = total - headChars
  while (tailChars > NOTEBOOK_VIEW_CHARS - headChars && tailStart < facts.length - 1) {
    const end = Math.min(tailStart + VIEW_STEP, facts.length - 1)
    for (const text of facts.slice(tailStart, end)) tailChars -= size(text)
    tailStart = end
  }
  return { head: facts.slice(0, headEnd), hidden: tailStart - headEnd, tail: facts.slice(tailStart) }
}
