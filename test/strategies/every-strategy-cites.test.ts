/**
 * What every built-in strategy's answer promises about its sources, with one model that does
 * what each prompt asks: the answer cites `[n]`, lists only the sources it cites, each source it
 * cites carries the text the model was shown for it, and long-term memory keeps and recalls it.
 */
import { describe, expect, it, vi } from 'vitest'
import { createAgent, type LLMRequest, type MemoryStore, type ResearchEvent, type SearchResult, strategyNames } from '../../src/index.js'
import { memoryStore, memoryVectorStore } from '../../src/kb/index.js'
import type { CitedAnswerArgs, CitedSource } from '../../src/strategy.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { fakeEmbedder } from '../kb/fake-embeddings.js'
import { roleOf } from '../support/roles.js'

type MemoryEntry = Parameters<MemoryStore['remember']>[0]

/** Every source an answer's `[n]` resolved to, as the strategy gave it to `citedAnswer`. */
const resolved: CitedSource[] = []
vi.mock('../../src/strategies/shared/cited-answer.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/strategies/shared/cited-answer.js')>()
  return {
    ...real,
    citedAnswer: (ctx: Parameters<typeof real.citedAnswer>[0], args: CitedAnswerArgs) =>
      real.citedAnswer(ctx, {
        ...args,
        source: (n) => {
          const source = args.source(n)
          if (source) resolved.push(source)
          return source
        },
      }),
  }
})

const FACT = 'The Eiffel Tower is 330 metres tall'
const QUESTION = 'How tall is the Eiffel Tower?'
const tower: SearchResult = { title: 'Eiffel Tower', url: 'https://tower.example/eiffel', snippet: `${FACT}, antennas included.` }
const corpus: SearchResult[] = [
  { title: 'Paris guide', url: 'https://guide.example/paris', snippet: 'Paris has many museums.' },
  tower,
  { title: 'Lyon', url: 'https://lyon.example/', snippet: 'Lyon is known for its food.' },
]

/** Everything a request shows the model: its prompt and its turns (react's tool results). */
function shown(req: LLMRequest): string {
  const turns = (req.turns ?? []).map((t) => ('content' in t ? t.content : 'text' in t ? t.text : ''))
  return [req.prompt, ...turns].join('\n')
}

/**
 * How the request shows the fact's source: the `[n]` right after the fact on its line (a note,
 * a finding), else the last `[n]` above it (a numbered result); or, for a prompt that asks for
 * URLs, the URL next to it.
 */
function citationOf(req: LLMRequest): string | undefined {
  const text = shown(req)
  const urls = /URLs? in parentheses|source URLs/i.test(req.system ?? '')
  // The first mention of the fact that names its source (a checklist may repeat it bare).
  for (let at = text.indexOf('330 metres'); at >= 0; at = text.indexOf('330 metres', at + 1)) {
    const end = text.indexOf('\n', at)
    const line = text.slice(at, end < 0 ? undefined : end)
    if (urls) {
      const url = /\((https?:\/\/[^)\s]+)\)/.exec(line)?.[1] ?? [...text.slice(0, at).matchAll(/https?:\/\/\S+/g)].at(-1)?.[0]
      if (url) return `(${url})`
      continue
    }
    const n = /\[(\d+)\]/.exec(line)?.[1] ?? [...text.slice(0, at).matchAll(/\[(\d+)\]/g)].at(-1)?.[1]
    if (n) return `[${n}]`
  }
  return undefined
}

/** The fact, cited as the request asks; undefined when the request does not show it. */
const cited = (req: LLMRequest) => {
  const cite = citationOf(req)
  return cite && `${FACT} ${cite}.`
}

