/**
 * What a knowledge base and long-term memory spend inside a run is the run's: the query's
 * embedding, the reranker's model call and the recall's embedding land in its `cost` events and
 * its result, priced as its own model calls are. A memory write comes after `run-end`, so it is
 * told to `memory.onWrite` instead.
 */
import { describe, expect, it } from 'vitest'
import type { EmbeddingProvider } from '../../src/index.js'
import { type Cost, createAgent, type ResearchEvent, type SearchProvider } from '../../src/index.js'
import { knowledgeBase, memoryStore, memoryVectorStore, modelReranker } from '../../src/kb/index.js'
import { assertEventInvariants, scriptedLLM } from '../../src/testing/index.js'
import { fakeVector } from './fake-embeddings.js'

/** OpenAI's small embedding model ($0.02 per million tokens in the price table), 1,000 tokens a text, reporting no dollars. */
function tableEmbedder(): EmbeddingProvider & { texts: string[] } {
  const texts: string[] = []
  return {
    model: 'text-embedding-3-small',
    texts,
    async embed(batch) {
      texts.push(...batch)
      return { vectors: batch.map((text) => fakeVector(text, 64)), inputTokens: 1000 * batch.length }
    },
  }
}
const DOLLARS_PER_TEXT = (1000 * 0.02) / 1_000_000

