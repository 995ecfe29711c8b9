import {
  createMerge,
  isAdUrl,
  normalizeText,
  normalizeUrl,
  ProviderError,
  truncateAtSentence,
  type Schedule,
  type SearchResult,
  type StrategyContext,
  type StrategyEvent,
} from '../../core/index.js'
import type { Notebook } from './notebook.js'
import { checkSource, parseExtraction, parseNodeCheck, type ExtractedFact } from './parse.js'
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

/**
 * Explores the query graph breadth-first. At most `concurrency` nodes run at once, each doing
 * search → deep reads → extractor → answer check in order, so at most `concurrency` model calls
 * are in flight; searches and page fetches also go through `schedule`, the run's one limiter.
 * Model calls stay outside it so that slow page fetches never hold up another node's answer
 * check. With concurrency 1 nodes run one after another in queue order: deterministic.
 *
 * Node work uses its own abort signal, linked to the run's: when an answer check says the
 * notebook suffices, queued nodes are dropped and in-flight ones aborted at once (their
 * finished events, facts included, are kept; the calls cut short report no cost).
 */
export async function* explore(
  start: readonly Node[],
  ctx: StrategyContext,
  args: {
    settings: ExploreSettings
    schedule: Schedule
    notebook: Notebook
    keyElements: readonly string[]
    /** Where a resumed run's exploration stood. */
    restored?: ExploreState
    /** Saves a checkpoint after each node. */
    save?: (state: ExploreState) => AsyncGenerator<StrategyEvent, void>
  },
): AsyncGenerator<StrategyEvent, Exploration> {
  const { settings, schedule, notebook, keyElements, restored } = args
  // Node work runs in a child scope: its own signal, the run's ids and cost.
  const nodeCtx = ctx.scope()

  const frontier = restored ? restored.frontier.map((n) => ({ ...n })) : [...start]
  const visited = new Set(restored?.visited ?? start.map((n) => normalizeText(n.query)))
  const searched: string[] = [...(restored?.searched ?? [])]
  const readUrls = new Set<string>(restored?.readUrls)
  const titles = new Map<string, string>(restored?.titles)
  let explored = restored?.explored ?? 0
  let active = 0
  let answered = restored?.answered ?? false
  /** Nodes being explored, with the page URLs each reserved. */
  const inFlight = new Map<Node, string[]>()

  /**
   * The state after a node: nodes still in flight go back to the front of the frontier (a resume
   * explores them again), and what they already changed is left out. The notebook is not here:
   * a resume rebuilds it from the facts the run had emitted (`ctx.resumed.facts`), which is
   * exactly what consumers saw, whatever nodes were in flight.
   */
  const snapshot = (): ExploreState => {
    const running = [...inFlight.keys()]
    const runningQueries = new Set(running.map((n) => n.query))
    const reserved = new Set([...inFlight.values()].flat())
    return {
      frontier: [...running, ...frontier],
      visited: [...visited],
      searched: searched.filter((q) => !runningQueries.has(q)),
      readUrls: [...readUrls].filter((u) => !reserved.has(u)),
      titles: [...titles],
      explored: explored - running.length,
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

  const startNodes = () => {
    while (!answered && !ctx.budgetExhausted() && active < settings.concurrency && explored < settings.maxSteps && frontier.length) {
      const node = frontier.shift()!
      explored++
      active++
      inFlight.set(node, [])
      merge.add(guarded(node))
    }
  }

  async function* guarded(node: Node): AsyncGenerator<StrategyEvent> {
    try {
      yield* exploreNode(node)
    } catch (error) {
      if (ctx.signal.aborted || !(nodeCtx.signal.aborted || error instanceof ProviderError)) throw error
      // Cut short by an early stop, or one node's model call failed: the run goes on.
      if (!nodeCtx.signal.aborted) yield ctx.warning(`exploring "${node.query}" failed: ${(error as Error).message}`, 'node-failed')
    } finally {
      active--
      inFlight.delete(node)
    }
    if (args.save) yield* args.save(snapshot())
    startNodes()
  }

  async function* exploreNode(node: Node): AsyncGenerator<StrategyEvent> {
    const { queryId, results } = yield* nodeCtx.runSearch(node.query, {
      ...(node.parentId !== undefined ? { parentId: node.parentId } : {}),
      depth: node.depth,
      schedule,
    })
    searched.push(node.query)
    const usable = results.filter((r) => !isAdUrl(r.url))
    for (const r of usable) if (!titles.has(r.url)) titles.set(r.url, r.title)

    if (usable.length) {
      const pages = yield* deepRead(usable, queryId, inFlight.get(node) ?? [])
      const sources: SourceView[] = usable.map((r) => ({
        title: r.title,
        url: r.url,
        snippet: truncateAtSentence(r.snippet, SNIPPET_CHARS),
        ...(pages.has(r.url) ? { page: pages.get(r.url)!.text } : {}),
      }))
      const reply = yield* nodeCtx.complete('extractor', {
        system: extractorSystem,
        prompt: extractorPrompt({ question: ctx.question, keyElements, notebook: notebookView(notebook.facts()), query: node.query, sources }),
        json: extractionSchema,
        temperature: 0,
      })
      const extraction = parseExtraction(reply)
      if (!extraction.readable) yield ctx.warning(`could not read facts from the extractor for "${node.query}"; none kept`, 'unparseable-output')
      const seen = [...usable.map((r) => r.url), ...[...pages.values()].map((p) => p.url)]
      yield* addFacts(
        extraction.facts.slice(0, FACTS_PER_NODE),
        usable.map((r) => r.url),
        seen,
        queryId,
      )
    }
    if (answered) return

    const reply = yield* nodeCtx.complete('neighbor', {
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
    })
    const check = parseNodeCheck(reply)
    if (!check.readable) yield ctx.warning(`could not read the answer check after "${node.query}"; exploring on`, 'unparseable-output')
    if (answered) return
    if (check.answerable && notebook.size > 0) {
      stop()
      yield { type: 'plan', text: `The notebook answers the question (after "${node.query}"); exploration stops.` }
      return
    }
    const fresh = check.queries.filter((q) => !visited.has(normalizeText(q)))
    for (const query of fresh) {
      visited.add(normalizeText(query))
      frontier.push({ query, parentId: queryId, depth: node.depth + 1 })
    }
    const missing = check.missing ? ` Missing: ${check.missing}.` : ''
    yield {
      type: 'plan',
      text: fresh.length ? `After "${node.query}":${missing} Next: ${fresh.join(' | ')}` : `After "${node.query}":${missing} No new queries.`,
      ...(fresh.length ? { queries: fresh } : {}),
    }
  }

  /** Reads the node's best-ranked results not read before in this run (ads never), in parallel. */
  async function* deepRead(
    results: readonly SearchResult[],
    queryId: string,
    reserved: string[],
  ): AsyncGenerator<StrategyEvent, Map<string, { url: string; text: string }>> {
    const pages = new Map<string, { url: string; text: string }>()
    if (!nodeCtx.fetch || settings.maxPagesPerNode <= 0) return pages
    const chosen: string[] = []
    for (const { url } of results) {
      if (chosen.length >= settings.maxPagesPerNode) break
      const key = normalizeUrl(url)
      // Web pages, and the `file:` documents of a local corpus (the corpus is then the reader).
      if (readUrls.has(key) || !/^(?:https?:\/\/|file:)/i.test(url)) continue
      readUrls.add(key) // reserved now, so a concurrent node does not read it too
      reserved.push(key)
      chosen.push(url)
    }
    const reads = createMerge<StrategyEvent>()
    for (const url of chosen) {
      reads.add(
        (async function* () {
          const page = yield* nodeCtx.readPage(url, { queryId, schedule })
          if (page?.text.trim()) pages.set(url, { url: page.url || url, text: truncateAtSentence(page.text.trim(), settings.pageChars) })
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
    startNodes()
    yield* merge
  } finally {
    nodeCtx.close()
  }
  return { explored, answered, budgetSpent: !answered && frontier.length > 0, titles }
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