/** One model for every role of every built-in strategy, doing what each prompt asks. */
function obedientModel() {
  const search = 'Eiffel Tower height'
  return scriptedLLM({
    replies: (req) => {
      const knows = shown(req).includes('330 metres')
      const n = citationOf(req)?.replace(/\D/g, '')
      switch (roleOf(req.system)) {
        case 'scratchpad planner':
          return knows ? 'Action: Answer' : `Action: Search\nQuery: ${search}`
        case 'scratchpad synthesizer':
        case 'scratchpad finalizer':
        case 'graph-reader finalizer':
        case 'deep summary':
        case 'deep conversational':
        case 'reflect synthesizer':
          return cited(req) ?? 'Nothing is known.'
        case 'graph-reader planner':
          return JSON.stringify({ goal: 'height', steps: ['search'], key_elements: ['height'], queries: [search] })
        case 'graph-reader extractor':
          return JSON.stringify({ facts: n ? [{ text: FACT, source: Number(n) }] : [] })
        case 'graph-reader neighbor':
          return '{"answerable": true}'
        case 'deep planner':
          return knows ? '{"is_complete": true, "reasoning": "covered"}' : JSON.stringify({ is_complete: false, next_question: QUESTION, reasoning: 'needed' })
        case 'deep sub-answer':
          return JSON.stringify({ answer: `${FACT} [${n}].`, confidence: 0.9, facts: [{ text: FACT, sources: [Number(n)] }], need_more: false, queries: [] })
        case 'deep report':
          return JSON.stringify({
            title: 'Height',
            main_findings: [`${FACT} [${n}].`],
            conclusions: [],
            limitations: [],
            recommendations: [],
            sources_summary: `One source [${n}].`,
          })
        case 'reflect queries':
          return JSON.stringify({ queries: [search] })
        case 'reflect reflection':
          return JSON.stringify({ slots: { height: knows ? `330 metres [${n}]` : null }, need_more: !knows, new_queries: knows ? [] : [search] })
        case 'report outline':
          return JSON.stringify({ title: 'Height', sections: [{ title: 'The height', goal: 'how tall it is', questions: [search] }] })
        case 'report facts':
          return JSON.stringify({ facts: n ? [{ text: FACT, sources: [Number(n)] }] : [] })
        case 'report section':
          return cited(req) ?? 'Nothing is known.'
        case 'report introduction':
        case 'report conclusion':
          return 'The tower is tall.'
        case 'react':
          return knows ? (cited(req) ?? '') : { text: '', toolCalls: [{ name: 'search', args: { query: search } }] }
        default:
          throw new Error(`unexpected system prompt: ${req.system}`)
      }
    },
  })
}

async function eventsOf(run: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

/** A real memory (the knowledge base's, in memory), with a promise for each write. */
function watchedMemory() {
  const store = memoryStore({ store: memoryVectorStore(), embed: fakeEmbedder() })
  const entries: MemoryEntry[] = []
  let wrote!: () => void
  const written = new Promise<void>((resolve) => (wrote = resolve))
  const watched: MemoryStore = {
    async remember(entry, options) {
      await store.remember(entry, options)
      entries.push(entry)
      wrote()
    },
    recall: (question, options) => store.recall(question, options),
  }
  return { store: watched, entries, written }
}

describe.each(strategyNames())('%s', (strategy) => {
  it('cites [n] and lists only the source its answer cites, which carries the text the model was shown for it', async () => {
    resolved.length = 0
    // A report streams its sections without `citedAnswer`: the evidence its [n] carries shows as its claims' evidence.
    const report = strategy === 'report'
    const agent = createAgent({ llm: obedientModel(), search: mockSearch({ results: () => corpus }), strategy, ...(report ? { verify: true } : {}) })
    const run = agent.research(QUESTION)
    const events = await eventsOf(run)
    const result = await run.result
    expect(result.answer).toContain(`${FACT} [1].`)
    expect(result.citations).toEqual([{ index: 1, url: tower.url, title: tower.title }])
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ citations: result.citations })
    const evidence = report
      ? (result.claims ?? []).filter((c) => c.citations.includes(1)).map((c) => ({ url: tower.url, text: c.evidence }))
      : resolved.filter((s) => s.url === tower.url)
    expect(evidence.length).toBeGreaterThan(0)
    for (const source of evidence) expect(source.text).toContain('330 metres')
  })

  it('with memory, writes what its answer found, and a second run recalls it and cites its source', async () => {
    const memory = watchedMemory()
    const first = createAgent({ llm: obedientModel(), search: mockSearch({ results: () => corpus }), strategy, memory: { store: memory.store } })
    await eventsOf(first.research(QUESTION))
    await memory.written
    expect(memory.entries[0]?.facts).toContainEqual(expect.objectContaining({ text: expect.stringContaining('330 metres'), url: tower.url }))

    // The second run finds nothing by searching: what it knows, it recalled.
    const second = createAgent({ llm: obedientModel(), search: mockSearch({ results: () => [] }), strategy, memory: { store: memory.store } })
    const events = await eventsOf(second.research('What is the height of the Eiffel Tower?'))
    const recall = events.find((e) => e.type === 'recall')
    expect(recall?.type === 'recall' && recall.findings.map((f) => f.url)).toContain(tower.url)
    const answer = events.find((e) => e.type === 'answer')
    expect(answer).toMatchObject({ citations: [{ index: 1, url: tower.url }] })
    expect(answer?.type === 'answer' && answer.text).toContain('330 metres')
  })
})
