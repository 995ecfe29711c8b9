import type { StrategyEvent } from '../../core/contracts/events.js'
import { ProviderError } from '../../core/contracts/laconic-error.js'
import type { SearchResult } from '../../core/contracts/providers.js'
import type { ScopedContext, StrategyContext } from '../../core/contracts/strategy-types.js'
import { requestText } from '../../core/contracts/tool-args.js'
import { createMerge } from '../../core/util/merge.js'
import { estimateTokens, truncateAtSentence } from '../../core/util/text.js'
import { isAdUrl, normalizeUrl } from '../../core/util/urls.js'
import { documentPassages, passageTitle, type Passage } from '../../documents/passages.js'
import type { QueryStream } from '../shared/query-stream.js'
import { cleanQuery } from '../shared/read.js'
import type { EarlyNodes, Frontier, Node, NodeTicket } from './frontier.js'
import type { Notebook } from './notebook.js'
import { CHECK_QUERIES, checkQueryStream, checkSource, parseExtraction, parseNodeCheck, type ExtractedFact } from './parse.js'
import { extractorPrompt, extractorSystem, neighborPrompt, neighborSystem, type SourceView } from './prompts.js'
import { extractionSchema, nodeCheckSchema } from './schemas.js'
import { fitSearched, type SearchedQueries } from './searched-view.js'

export interface NodeSettings {
  maxSteps: number
  maxPagesPerNode: number
  pageChars: number
  /** The answer check's request stays within this many tokens (estimated). */
  contextTokens: number
}

/** What the nodes of one exploration share. */
export interface Exploring {
  ctx: StrategyContext
  settings: NodeSettings
  notebook: Notebook
  frontier: Frontier<StrategyEvent>
  /** Queries that close in a streaming node check start their nodes early. */
  pipelined: boolean
  /** The plan's key elements, shown to every model call. */
  keyElements: readonly string[]
  /** Queries searched, in order. */
  searched: SearchedQueries
  /** Pages read or reserved by a node (normalised URLs). */
  readUrls: Set<string>
  /** Every URL of every result seen, with its title. */
  titles: Map<string, string>
  /** The page URLs each node in flight reserved. */
  reserved: Map<Node, string[]>
}

const SNIPPET_CHARS = 300
const FACT_CHARS = 300
const FACTS_PER_NODE = 12

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

/**
 * One node's work: search → deep reads (no slot needed: an early node does them while its reply
 * streams) → extractor → answer check, whose queries become the next nodes. A node whose search
 * or model call fails warns and ends; one cut short (an early stop, its reply's parse dropped it)
 * ends quietly.
 */
export function nodeWork(run: Exploring): (node: Node, ticket: NodeTicket<ScopedContext>) => AsyncGenerator<StrategyEvent> {
  return (node, ticket) => exploreNode(run, node, ticket)
}

/** One node: search and deep reads (no slot needed), then its model calls once it holds a slot. */
async function* exploreNode(run: Exploring, node: Node, ticket: NodeTicket<ScopedContext>): AsyncGenerator<StrategyEvent> {
  try {
    const gathered = yield* gather(run, node, ticket.scope)
    if (!ticket.holdsSlot) await ticket.slot()
    yield* digest(run, node, ticket.scope, gathered)
  } catch (error) {
    const cut = ticket.scope.signal.aborted
    if (run.ctx.signal.aborted || !(cut || error instanceof ProviderError)) throw error
    // Cut short (an early stop, or its reply's parse dropped it), or one node's model call failed: the run goes on.
    if (!cut) yield run.ctx.warning(`exploring "${node.query}" failed: ${(error as Error).message}`, 'node-failed')
  } finally {
    run.reserved.delete(node)
    // A cancelled node is as if never started: a later reply may propose its query again.
    if (ticket.cancelled) run.searched.removeLast(node.query)
  }
}

/** The node's search and deep reads: no model call, so an early node does them before its reply is parsed. */
async function* gather(run: Exploring, node: Node, scope: ScopedContext): AsyncGenerator<StrategyEvent, Gathered> {
  const { queryId, results } = yield* scope.runSearch(node.query, {
    ...(node.parentId !== undefined ? { parentId: node.parentId } : {}),
    depth: node.depth,
  })
  run.searched.add(node.query)
  const usable = results.filter((r) => !isAdUrl(r.url))
  for (const r of usable) if (!run.titles.has(r.url)) run.titles.set(r.url, r.title)
  const pages = usable.length ? yield* deepRead(run, usable, node.query, queryId, node, scope) : new Map<string, PageRead>()
  return { queryId, usable, pages }
}

/** The answer check's prompt, within the context budget: past it, the oldest searches fold into one line. */
function checkPrompt(run: Exploring, node: Node): string {
  const notebook = run.notebook.view()
  const canSearchMore = run.frontier.explored < run.settings.maxSteps
  return fitSearched(
    run.searched,
    (prompt) => estimateTokens(requestText({ system: neighborSystem, prompt })) <= run.settings.contextTokens,
    (searched) => neighborPrompt({ question: run.ctx.question, keyElements: run.keyElements, notebook, query: node.query, searched, canSearchMore }),
  )
}

/** The node's model calls: extraction, then the answer check, whose queries start early nodes as they stream. */
async function* digest(run: Exploring, node: Node, scope: ScopedContext, gathered: Gathered): AsyncGenerator<StrategyEvent> {
  if (gathered.usable.length) yield* extract(run, node, scope, gathered)
  if (run.frontier.answered) return
  yield* checkAnswer(run, node, scope, gathered.queryId)
}

