/**
 * Does the answering sentence reach the model, and is it cited by the place that holds it
 * (issue 34)? Real pages the project did not write: 15 saved web pages from trafilatura's test
 * cache (test/fixtures/pages, English, German and French, 4–41k characters of readable text) and
 * 2 real PDFs from pdfminer.six's samples (test/fixtures/documents/papers: an 8-page paper and an
 * 18-page summary of the DMCA), each read through the project's own extraction (Readability via
 * `extractReadable`, `readDocument` for the PDFs).
 *
 * Questions, seeded and honest: from each page, sentences are drawn uniformly (mulberry32, seed
 * 34) among its sentences (Intl.Segmenter, 40–400 characters, at least four content words of
 * four letters or more that are not stop words), one per 3,000 characters of a web page and two
 * per PDF page. A question is not the sentence: it is the sentence's four rarest content words
 * (fewest occurrences in the page; more, up to six, until no other sentence of the page holds
 * them all; a sentence no six words single out is skipped), in the sentence's order, joined by
 * spaces. The scripted search returns the page first and another page second, with the page's
 * first 200 characters as snippets. The model is an oracle (bench/evidence-oracle.ts) told only
 * those words: it extracts every sentence it is shown that holds them all and cites it.
 *
 * Measured per strategy (graph-reader, deep, react's read_page) at their default budgets:
 * - evidence recall: the answering sentence (punctuation and case folded) is in some request to
 *   the model, by the sentence's offset in its page (0–4k, 4–10k, 10–30k, 30k+) and by PDF page;
 * - citation accuracy: the answer's citations include the page's URL (a PDF's `#page=n`);
 * - characters shown per read: a read page's text in the prompt (graph-reader's "Page text",
 *   deep's source text, read_page's passages; snippets and title lines left out), max and mean.
 * Context (no target): the same questions if a read showed the page from its start, cut to the
 * budget (what graph-reader and deep did for a web page before this change); and the same
 * sentences asked by their four most common content words in the page instead of the rarest
 * (such words may single out other sentences too: a harder question for a lexical ranker).
 * Targets: recall ≥ 0.95 in every bucket, citation accuracy ≥ 0.95, shown ≤ the budget.
 */
import { readFileSync } from 'node:fs'
import { extractReadable, loadExtractModules } from '../src/adapters/fetch/extract.js'
import { readDocument } from '../src/adapters/fetch/read-document.js'
import { createAgent, type ResearchResult } from '../src/index.js'
import type { FetchedPage } from '../src/core/contracts/providers.js'
import { requestText } from '../src/core/contracts/tool-args.js'
import { normalizeText } from '../src/core/util/text.js'
import { normalizeUrl } from '../src/core/util/urls.js'
import { documentPages, pageUrl } from '../src/documents/document-pages.js'
import { lexicalTerms } from '../src/documents/lexical.js'
import { deep, graphReader, react } from '../src/strategy.js'
import { mockFetch, mockSearch, type ScriptedLLM } from '../src/testing/index.js'
import { holds, oracleModel, sentences, sourceBlocks, wordsOf } from './evidence-oracle.js'
import { round } from './stats.js'

const SEED = 34
const WEB_CHARS_PER_QUESTION = 3_000
const QUESTIONS_PER_PDF_PAGE = 2
const TARGET = 0.95
export const BUDGETS = { 'graph-reader': 4_000, deep: 3_000, react: 3_000 } as const
type StrategyName = keyof typeof BUDGETS
export const BUCKETS = [
  { name: '0–4k', from: 0, to: 4_000 },
  { name: '4–10k', from: 4_000, to: 10_000 },
  { name: '10–30k', from: 10_000, to: 30_000 },
  { name: '30k+', from: 30_000, to: Number.POSITIVE_INFINITY },
] as const

export interface CorpusPage {
  name: string
  page: FetchedPage
}

export interface Question {
  page: CorpusPage
  sentence: string
  /** Where the sentence starts in the page's text. */
  offset: number
  /** A PDF's page holding it. */
  pdfPage?: number
  words: string[]
  question: string
  /** A harder asking, for context: the sentence's four most common content words in the page (they may single out other sentences too). */
  common: { words: string[]; question: string }
}

