/** One section's research: its questions searched, its best pages read, its facts extracted, all within the context budget. */
import type { StrategyEvent } from '../../core/contracts/events.js'
import type { OutlineSection } from '../../core/contracts/interruption.js'
import type { RecalledFinding } from '../../core/contracts/long-term-memory.js'
import type { SearchOutcome, Step, StrategyContext } from '../../core/contracts/strategy-types.js'
import { createMerge } from '../../core/util/merge.js'
import { truncateAtSentence } from '../../core/util/text.js'
import { isAdUrl, normalizeUrl } from '../../core/util/urls.js'
import { documentPassages, passageTitle } from '../../documents/passages.js'
import { parseLooseJson, stringField } from '../shared/json.js'
import { distinctQueries } from '../shared/read.js'
import { fitPrompt, shareChars } from './fit.js'
import { factsPrompt, factsSchema, factsSystem, type ShownSource } from './prompts.js'
import type { ReportSettings } from './options.js'

/** Sources a section shows its models at most. */
export const SECTION_SOURCES = 6
const SNIPPET_CHARS = 300
const FACTS_TOKENS = 600
/** Facts a section keeps at most. */
const MAX_FACTS = 10

export interface SectionResearch {
  sources: ShownSource[]
  facts: { text: string; sources: number[] }[]
}

/** Researches `section`: searches (concurrently, under the run's limit), deep reads, then one extractor call whose grounded facts are `fact` events. */
export async function* researchSection(
  section: OutlineSection,
  reportTitle: string,
  ctx: StrategyContext,
  settings: ReportSettings & { recalled?: readonly RecalledFinding[] },
): Step<SectionResearch> {
  const queries = distinctQueries(section.questions, settings.searchesPerSection)
  const found: SearchOutcome[] = []
  const searches = createMerge<StrategyEvent>()
  queries.forEach((query, i) => {
    searches.add(
      (async function* () {
        found[i] = yield* ctx.runSearch(query)
      })(),
    )
  })
  yield* searches

  const sources: (ShownSource & { queryId: string })[] = []
  const seen = new Set<string>()
  for (const outcome of found) {
    for (const r of outcome?.results ?? []) {
      const key = normalizeUrl(r.url ?? '')
      if (!r.url || isAdUrl(r.url) || seen.has(key) || sources.length >= SECTION_SOURCES) continue
      seen.add(key)
      sources.push({ url: r.url, title: r.title ?? '', text: truncateAtSentence(r.snippet ?? '', SNIPPET_CHARS), queryId: outcome.queryId })
    }
  }
  // Earlier findings long-term memory recalled: sources the section may cite, after its own, never its facts.
  const recalled: (ShownSource & { queryId: string })[] = []
  for (const f of settings.recalled ?? []) {
    const key = normalizeUrl(f.url)
    if (seen.has(key) || sources.length + recalled.length >= SECTION_SOURCES) continue
    seen.add(key)
    recalled.push({ url: f.url, title: f.title ?? '', text: f.text, queryId: '' })
  }
  if (!sources.length && !recalled.length) {
    yield ctx.warning(`no sources found for the section "${section.title}"`, 'no-sources')
    return { sources: [], facts: [] }
  }

  // The best-ranked sources are read; what a read shows is the page's passages that best match the section.
  const toRead = ctx.fetch ? sources.slice(0, settings.readPages) : []
  const reads = createMerge<StrategyEvent>()
  const focus = `${section.title} ${section.goal} ${section.questions.join(' ')}`
  const extra: (ShownSource & { queryId: string })[] = []
  for (const source of toRead) {
    reads.add(
      (async function* () {
        const page = yield* ctx.readPage(source.url, { queryId: source.queryId })
        if (!page) return
        const [first, ...rest] = await documentPassages({ ...page, url: page.url || source.url }, focus, settings.pageChars)
        if (!first) return
        if (first.page === undefined) source.text = first.text
        else {
          const title = source.title
          Object.assign(source, { url: first.url, title: passageTitle(title, first), text: first.text })
          for (const p of rest) extra.push({ url: p.url, title: passageTitle(title, p), text: p.text, queryId: source.queryId })
        }
      })(),
    )
  }
  yield* reads
  sources.push(...extra.slice(0, Math.max(0, SECTION_SOURCES - sources.length - recalled.length)), ...recalled)

  const prompt = fitPrompt({
    system: factsSystem,
    maxTokens: FACTS_TOKENS,
    contextTokens: settings.contextTokens,
    build: (maxChars) =>
      factsPrompt({
        section,
        reportTitle,
        sources,
        texts: shareChars(
          sources.map((s) => s.text),
          maxChars,
        ),
      }),
  })
  const reply = yield* ctx.complete('extractor', { system: factsSystem, prompt, json: factsSchema, maxTokens: FACTS_TOKENS, temperature: 0 })
  const facts = readFacts(reply, sources.length)
  if (facts === undefined) yield ctx.warning(`could not read the facts of the section "${section.title}"; it is written from its sources`, 'unparseable-output')
  for (const fact of facts ?? []) {
    // Only what this run's searches found is its evidence: a fact resting on recalled findings alone stays prior knowledge.
    const found = fact.sources.map((n) => sources[n - 1]!).filter((s) => s.queryId !== '')
    if (!found.length) continue
    yield { type: 'fact', fact: { id: ctx.newId('f'), text: fact.text, sources: [...new Set(found.map((s) => s.url))], queryId: found[0]!.queryId } }
  }
  return { sources: sources.map(({ url, title, text }) => ({ url, title, text })), facts: facts ?? [] }
}

/** The facts of an extractor reply that cite a listed source (numbers 1..`sourceCount`); undefined when the reply is unreadable. */
export function readFacts(reply: string, sourceCount: number): { text: string; sources: number[] }[] | undefined {
  const parsed = parseLooseJson(reply, 'object')
  const raw = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>).facts : undefined
  if (!Array.isArray(raw)) return undefined
  const facts: { text: string; sources: number[] }[] = []
  for (const item of raw.slice(0, 100)) {
    const text = truncateAtSentence(stringField(item, 'text', 'fact') ?? '', 300)
    const numbers = Array.isArray((item as { sources?: unknown })?.sources) ? (item as { sources: unknown[] }).sources : []
    const sources = [...new Set(numbers.filter((n): n is number => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= sourceCount))]
    if (text && sources.length) facts.push({ text, sources })
    if (facts.length >= MAX_FACTS) break
  }
  return facts
}
