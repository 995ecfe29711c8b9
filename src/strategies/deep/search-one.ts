import type { StrategyEvent } from '../../core/contracts/events.js'
import type { SearchResult } from '../../core/contracts/providers.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'
import { createMerge } from '../../core/util/merge.js'
import { normalizeText, truncateAtSentence } from '../../core/util/text.js'
import { isAdUrl, normalizeUrl } from '../../core/util/urls.js'
import { documentPassages, passageTitle, type Passage } from '../../documents/passages.js'
import { citationNumbers, rewriteCitations } from '../shared/citations.js'
import type { Finding, SourceTitles } from './findings.js'
import { earlySearches, type EarlySearches } from '../shared/early-searches.js'
import { createQueryStream } from '../shared/query-stream.js'
import { FOLLOW_UP_KEYS, parseSubAnswer, type SubAnswerReply } from './parse.js'
import { subAnswerPrompt, subAnswerSystem, type ShownSource } from './prompts.js'
import { cleanQuery, distinctQueries } from '../shared/read.js'
import { subAnswerSchema } from './schemas.js'

export interface SearchOneSettings {
  searchesPerQuestion: number
  readPages: number
  pageChars: number
  titles: SourceTitles
  /** Holds the sub-question's search when it started while the planner's reply streamed. */
  early?: EarlySearches
}

/** Sources shown to the extractor for one sub-question at most. */
const MAX_SOURCES = 8
const SNIPPET_CHARS = 300

interface Source extends ShownSource {
  queryId: string
}

/**
 * `search_one`: answers one sub-question with up to `searchesPerQuestion` searches. The first
 * search is the sub-question itself; the extractor may ask for follow-up searches (run
 * concurrently) while the budget lasts. The top results may be deep-read. Emits the facts the
 * final answer relies on, each tied to sources among the URLs seen.
 */
export async function* searchOne(subQuestion: string, ctx: StrategyContext, settings: SearchOneSettings): AsyncGenerator<StrategyEvent, Finding> {
  const sources: Source[] = []
  const searched = new Set<string>()
  let searchesLeft = settings.searchesPerQuestion
  let pagesLeft = ctx.fetch ? settings.readPages : 0
  let queries = [subQuestion]
  let early = settings.early
  let reply: SubAnswerReply | undefined

  while (queries.length && searchesLeft > 0) {
    const batch = queries.slice(0, searchesLeft)
    searchesLeft -= batch.length
    for (const q of batch) searched.add(normalizeText(q))
    const found = yield* searchConcurrently(batch, ctx, early)
    const added = addSources(sources, found, settings.titles)
    const toRead = added.slice(0, pagesLeft)
    pagesLeft -= toRead.length
    yield* readPages(toRead, sources, subQuestion, ctx, settings)
    if (!sources.length) break

    // The follow-up queries are searched as they close in the reply; the parse keeps those the loop runs next.
    early = earlySearches(ctx, { limit: searchesLeft, clean: cleanQuery, skip: searched, enabled: searchesLeft > 0 })
    const call = (onText: (text: string) => void) =>
      ctx.complete(
        'extractor',
        { system: subAnswerSystem, json: subAnswerSchema, prompt: subAnswerPrompt({ subQuestion, sources, searchesLeft }), maxTokens: 600, temperature: 0 },
        { onText },
      )
    reply = parseSubAnswer(yield* early.during(call, createQueryStream({ lists: FOLLOW_UP_KEYS })))
    // A query run before takes no place: the cap counts new ones only, as the early searches do.
    queries = reply.needMore
      ? distinctQueries(reply.queries, reply.queries.length)
          .filter((q) => !searched.has(normalizeText(q)))
          .slice(0, searchesLeft)
      : []
    yield* early.keepOnly(queries)
  }

  if (!reply) {
    yield ctx.warning(`no sources found for "${subQuestion}"`, 'no-sources')
    return { query: subQuestion, answer: 'No sources were found for this sub-question.', confidence: 0, sources: [] }
  }
  if (!reply.readable) yield ctx.warning(`could not read the answer to "${subQuestion}" as JSON; keeping its text`, 'unparseable-output')
  yield* emitFacts(reply, sources, ctx)
  const cited = new Set([...citationNumbers(reply.answer), ...reply.facts.flatMap((f) => f.sources)])
  const urls = [...cited].sort((a, b) => a - b).flatMap((n) => (sources[n - 1] ? [sources[n - 1]!.url] : []))
  const answer = rewriteCitations(reply.answer, () => undefined).trim()
  return {
    query: subQuestion,
    answer: answer || 'The sources did not answer this sub-question.',
    // A prose fallback is unverified: low confidence unless the model said otherwise.
    confidence: reply.confidence ?? (reply.readable ? 0.5 : 0.3),
    sources: urls,
  }
}