/** mulberry32: a small seeded generator, so the questions are the same on every run. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

const fixtures = new URL('../test/fixtures/', import.meta.url)

/** The corpus, read through the project's own extraction. */
export async function loadCorpus(): Promise<CorpusPage[]> {
  const modules = await loadExtractModules()
  const pages: CorpusPage[] = []
  const web = JSON.parse(readFileSync(new URL('pages/provenance.json', fixtures), 'utf8')) as { files: { file: string }[] }
  for (const { file } of web.files) {
    const read = extractReadable(readFileSync(new URL(`pages/${file}`, fixtures), 'utf8'), modules)
    const name = file.replace(/\.html$/, '')
    pages.push({ name, page: { url: `https://${name}.example/article`, ...(read.title ? { title: read.title } : {}), text: read.text } })
  }
  const papers = JSON.parse(readFileSync(new URL('documents/papers/provenance.json', fixtures), 'utf8')) as { files: { file: string }[] }
  for (const { file } of papers.files) {
    const bytes = new Uint8Array(readFileSync(new URL(`documents/papers/${file}`, fixtures)))
    const page = await readDocument(`https://papers.example/${file}`, 'pdf', bytes, { timeoutMs: 120_000, maxPages: 300, maxChars: 1_000_000 })
    pages.push({ name: file, page: { ...page, title: page.title ?? file } })
  }
  return pages
}

