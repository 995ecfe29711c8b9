/**
 * The `report` strategy (issue 39): a 10-section report with simulated providers of realistic
 * latency: each model call waits 300 ms for its first token, then streams a 4-character token
 * every 6 ms (~170 tokens a second); a search takes 400 ms, a page read 300 ms.
 *
 * Row 1 (timing): the same report at `concurrency` 4 and at 1 (its sections written one after
 * another), 200 words a section. Targets: the whole run at 4 takes ≤ 0.4× the run at 1, and the
 * first section's first token reaches the consumer before the last section's research ends
 * (the last extractor call of the run has returned).
 *
 * Row 2 (size): a 10-section report of 500 words a section (~5,000 words) at `contextTokens`
 * 8,000, with long pages read (3 a section, 8,000 characters shown each, more than fits), no
 * latency. Target: the largest request (system text + prompt, estimated at 4 characters a
 * token, + the reply it asks for) ≤ 8,000.
 */
import { createAgent, type LLMRequest, type ResearchEvent, type SearchResult } from '../src/index.js'
import { estimateTokens } from '../src/strategy.js'
import { mockFetch, mockSearch, scriptedLLM } from '../src/testing/index.js'
import { round, type BenchResult } from './stats.js'

const SECTIONS = 10
const FIRST_TOKEN_MS = 300
const TOKEN_MS = 6
const SEARCH_MS = 400
const FETCH_MS = 300
const CONTEXT_TOKENS = 8000

const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i % 17}`).join(' ')
const sectionOf = (req: LLMRequest) => Number(/^Section: Part (\d+)$/m.exec(req.prompt ?? '')?.[1] ?? -1)

const outline = JSON.stringify({
  title: 'Ten parts of one question',
  sections: Array.from({ length: SECTIONS }, (_, k) => ({
    title: `Part ${k}`,
    goal: `what part ${k} establishes`,
    questions: [`part ${k} evidence`, `part ${k} figures`],
  })),
})

function providers(options: { latency: boolean; sectionWords: number; pages: boolean }) {
  const timing = options.latency ? { latencyMs: FIRST_TOKEN_MS, tokenDelayMs: TOKEN_MS, chunkSize: 4 } : { chunkSize: 400 }
  const results = (query: string): SearchResult[] => {
    const k = /part (\d+)/.exec(query)?.[1] ?? 'q'
    return Array.from({ length: 5 }, (_, i) => ({
      title: `Source ${k}.${i}`,
      url: `https://s${k}-${i}.example/${query.replace(/\W+/g, '-')}`,
      snippet: words(40, `snip${k}${i}`),
    }))
  }
  const search = mockSearch({ results, delayMs: options.latency ? SEARCH_MS : 0 })
  const pages: Record<string, string> = {}
  if (options.pages) {
    for (let k = 0; k < SECTIONS; k++)
      for (const query of [`part ${k} evidence`, `part ${k} figures`])
        for (const r of results(query)) pages[r.url] = `# ${r.title}\n\n${words(6000, `page${k}`)}.`
  }
  const fetch = mockFetch({ pages, delayMs: options.latency ? FETCH_MS : 0 })
  const planner = scriptedLLM({ replies: () => outline, ...timing })
  const extractor = scriptedLLM({
    replies: (req) => JSON.stringify({ facts: [1, 2, 3].map((n) => ({ text: `Part ${sectionOf(req)} fact ${n} from its sources.`, sources: [n] })) }),
    ...timing,
  })
  const finalizer = scriptedLLM({
    replies: (req) => {
      const k = sectionOf(req)
      if (k < 0) return `${words(80, 'frame')}.`
      const sentences = Math.ceil(options.sectionWords / 10)
      return Array.from({ length: sentences }, (_, i) => `${words(9, `part${k}w`)} [${(i % 3) + 1}].`).join(' ')
    },
    ...timing,
  })
  return { search, fetch, planner, extractor, finalizer }
}

async function runReport(options: { concurrency: number; latency: boolean; sectionWords: number; pages: boolean }) {
  const p = providers(options)
  const agent = createAgent({
    models: { planner: p.planner, extractor: p.extractor, finalizer: p.finalizer },
    search: p.search,
    ...(options.pages ? { fetch: p.fetch } : {}),
    strategy: 'report',
    report: {
      sections: SECTIONS,
      concurrency: options.concurrency,
      sectionWords: options.sectionWords,
      contextTokens: CONTEXT_TOKENS,
      ...(options.pages ? { readPages: 3, pageChars: 8000 } : { readPages: 0 }),
    },
  })
  const started = performance.now()
  const at = (event: ResearchEvent) => ({ event, ms: performance.now() - started })
  const seen: { event: ResearchEvent; ms: number }[] = []
  const run = agent.research('What are the ten parts of this question?')
  for await (const event of run) seen.push(at(event))
  const result = await run.result
  const wallMs = performance.now() - started
  const firstSectionToken = seen.find((s) => s.event.type === 'answer-token' && s.event.section === 0)?.ms ?? Number.NaN
  const extractorCalls = seen.filter((s) => s.event.type === 'llm-call' && s.event.role === 'extractor')
  const lastResearchEnd = extractorCalls.at(-1)?.ms ?? Number.NaN
  const requests = [...p.planner.calls, ...p.extractor.calls, ...p.finalizer.calls]
  const sizes = requests.map((req) => estimateTokens(`${req.system ?? ''}${req.prompt ?? ''}`) + (req.maxTokens ?? 0))
  return {
    result,
    wallMs,
    firstSectionToken,
    lastResearchEnd,
    largestRequest: Math.max(...sizes),
    largestPrompt: Math.max(...requests.map((req) => estimateTokens(`${req.system ?? ''}${req.prompt ?? ''}`))),
    words: result.answer.split(/\s+/).filter(Boolean).length,
    modelPeak: Math.max(p.extractor.inFlight.peak, p.finalizer.inFlight.peak),
  }
}

export async function run(): Promise<BenchResult & { details?: unknown }> {
  const together = await runReport({ concurrency: 4, latency: true, sectionWords: 200, pages: false })
  const oneByOne = await runReport({ concurrency: 1, latency: true, sectionWords: 200, pages: false })
  const ratio = together.wallMs / oneByOne.wallMs
  const size = await runReport({ concurrency: 4, latency: false, sectionWords: 500, pages: true })
  return {
    name: 'report',
    rows: [
      {
        reading: `10 sections, 200 words each: concurrency 4 vs 1 (wall ms)`,
        concurrency4Ms: Math.round(together.wallMs),
        concurrency1Ms: Math.round(oneByOne.wallMs),
        ratio: round(ratio, 3),
        target: '≤ 0.4',
        met: ratio <= 0.4 && together.result.reason === 'answered' && oneByOne.result.reason === 'answered',
      },
      {
        reading: 'first token of section 0 vs end of the last section research (ms, concurrency 4)',
        firstSectionTokenMs: Math.round(together.firstSectionToken),
        lastResearchEndMs: Math.round(together.lastResearchEnd),
        target: 'first < last',
        met: together.firstSectionToken < together.lastResearchEnd,
      },
      {
        reading: `10 sections, 500 words each, long pages read: largest request (est. tokens, prompt + reply asked)`,
        words: size.words,
        largestRequest: size.largestRequest,
        largestPrompt: size.largestPrompt,
        contextTokens: CONTEXT_TOKENS,
        target: '≤ contextTokens',
        met: size.largestRequest <= CONTEXT_TOKENS && size.result.reason === 'answered',
      },
    ],
    details: { modelCallsInFlightPeak: together.modelPeak, reportWords: { timing: together.words, size: size.words } },
  }
}
