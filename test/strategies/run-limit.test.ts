/**
 * One limit per run, a lane per kind of request: whatever the strategy, a run's model calls in
 * flight at once never exceed its `concurrency`, nor do its searches and page fetches. Every
 * request waits at the provider until fast-check's scheduler releases it, so each run explores
 * one order of completions: no timing.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type FetchProvider, type LLMProvider, type LLMRequest, type ResearchEvent, type SearchProvider } from '../../src/index.js'
import { createMerge, type Strategy, type StrategyEvent } from '../../src/strategy.js'
import { assertEventInvariants, scriptedLLM } from '../../src/testing/index.js'
import { STRATEGIES, world } from '../checkpoints/world.js'

/** Requests in flight at the providers, by lane (model calls; searches and fetches), each held until the scheduler lets it go on. */
function gate(s: fc.Scheduler) {
  const lanes = { model: { inFlight: 0, peak: 0 }, network: { inFlight: 0, peak: 0 } }
  const enter = (lane: keyof typeof lanes) => {
    lanes[lane].inFlight++
    lanes[lane].peak = Math.max(lanes[lane].peak, lanes[lane].inFlight)
  }
  const held = async <T>(work: () => Promise<T>): Promise<T> => {
    enter('network')
    try {
      await s.schedule(Promise.resolve())
      return await work()
    } finally {
      lanes.network.inFlight--
    }
  }
  const llm = (base: LLMProvider): LLMProvider => ({
    ...base,
    async *stream(req) {
      enter('model')
      try {
        await s.schedule(Promise.resolve())
        yield* base.stream(req)
      } finally {
        lanes.model.inFlight--
      }
    },
  })
  const search = (base: SearchProvider): SearchProvider => ({ ...base, search: (query, opts) => held(() => base.search(query, opts)) })
  const fetch = (base: FetchProvider): FetchProvider => ({ fetch: (url, opts) => held(() => base.fetch(url, opts)) })
  return { llm, search, fetch, lanes }
}

const pages: FetchProvider = { fetch: async (url) => ({ url, title: `Page ${url}`, text: `The page at ${url} says something.` }) }

/** Report and react replies (the scripted world covers the other strategies); report's calls are told apart by their system prompts' opening words. */
function moreReplies(req: LLMRequest, index: number): string | { text: string; toolCalls?: { name: string; args: unknown }[] } {
  const system = req.system ?? ''
  if (system.startsWith('You plan a long research report')) {
    return JSON.stringify({
      title: 'T',
      sections: ['alpha', 'beta', 'gamma'].map((topic) => ({ title: topic, goal: `about ${topic}`, questions: [topic, `${topic} more`] })),
    })
  }
  if (system.startsWith('You extract facts for one section')) return '{"facts": [{"text": "A fact", "sources": [1]}]}'
  if (system.startsWith('You write one section')) return 'The section says so [1].'
  if (/^You write the (introduction|conclusion)/.test(system)) return 'In short.'
  // react: three searches at once, then the answer.
  if (req.tools?.length && !/alpha.*beta.*gamma/s.test(req.prompt ?? '') && index < 2) {
    return { text: '', toolCalls: ['alpha', 'beta', 'gamma'].map((query) => ({ name: 'search', args: { query } })) }
  }
  return 'It is alpha [1].'
}

/**
 * A strategy that asks for more than its limit allows at once: `concurrency + 2` model calls,
 * searches and page reads, all started together, so the lanes themselves are what bound them
 * (the built-in strategies mostly pace their own model calls below the limit).
 */
function fanOut(concurrency: number): Strategy {
  return {
    name: 'fan-out',
    concurrency,
    async *run(question, ctx) {
      const merge = createMerge<StrategyEvent>()
      for (let i = 0; i < concurrency + 2; i++) {
        merge.add(
          (async function* () {
            yield* ctx.complete('planner', { prompt: `${question} ${i}` })
          })(),
        )
        merge.add(ctx.runSearch(`alpha ${i}`))
        merge.add(
          (async function* () {
            yield* ctx.readPage(`https://example.com/${i}`)
          })(),
        )
      }
      yield* merge
      const text = yield* ctx.streamAnswer('synthesizer', { prompt: question })
      yield { type: 'answer', text, citations: [{ index: 1, url: 'https://example.com/0' }] }
    },
  }
}

const NAMES = [...STRATEGIES, 'report', 'react', 'fan-out'] as const

describe("a run's one limit", () => {
  it('keeps model calls in flight within the run concurrency, and searches and fetches too, whatever the strategy and order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...NAMES),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom<'annotate' | false>('annotate', false),
        fc.scheduler(),
        async (name, concurrency, seed, verify, s) => {
          const scripted = world(name === 'report' || name === 'react' || name === 'fan-out' ? 'scratchpad' : name, seed)
          let calls = 0
          const more = scriptedLLM({ replies: (req) => moreReplies(req, calls++) })
          // The scripted world answers the four strategies it knows; report's, react's and fan-out's prompts are answered here.
          const base: LLMProvider = {
            ...scripted.llm,
            stream: (req) => (req.tools?.length || name === 'report' || name === 'fan-out' ? more.stream(req) : scripted.llm.stream(req)),
          }
          const g = gate(s)
          const agent = createAgent({
            llm: g.llm(base),
            search: g.search(scripted.search),
            fetch: g.fetch(pages),
            strategy: name === 'fan-out' ? fanOut(concurrency) : name,
            ...(verify ? { verify } : {}),
            graphReader: { concurrency, maxSteps: 5, maxPagesPerNode: 2 },
            reflect: { concurrency, maxSteps: 2 },
            deep: { concurrency, maxSteps: 2, searchesPerQuestion: 2, readPages: 2 },
            report: { concurrency, sections: 3, searchesPerSection: 2, readPages: 2 },
            react: { concurrency, maxSteps: 3 },
          })
          const run = agent.research('What about alpha?')
          const events: ResearchEvent[] = []
          const read = (async () => {
            for await (const event of run) events.push(event)
          })()
          await s.waitFor(read)
          assertEventInvariants(events)
          expect(events.at(-1)).toMatchObject({ type: 'run-end' })
          // scratchpad has no `concurrency` of its own: its runs have the default limit, 4.
          const limit = name === 'scratchpad' ? 4 : concurrency
          expect(g.lanes.model.peak).toBeLessThanOrEqual(limit)
          expect(g.lanes.network.peak).toBeLessThanOrEqual(limit)
          expect(g.lanes.model.inFlight).toBe(0)
          expect(g.lanes.network.inFlight).toBe(0)
        },
      ),
      { numRuns: 60 },
    )
  })
})
