/**
 * Graph-reader's own CPU as a run grows: runs of 32 to 2,048 nodes on simulated providers with no
 * latency (graph-reader-context's workload: the plan names 4 queries, every answer check proposes
 * one new one, each node reads 2 pages and files one fact, the condenser merges every 5 facts),
 * no checkpoint store. CPU time (user + system, `process.cpuUsage`) per explored node, after a
 * warm-up run; the median of as many runs of each size as make about 2,048 nodes. Target (issue 35): flat, the largest run's CPU per node within 1.5× of the
 * smallest's (it was 2.3 ms at 32 nodes, 5.4 at 1,024, 9.9 at 2,048: the state copied at every
 * step, and every search's topics recomputed at every answer check).
 */
import { createAgent, type FetchProvider, type LLMProvider, type LLMRequest, type SearchProvider } from '../src/index.js'
import { condenserSystem, extractorSystem, neighborSystem, plannerSystem } from '../src/strategies/graph-reader/prompts.js'
import { queryIn } from './graph-reader.js'
import { median, round, type BenchResult } from './stats.js'

const SIZES = [32, 256, 1024, 2048]
const FLAT = 1.5
const ROOTS = ['cathode chemistry aspect 1', 'cathode chemistry aspect 2', 'cathode chemistry aspect 3', 'cathode chemistry aspect 4']
const sentence = 'The plant switched its cathode line to a high-nickel chemistry after the supply contracts changed. '
const pageText = sentence.repeat(Math.ceil(5000 / sentence.length))
const urlsOf = (query: string) => Array.from({ length: 5 }, (_, i) => `https://example.com/${encodeURIComponent(query)}/${i + 1}`)

/** One run of `nodes` nodes: its CPU and wall time, and the nodes it explored. */
export async function scaleRun(nodes: number): Promise<{ cpuMs: number; wallMs: number; explored: number }> {
  let next = ROOTS.length
  const reply = (req: LLMRequest): string => {
    switch (req.system) {
      case plannerSystem:
        return JSON.stringify({ goal: 'g', steps: ['s'], key_elements: ['cathode', 'chemistry'], queries: ROOTS })
      case extractorSystem:
        return JSON.stringify({ facts: [{ text: `The plant changed its cathode line for ${queryIn(req.prompt)}, and kept the supply contracts.`, source: 1 }] })
      case neighborSystem:
        return JSON.stringify({ answerable: false, queries: [`cathode chemistry aspect ${++next}`] })
      case condenserSystem: {
        const facts = req.prompt.split('\n').filter((line) => line.startsWith('- '))
        return JSON.stringify({ facts: facts.filter((_, i) => i % 5 === 0).map((line) => ({ text: line.slice(2).replace(/( \[\d+\])+$/, ''), sources: [1] })) })
      }
      default:
        return 'The plants moved to high-nickel cathodes [1].'
    }
  }
  // Simulated providers that keep nothing (the testing kit's record every call: memory that
  // would grow with the run and be counted as its cost).
  const llm: LLMProvider = {
    model: 'simulated',
    local: true,
    async *stream(req) {
      const text = reply(req)
      yield { type: 'text', text }
      yield { type: 'usage', inputTokens: 1, outputTokens: 1 }
    },
  }
  const search: SearchProvider = {
    async search(q) {
      return urlsOf(q).map((url, i) => ({ title: `${q} report ${i + 1}`, url, snippet: sentence }))
    },
  }
  const fetch: FetchProvider = { fetch: async (url) => ({ url, title: 'Report', text: pageText }) }
  const agent = createAgent({ llm, search, fetch, strategy: 'graph-reader', graphReader: { maxSteps: nodes, concurrency: 4 } })
  const cpu = process.cpuUsage()
  const started = performance.now()
  let explored = 0
  for await (const event of agent.research('How did European battery makers change their cathode chemistry, and why?')) {
    if (event.type === 'query') explored++
    if (event.type === 'run-end' && event.reason !== 'max-iterations') throw new Error(`the run ended with ${event.reason}`)
  }
  const used = process.cpuUsage(cpu)
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started, explored }
}

/** Runs of each size until about as many nodes as the largest run: the small runs' median is then no single noisy sample. */
const repeatsOf = (nodes: number) => Math.min(16, Math.max(1, Math.round(SIZES[SIZES.length - 1]! / nodes)))

export async function run(): Promise<BenchResult & { details: unknown }> {
  await scaleRun(64)
  const measured: Array<{ nodes: number; cpuMsPerNode: number; wallMs: number; runs: number[] }> = []
  for (const nodes of SIZES) {
    const runs: Array<{ cpuMs: number; wallMs: number; explored: number }> = []
    for (let i = 0; i < repeatsOf(nodes); i++) runs.push(await scaleRun(nodes))
    const perNode = runs.map((r) => r.cpuMs / r.explored)
    measured.push({ nodes: runs[0]!.explored, cpuMsPerNode: median(perNode), wallMs: median(runs.map((r) => r.wallMs)), runs: perNode.map((v) => round(v, 3)) })
  }
  const smallest = measured[0]!.cpuMsPerNode
  const rows = measured.map((m, i) => {
    const ratio = m.cpuMsPerNode / smallest
    return {
      nodes: m.nodes,
      runs: m.runs.length,
      cpuMsPerNode: round(m.cpuMsPerNode, 2),
      wallMs: Math.round(m.wallMs),
      vsSmallest: round(ratio, 2),
      ...(i === measured.length - 1 ? { target: `CPU per node ≤ ${FLAT}× the ${SIZES[0]}-node runs'`, met: ratio <= FLAT } : {}),
    }
  })
  return { name: 'graph-reader-scale', rows, details: { sizes: SIZES, cpuMsPerNodeByRun: Object.fromEntries(measured.map((m) => [m.nodes, m.runs])) } }
}