/** Sentences of a stretch of text, with their offsets in the page. */
function pageSentences(text: string, base: number): { text: string; offset: number }[] {
  const found: { text: string; offset: number }[] = []
  for (const paragraph of text.matchAll(/[^\n]+(?:\n(?!\s*\n)[^\n]*)*/g)) {
    if (/^\s*#/.test(paragraph[0])) continue
    for (const s of sentences(paragraph[0])) found.push({ text: s.text.replace(/^- /, ''), offset: base + (paragraph.index ?? 0) + s.index })
  }
  return found
}

const contentWords = (sentence: string) => [...new Set(wordsOf(sentence).filter((w) => /^\p{L}{4,}$/u.test(w) && lexicalTerms(w).length > 0))]

/** The questions of one page: sentences drawn uniformly, each asked by its rarest words. */
function pageQuestions(page: CorpusPage, count: number, random: () => number, within?: { page: number; text: string; start: number }): Question[] {
  const all = pageSentences(page.page.text, 0)
  const pool = within ? pageSentences(within.text, within.start) : all
  const frequency = new Map<string, number>()
  for (const word of wordsOf(page.page.text)) frequency.set(word, (frequency.get(word) ?? 0) + 1)
  const eligible = pool.filter((s) => s.text.length >= 40 && s.text.length <= 400 && contentWords(s.text).length >= 4)
  const questions: Question[] = []
  const tried = new Set<number>()
  while (questions.length < count && tried.size < eligible.length) {
    const at = Math.floor(random() * eligible.length)
    if (tried.has(at)) continue
    tried.add(at)
    const chosen = eligible[at]!
    const byRarity = contentWords(chosen.text).sort((a, b) => (frequency.get(a) ?? 0) - (frequency.get(b) ?? 0))
    for (let size = 4; size <= Math.min(6, byRarity.length); size++) {
      const picked = byRarity.slice(0, size)
      if (all.filter((s) => holds(s.text, picked)).length !== 1) continue
      const order = wordsOf(chosen.text)
      const inOrder = (chosenWords: string[]) => [...chosenWords].sort((a, b) => order.indexOf(a) - order.indexOf(b))
      const words = inOrder(picked)
      const common = inOrder(byRarity.slice(-4))
      questions.push({
        page,
        sentence: chosen.text,
        offset: chosen.offset,
        ...(within ? { pdfPage: within.page } : {}),
        words,
        question: words.join(' '),
        common: { words: common, question: common.join(' ') },
      })
      break
    }
  }
  return questions
}

export function buildQuestions(corpus: readonly CorpusPage[]): Question[] {
  const random = seeded(SEED)
  const questions: Question[] = []
  for (const page of corpus) {
    if (page.page.pageStarts) {
      const starts = page.page.pageStarts
      for (const { page: number } of documentPages(page.page)) {
        const start = starts[number - 1] as number
        const text = page.page.text.slice(start, starts[number] ?? page.page.text.length)
        questions.push(...pageQuestions(page, QUESTIONS_PER_PDF_PAGE, random, { page: number, text, start }))
      }
    } else {
      questions.push(...pageQuestions(page, Math.max(1, Math.round(page.page.text.length / WEB_CHARS_PER_QUESTION)), random))
    }
  }
  return questions
}

/** The place that holds a question's sentence, as a citation names it. */
const placeOf = (q: Question) => normalizeUrl(q.pdfPage ? pageUrl(q.page.page.url, q.pdfPage) : q.page.page.url)

const baseOf = (url: string) => normalizeUrl(url).replace(/#page=\d+$/, '')

export interface Outcome {
  strategy: StrategyName
  question: Question
  reached: boolean
  cited: boolean
  /** Characters of each read page's text shown in a prompt. */
  shown: number[]
}

/** The page text each request showed, per read page (by URL without its page). */
function shownPerRead(llm: ScriptedLLM, strategy: StrategyName, read: ReadonlySet<string>): number[] {
  const most = new Map<string, number>()
  const count = (text: string, pageText: (body: string) => string) => {
    const sums = new Map<string, number>()
    for (const block of sourceBlocks(text)) {
      const base = baseOf(block.url)
      if (read.has(base)) sums.set(base, (sums.get(base) ?? 0) + pageText(block.body).length)
    }
    for (const [base, chars] of sums) most.set(base, Math.max(most.get(base) ?? 0, chars))
  }
  for (const req of llm.calls) {
    if (strategy === 'graph-reader' && /^Results for the search/m.test(req.prompt)) {
      const listed = req.prompt.slice(0, req.prompt.lastIndexOf('\n\nExtract the facts'))
      count(listed, (body) => (body.includes('\nPage text:\n') ? body.slice(body.indexOf('\nPage text:\n') + 12) : ''))
    } else if (strategy === 'deep' && req.prompt.startsWith('Sub-question:')) {
      const listed = req.prompt.slice(req.prompt.indexOf('Sources:\n') + 9, req.prompt.lastIndexOf('\n\n'))
      count(listed, (body) => body)
    } else if (strategy === 'react') {
      for (const turn of req.turns ?? []) if (turn.role === 'tool' && turn.name === 'read_page') count(turn.content, (body) => body)
    }
  }
  return [...most.values()]
}

export async function ask(strategy: StrategyName, question: Question, corpus: readonly CorpusPage[]): Promise<Outcome> {
  const other = corpus[(corpus.indexOf(question.page) + 1) % corpus.length] as CorpusPage
  const result = (page: CorpusPage) => ({ title: page.page.title ?? page.name, url: page.page.url, snippet: page.page.text.slice(0, 200) })
  const search = mockSearch({ results: () => [result(question.page), result(other)] })
  const pages = Object.fromEntries(corpus.map(({ page }) => [page.url, { ...page }]))
  const llm = oracleModel(question.question, question.words)
  const strategies = { 'graph-reader': graphReader({ concurrency: 1 }), deep: deep({ mode: 'conversational' }), react: react() }
  const agent = createAgent({ llm, search, fetch: mockFetch({ pages }), strategy: strategies[strategy] })
  const run = agent.research(question.question)
  const read = new Set<string>()
  for await (const event of run) if (event.type === 'page') read.add(baseOf(event.url))
  const answer: ResearchResult = await run.result
  const wanted = ` ${normalizeText(question.sentence)} `
  const reached = llm.calls.some((req) => ` ${normalizeText(requestText(req))} `.includes(wanted))
  const cited = answer.citations.some((c) => normalizeUrl(c.url) === placeOf(question))
  return { strategy, question, reached, cited, shown: shownPerRead(llm, strategy, read) }
}

/** Whether the page from its start, cut to `budget`, holds the sentence (the old way, for context). */
const fromStart = (q: Question, budget: number) => q.offset + q.sentence.length <= budget

const share = (outcomes: readonly { ok: boolean }[]) => (outcomes.length ? outcomes.filter((o) => o.ok).length / outcomes.length : Number.NaN)

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[]; details: unknown }> {
  const corpus = await loadCorpus()
  const questions = buildQuestions(corpus)
  const outcomes: Outcome[] = []
  for (const strategy of Object.keys(BUDGETS) as StrategyName[]) {
    for (const question of questions) outcomes.push(await ask(strategy, question, corpus))
  }
  // Context, no target: the same sentences asked by their most common content words.
  const harder: Outcome[] = []
  for (const strategy of Object.keys(BUDGETS) as StrategyName[]) {
    for (const question of questions) harder.push(await ask(strategy, { ...question, ...question.common }, corpus))
  }
  const rows: Record<string, unknown>[] = []
  const pdfGroups = [
    { name: 'PDF page 1', test: (p: number) => p === 1 },
    { name: 'PDF pages 2–4', test: (p: number) => p >= 2 && p <= 4 },
    { name: 'PDF pages 5–8', test: (p: number) => p >= 5 && p <= 8 },
    { name: 'PDF pages 9–18', test: (p: number) => p >= 9 },
  ]
  for (const strategy of Object.keys(BUDGETS) as StrategyName[]) {
    const mine = outcomes.filter((o) => o.strategy === strategy)
    const budget = BUDGETS[strategy]
    const groups = [
      ...BUCKETS.map((b) => ({ name: `offset ${b.name}`, of: mine.filter((o) => o.question.offset >= b.from && o.question.offset < b.to) })),
      ...pdfGroups.map((g) => ({ name: g.name, of: mine.filter((o) => o.question.pdfPage !== undefined && g.test(o.question.pdfPage)) })),
    ]
    for (const group of groups) {
      const recall = share(group.of.map((o) => ({ ok: o.reached })))
      rows.push({
        strategy,
        measure: `evidence recall, ${group.name}`,
        questions: group.of.length,
        value: round(recall, 3),
        fromStart: round(share(group.of.map((o) => ({ ok: fromStart(o.question, budget) }))), 3),
        target: `≥ ${TARGET}`,
        met: recall >= TARGET,
      })
    }
    const hard = harder.filter((o) => o.strategy === strategy)
    rows.push({
      strategy,
      measure: 'context: evidence recall, asked by the 4 most common content words instead',
      questions: hard.length,
      value: round(share(hard.map((o) => ({ ok: o.reached }))), 3),
      fromStart: '',
      target: '',
    })
    const accuracy = share(mine.map((o) => ({ ok: o.cited })))
    rows.push({
      strategy,
      measure: 'citation accuracy',
      questions: mine.length,
      value: round(accuracy, 3),
      fromStart: '',
      target: `≥ ${TARGET}`,
      met: accuracy >= TARGET,
    })
    const shown = mine.flatMap((o) => o.shown)
    const most = Math.max(0, ...shown)
    rows.push({
      strategy,
      measure: `characters shown per read (max; mean ${round(shown.reduce((a, b) => a + b, 0) / Math.max(1, shown.length), 0)}, ${shown.length} reads)`,
      questions: mine.length,
      value: most,
      fromStart: '',
      target: `≤ ${budget}`,
      met: most <= budget,
    })
  }
  const missed = outcomes
    .filter((o) => !o.reached || !o.cited)
    .map((o) => ({
      strategy: o.strategy,
      page: o.question.page.name,
      pdfPage: o.question.pdfPage,
      offset: o.question.offset,
      question: o.question.question,
      reached: o.reached,
      cited: o.cited,
    }))
  return {
    name: 'evidence',
    rows,
    details: {
      questions: questions.length,
      pages: corpus.map((p) => ({
        name: p.name,
        chars: p.page.text.length,
        pages: p.page.pageStarts?.length,
        questions: questions.filter((q) => q.page === p).length,
      })),
      missed,
    },
  }
}