async function eventsOf(run: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

const endCost = (events: readonly ResearchEvent[]): Cost => {
  const end = events.at(-1)
  if (end?.type !== 'run-end') throw new Error('no run-end')
  return end.cost
}

describe("a run's cost", () => {
  it("counts long-term memory's recall: the question's embedding, after the recall event", async () => {
    const embed = tableEmbedder()
    const store = memoryStore({ store: memoryVectorStore(), embed })
    await store.remember({
      runId: 'earlier',
      question: 'What is the capital of France?',
      answer: 'Paris is the capital of France [1].',
      facts: [{ text: 'Paris is the capital of France.', url: 'https://fr.example/' }],
      at: new Date(0).toISOString(),
    })
    const agent = createAgent({
      models: { planner: scriptedLLM({ replies: ['Action: Answer'], cost: 0.001 }), synthesizer: scriptedLLM({ replies: ['Paris [1].'], cost: 0.001 }) },
      search: { search: async () => [] },
      memory: { store },
    })
    const events = await eventsOf(agent.research('How big is Paris?'))

    expect(events.slice(1, 3)).toMatchObject([
      { type: 'recall', findings: [{ text: 'Paris is the capital of France.' }] },
      { type: 'cost', delta: { embedding: DOLLARS_PER_TEXT, embeddingTokens: 1000, llmCalls: 0 } },
    ])
    const cost = endCost(events)
    expect(cost).toMatchObject({ embeddingTokens: 1000, llmCalls: 2, unpricedCalls: 0 })
    expect(cost.embedding).toBeCloseTo(DOLLARS_PER_TEXT, 12)
    expect(cost.total).toBeCloseTo(0.002 + DOLLARS_PER_TEXT, 12)
  })

  it("counts a knowledge base's query embeddings and its model reranker's calls", async () => {
    const embed = tableEmbedder()
    const reranker = scriptedLLM({ replies: ['[2, 1]', '[1, 2]'], model: 'ranker', cost: 0.01 })
    const kb = knowledgeBase({ store: memoryVectorStore(), embed, reranker: modelReranker(reranker) })
    await kb.index([
      { url: 'https://kb.example/shearing', title: 'Shearing', text: 'Llamas are shorn in spring.' },
      { url: 'https://kb.example/food', title: 'Food', text: 'Llamas eat hay and grass in spring.' },
    ])
    const indexed = embed.texts.length
    const agent = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: llama spring', 'Action: Search\nQuery: llama hay', 'Action: Answer'], cost: 0.001 }),
        synthesizer: scriptedLLM({ replies: ['Spring [1].', 'Hay [2].', 'In spring [1].'], cost: 0.001 }),
      },
      search: kb,
      fetch: kb,
    })
    const events = await eventsOf(agent.research('When are llamas shorn?'))

    // Two searches: a query embedded and a reranker call each; indexing is not the run's.
    expect(embed.texts.slice(indexed)).toEqual(['llama spring', 'llama hay'])
    expect(reranker.calls).toHaveLength(2)
    expect(events.filter((e) => e.type === 'llm-call' && e.role === 'reranker')).toMatchObject([{ model: 'ranker' }, { model: 'ranker' }])
    const cost = endCost(events)
    const modelCalls = events.filter((e) => e.type === 'llm-call').length
    expect(cost).toMatchObject({ embeddingTokens: 2000, llmCalls: modelCalls, searches: 2, unpricedCalls: 0 })
    expect(cost.embedding).toBeCloseTo(2 * DOLLARS_PER_TEXT, 12)
    expect(cost.llm).toBeCloseTo(0.02 + 0.001 * (modelCalls - 2), 12)
    expect(cost.total).toBeCloseTo(cost.llm + cost.embedding, 12)
  })

  it('counts what a search reported before the run was aborted, though the search never returned', async () => {
    let reported!: () => void
    const usageReported = new Promise<void>((resolve) => (reported = resolve))
    const search: SearchProvider = {
      search: (_query, opts = {}) =>
        new Promise((_, reject) => {
          opts.onUsage?.({ kind: 'embedding', model: 'text-embedding-3-small', inputTokens: 500, cost: 0.5 })
          reported()
          opts.signal?.addEventListener('abort', () => reject(opts.signal?.reason))
        }),
    }
    const agent = createAgent({ models: { planner: scriptedLLM({ replies: ['Action: Search\nQuery: anything'], cost: 0.001 }) }, search })
    const run = agent.research('What happens?')
    void usageReported.then(() => run.abort())
    const events = await eventsOf(run)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted', cost: { embedding: 0.5, embeddingTokens: 500 } })
    expect((await run.result).cost.total).toBeCloseTo(0.501, 12)
  })

  it('stops exploring near the budget on what searches spent on embeddings, the models being free', async () => {
    const search: SearchProvider = {
      search: async (query, opts = {}) => {
        opts.onUsage?.({ kind: 'embedding', model: 'text-embedding-3-small', inputTokens: 100, cost: 0.03 })
        return [{ title: query, url: `https://example.org/${encodeURIComponent(query)}`, snippet: 'Something about it.' }]
      },
    }
    const planner = scriptedLLM({ replies: (_req, n) => `Action: Search\nQuery: topic ${n}`, cost: 0 })
    const agent = createAgent({
      models: { planner, synthesizer: scriptedLLM({ replies: (_req, n) => `Knowledge ${n} [1].`, cost: 0 }) },
      search,
      scratchpad: { maxSteps: 20 },
      budget: { usd: 0.1 },
    })
    const events = await eventsOf(agent.research('What is it?'))
    expect(events.filter((e) => e.type === 'warning').map((e) => e.code)).toContain('budget')
    // $0.03 a search: the budget is near after the third or fourth, where free models alone would go on to 20.
    expect(events.filter((e) => e.type === 'query').length).toBeLessThanOrEqual(4)
    expect(endCost(events).embedding).toBeGreaterThanOrEqual(0.09 - 1e-9)
  })

  it('says the cost is unknown when an embedder reports no price and none is known for its model', async () => {
    const unknown: SearchProvider = {
      search: async (_query, opts = {}) => {
        opts.onUsage?.({ kind: 'embedding', model: 'private-embedder', inputTokens: 10 })
        return []
      },
    }
    const agent = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: x', 'Action: Answer'], cost: 0 }),
        synthesizer: scriptedLLM({ replies: ['-'], cost: 0 }),
      },
      search: unknown,
    })
    expect((await agent.answer('x?')).cost).toMatchObject({ unpricedCalls: 1, embeddingTokens: 10, embedding: 0 })
    // The agent's pricing prices it (input tokens).
    const priced = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: x', 'Action: Answer'], cost: 0 }),
        synthesizer: scriptedLLM({ replies: ['-'], cost: 0 }),
      },
      search: unknown,
      pricing: { 'private-embedder': { inputPerMillion: 100_000, outputPerMillion: 0 } },
    })
    expect((await priced.answer('x?')).cost).toMatchObject({ unpricedCalls: 0, embedding: 1 })
  })

  it("tells memory.onWrite what writing a finished run cost, outside the run's result", async () => {
    const embed = tableEmbedder()
    let written!: (report: { cost: Cost; runId: string }) => void
    const write = new Promise<{ cost: Cost; runId: string }>((resolve) => (written = resolve))
    const search: SearchProvider = { search: async () => [{ title: 'France', url: 'https://fr.example/', snippet: 'The capital of France is Paris.' }] }
    const agent = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'], cost: 0 }),
        synthesizer: scriptedLLM({ replies: ['Paris is the capital of France [1].', 'Paris is the capital and largest city of France [1].'], cost: 0 }),
      },
      search,
      memory: { store: memoryStore({ store: memoryVectorStore(), embed }), onWrite: (cost, runId) => written({ cost, runId }) },
    })
    const run = agent.research('What is the capital of France?')
    const result = await run.result
    // The store was empty: the recall embedded nothing, so the run spent no embedding.
    expect(result.cost).toMatchObject({ embedding: 0, embeddingTokens: 0 })
    const report = await write
    expect(report.runId).toBe(run.runId)
    expect(report.cost).toMatchObject({ embeddingTokens: 1000, llmCalls: 0, unpricedCalls: 0 })
    expect(report.cost.embedding).toBeCloseTo(DOLLARS_PER_TEXT, 12)
  })
})
