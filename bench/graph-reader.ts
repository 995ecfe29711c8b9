/**
 * Graph-reader wall time against concurrency, on a scripted workload with real timers: a plan
 * naming 4 queries, each of whose answer checks adds one more query (8 nodes), 500 ms per model
 * call and 300 ms per search, no fetch. Each node is search → extractor → answer check.
 *
 * The lower bound for concurrency c comes from the same workload: the plan and the finalizer
 * run alone; exploration takes at least its longest chain of dependent nodes, and at least
 * its model calls spread over c slots and its searches over c others (the run's one limit has a
 * lane of c slots for model calls and one for searches and page reads).
 * Targets: concurrency 4 at least 3× faster than 1, within 1.25× of its bound; ≤ 2 model calls per node.
 */
import { createAgent } from '../src/index.js'
import { graphReader } from '../src/strategies/graph-reader/index.js'
import { extractorSystem, finalizerSystem, neighborSystem, plannerSystem } from '../src/strategies/graph-reader/prompts.js'
import { mockSearch, scriptedLLM } from '../src/testing/index.js'

export const MODEL_MS = 500
export const SEARCH_MS = 300

/** query → the queries its answer check proposes (G8: the workload bench/pipelining.ts streams too). */
export const WORKLOAD: Readonly<Record<string, readonly string[]>> = {
  'first topic': ['first detail'],
  'second topic': ['second detail'],
  'third topic': ['third detail'],
  'fourth topic': ['fourth detail'],
  'first detail': [],
  'second detail': [],
  'third detail': [],
  'fourth detail': [],
}
export const ROOTS = ['first topic', 'second topic', 'third topic', 'fourth topic']
const NODE_MS = SEARCH_MS + 2 * MODEL_MS

/**
 * The workload's critical-path and work lower bound for `concurrency` slots per lane: at most
 * `concurrency` model calls and `concurrency` searches at once. (A node's search holds no slot
 * of the model lane: with pipelining, a node a reply names searches while the reply still
 * streams, so a bound that counted searches as node work would be beaten at concurrency 2.)
 */
function lowerBound(concurrency: number): number {
  const chain = (query: string): number => NODE_MS + Math.max(0, ...(WORKLOAD[query] ?? []).map(chain))
  const longestChain = Math.max(...ROOTS.map(chain))
  const nodes = Object.keys(WORKLOAD).length
  const work = Math.max(nodes * 2 * MODEL_MS, nodes * SEARCH_MS) / concurrency
  return MODEL_MS + Math.max(longestChain, work) + MODEL_MS
}

/** The query a node's extractor or answer-check prompt is about. */
export const queryIn = (prompt: string) => /Results for the search "([^"]*)"/.exec(prompt)?.[1] ?? /Last search: (.*)/.exec(prompt)?.[1] ?? ''

async function runOnce(concurrency: number) {
  const llm = scriptedLLM({
    latencyMs: MODEL_MS,
    replies: (req) => {
      switch (req.system) {
        case plannerSystem:
          return JSON.stringify({ goal: 'g', steps: ['s'], key_elements: ['k'], queries: ROOTS })
        case extractorSystem:
          return JSON.stringify({ facts: [{ text: `A fact found by searching ${queryIn(req.prompt)}`, source: 1 }] })
        case neighborSystem:
          return JSON.stringify({ answerable: false, queries: WORKLOAD[queryIn(req.prompt)] ?? [] })
        case finalizerSystem:
          return 'An answer [1].'
        default:
          return ''
      }
    },
  })
  const search = mockSearch({ delayMs: SEARCH_MS, results: (q) => [{ title: q, url: `https://example.com/${encodeURIComponent(q)}`, snippet: `About ${q}.` }] })
  const agent = createAgent({ llm, search, strategy: graphReader({ concurrency, maxSteps: 8 }) })
  const started = performance.now()
  let explored = 0
  let exploreCalls = 0
  for await (const event of agent.research('What do the topics have in common?')) {
    if (event.type === 'query') explored++
    if (event.type === 'llm-call' && (event.role === 'extractor' || event.role === 'neighbor')) exploreCalls++
  }
  const ranWorkload = [...search.calls].sort().join('|') === Object.keys(WORKLOAD).sort().join('|')
  return { ms: performance.now() - started, explored, ranWorkload, llmCalls: llm.calls.length, exploreCalls, searchPeak: search.inFlight.peak }
}

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[] }> {
  const rows: Record<string, unknown>[] = []
  let serialMs = 0
  for (const concurrency of [1, 2, 4, 8]) {
    const r = await runOnce(concurrency)
    if (concurrency === 1) serialMs = r.ms
    const bound = lowerBound(concurrency)
    rows.push({
      concurrency,
      ms: Math.round(r.ms),
      speedupVs1: Math.round((serialMs / r.ms) * 100) / 100,
      boundMs: bound,
      ratioToBound: Math.round((r.ms / bound) * 100) / 100,
      nodes: r.explored,
      ranWorkload: r.ranWorkload,
      llmCalls: r.llmCalls,
      modelCallsPerNode: Math.round((r.exploreCalls / r.explored) * 100) / 100,
      searchPeak: r.searchPeak,
      ...(concurrency === 4 && {
        target: '≥ 3× faster than 1, ≤ 1.25× bound, ≤ 2 calls/node',
        met: serialMs / r.ms >= 3 && r.ms / bound <= 1.25 && r.exploreCalls / r.explored <= 2,
      }),
    })
  }
  return { name: 'graph-reader', rows }
}