/** Runs the searches at once (under the run's limit), taking over those `early` started; their results, in query order. */
async function* searchConcurrently(
  queries: readonly string[],
  ctx: StrategyContext,
  early: EarlySearches | undefined,
): AsyncGenerator<StrategyEvent, { queryId: string; results: SearchResult[] }[]> {
  const found: { queryId: string; results: SearchResult[] }[] = queries.map(() => ({ queryId: '', results: [] }))
  const merge = createMerge<StrategyEvent>()
  queries.forEach((query, i) => {
    merge.add(
      (async function* () {
        found[i] = yield* early?.take(query) ?? ctx.runSearch(query)
      })(),
    )
  })
  yield* merge
  return found
}

/** Adds the new results (no ads, no URL seen before) up to the cap; returns those added. */
function addSources(sources: Source[], found: readonly { queryId: string; results: SearchResult[] }[], titles: SourceTitles): Source[] {
  const seen = new Set(sources.map((s) => normalizeUrl(s.url)))
  const added: Source[] = []
  for (const { queryId, results } of found) {
    for (const r of results) {
      if (sources.length >= MAX_SOURCES) return added
      const key = normalizeUrl(r.url ?? '')
      if (!r.url || isAdUrl(r.url) || seen.has(key)) continue
      seen.add(key)
      titles.note(r.url, r.title)
      const source = { url: r.url, title: r.title ?? '', text: truncateAtSentence(r.snippet ?? '', SNIPPET_CHARS), queryId }
      sources.push(source)
      added.push(source)
    }
  }
  return added
}

/**
 * Deep-reads pages at once under the run's limiter, replacing each snippet with what
 * `documentPassages` shows of the page for the sub-question. A paged document (a PDF) gives a
 * source per page shown: the source becomes the first of them and the others are added after
 * the list, each with its `#page=n` URL, so a fact cites its page. Added in reading order once all reads are done, so the
 * numbering does not depend on which read finished first.
 */
async function* readPages(
  toRead: readonly Source[],
  sources: Source[],
  subQuestion: string,
  ctx: StrategyContext,
  settings: SearchOneSettings,
): AsyncGenerator<StrategyEvent> {
  if (!toRead.length) return
  const merge = createMerge<StrategyEvent>()
  const read = new Map<Source, Passage[]>()
  for (const source of toRead) {
    merge.add(
      (async function* () {
        const page = yield* ctx.readPage(source.url, { queryId: source.queryId })
        if (page) read.set(source, await documentPassages({ ...page, url: page.url || source.url }, subQuestion, settings.pageChars))
      })(),
    )
  }
  yield* merge
  for (const source of toRead) {
    const [first, ...rest] = read.get(source) ?? []
    if (!first) continue
    if (first.page === undefined) {
      source.text = first.text
      continue
    }
    const title = source.title
    const pageSource = (passage: Passage): Source => {
      const named = passageTitle(title, passage)
      settings.titles.note(passage.url, named)
      return { url: passage.url, title: named, text: passage.text, queryId: source.queryId }
    }
    Object.assign(source, pageSource(first))
    sources.push(...rest.map(pageSource))
  }
}

/** `fact` events for the facts that name at least one real source; the rest are dropped. */
async function* emitFacts(reply: SubAnswerReply, sources: readonly Source[], ctx: StrategyContext): AsyncGenerator<StrategyEvent> {
  let ungrounded = 0
  for (const fact of reply.facts) {
    const backing = fact.sources.flatMap((n) => (sources[n - 1] ? [sources[n - 1]!] : []))
    if (!backing.length) {
      ungrounded++
      continue
    }
    yield {
      type: 'fact',
      fact: { id: ctx.newId('f'), text: fact.text, sources: [...new Set(backing.map((s) => s.url))], queryId: backing[0]!.queryId },
    }
  }
  if (ungrounded) yield ctx.warning(`${ungrounded} fact(s) named no listed source and were dropped`, 'ungrounded-facts')
}