/** The extractor's facts from what the node found, checked against its sources and filed in the notebook. */
async function* extract(run: Exploring, node: Node, scope: ScopedContext, { queryId, usable, pages }: Gathered): AsyncGenerator<StrategyEvent> {
  // A document read by pages is one source per page shown, so a fact cites its page.
  const sources: SourceView[] = usable.flatMap((r) => {
    const snippet = truncateAtSentence(r.snippet, SNIPPET_CHARS)
    const passages = pages.get(r.url)?.passages ?? []
    if (!passages.some((p) => p.page !== undefined)) return [{ title: r.title, url: r.url, snippet, ...(passages[0] ? { page: passages[0].text } : {}) }]
    return passages.map((p, i) => {
      const title = passageTitle(r.title, p)
      if (!run.titles.has(p.url)) run.titles.set(p.url, title)
      return { title, url: p.url, snippet: i === 0 ? snippet : '', page: p.text }
    })
  })
  const reply = yield* scope.complete('extractor', {
    system: extractorSystem,
    prompt: extractorPrompt({
      question: run.ctx.question,
      keyElements: run.keyElements,
      notebook: run.notebook.view(),
      query: node.query,
      sources,
    }),
    json: extractionSchema,
    temperature: 0,
  })
  const extraction = parseExtraction(reply)
  if (!extraction.readable) yield run.ctx.warning(`could not read facts from the extractor for "${node.query}"; none kept`, 'unparseable-output')
  const numbered = sources.map((s) => s.url)
  const seen = [...usable.map((r) => r.url), ...numbered, ...[...pages.values()].map((p) => p.url)]
  yield* addFacts(run, extraction.facts.slice(0, FACTS_PER_NODE), numbered, seen, queryId)
}

/** The answer check: the notebook answers the question (exploration stops), or the next queries, started as they stream. */
async function* checkAnswer(run: Exploring, node: Node, scope: ScopedContext, queryId: string): AsyncGenerator<StrategyEvent> {
  const early = earlyNodes(run.frontier, { parentId: queryId, depth: node.depth + 1 }, CHECK_QUERIES, run.pipelined, checkQueryStream())
  let reply: string
  try {
    reply = yield* scope.complete(
      'neighbor',
      {
        system: neighborSystem,
        prompt: checkPrompt(run, node),
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
  if (!check.readable) yield run.ctx.warning(`could not read the answer check after "${node.query}"; exploring on`, 'unparseable-output')
  if (run.frontier.answered || (check.answerable && run.notebook.size > 0)) early.drop([])
  if (run.frontier.answered) return
  if (check.answerable && run.notebook.size > 0) {
    run.frontier.stop(new DOMException('the notebook answers the question', 'AbortError'))
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

/** Reads the node's best-ranked results not read before in this run (ads never), in parallel. */
async function* deepRead(
  run: Exploring,
  results: readonly SearchResult[],
  query: string,
  queryId: string,
  node: Node,
  scope: ScopedContext,
): AsyncGenerator<StrategyEvent, Map<string, PageRead>> {
  const pages = new Map<string, PageRead>()
  if (!scope.fetch || run.settings.maxPagesPerNode <= 0) return pages
  const chosen: string[] = []
  const mine: string[] = []
  run.reserved.set(node, mine)
  for (const { url } of results) {
    if (chosen.length >= run.settings.maxPagesPerNode) break
    // A document's pages (`#page=n`, as a local corpus returns them) are one read.
    const key = normalizeUrl(url.replace(/#page=\d+$/, ''))
    // Web pages, and the `file:` documents of a local corpus (the corpus is then the reader).
    if (run.readUrls.has(key) || !/^(?:https?:\/\/|file:)/i.test(url)) continue
    run.readUrls.add(key) // reserved now, so a concurrent node does not read it too
    mine.push(key)
    chosen.push(url)
  }
  const reads = createMerge<StrategyEvent>()
  for (const url of chosen) {
    reads.add(
      (async function* () {
        const page = yield* scope.readPage(url, { queryId })
        const passages = page ? await documentPassages({ ...page, url: page.url || url }, query, run.settings.pageChars) : []
        if (passages.length > 0) pages.set(url, { url: page?.url || url, passages })
      })(),
    )
  }
  yield* reads
  return pages
}

/** Checks each fact's sources against what the node saw, then files it in the notebook. */
async function* addFacts(
  run: Exploring,
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
    const outcome = run.notebook.add(truncateAtSentence(extracted.text, FACT_CHARS), urls, queryId)
    if (outcome.kind === 'added') yield { type: 'fact', fact: outcome.fact, ...(outcome.supersedes.length ? { supersedes: outcome.supersedes } : {}) }
    // A known fact with a new source: the same id again, now with every source.
    else if (outcome.kind === 'duplicate' && outcome.sourcesAdded) yield { type: 'fact', fact: outcome.fact }
  }
  if (corrected || dropped) {
    yield run.ctx.warning(
      `${corrected + dropped} cited source(s) were not among the URLs this node saw: ${corrected} corrected to a seen URL on the same host, ${dropped} dropped`,
      'invented-source',
    )
  }
}

/** The early nodes of a reply: each query that closes in its stream (`onText`) is offered to the frontier. */
export function earlyNodes(
  frontier: Frontier<StrategyEvent>,
  place: Omit<Node, 'query'>,
  limit: number,
  enabled: boolean,
  stream: QueryStream,
): EarlyNodes & { onText(text: string): void } {
  const nodes = frontier.early(place, limit)
  return {
    ...nodes,
    onText(text) {
      if (!enabled) return
      for (const raw of stream.push(text)) {
        const query = cleanQuery(raw)
        if (query) nodes.offer(query)
      }
    },
  }
}
