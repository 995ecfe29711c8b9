/**
 * Graph-reader's prompts over 1,000 nodes: the plan names 4 queries and every answer check
 * proposes one new one, each node deep-reads 2 pages (4,000 characters kept) and files one fact;
 * the condenser merges every 5 facts into one. Request size is `estimateTokens(requestText(req))`
 * of each model call, the largest per role. Target: every request within graph-reader's context
 * budget (6,000 tokens; without it the answer check listed every search run so far: 8,620 tokens
 * at 1,000 nodes).
 */
import { createAgent } from '../src/index.js'
import type { LLMRequest } from '../src/core/contracts/providers.js'
import { requestText } from '../src/core/contracts/tool-args.js'
import { estimateTokens } from '../src/core/util/text.js'
import { condenserSystem, extractorSystem, finalizerSystem, neighborSystem, plannerSystem } from '../src/strategies/graph-reader/prompts.js'
import { mockFetch, mockSearch, scriptedLLM } from '../src/testing/index.js'
import { queryIn } from './graph-reader.js'
import type { BenchResult } from './stats.js'

const NODES = 1000
const BUDGET = 6000
const ROOTS = ['cathode chemistry aspect 1', 'cathode chemistry aspect 2', 'cathode chemistry aspect 3', 'cathode chemistry aspect 4']
const ROLES = { planner: plannerSystem, extractor: extractorSystem, 'answer check': neighborSystem, condenser: condenserSystem, finalizer: finalizerSystem }

const sentence = 'The plant switched its cathode line to a high-nickel chemistry after the supply contracts changed. '
const pageText = sentence.repeat(Math.ceil(5000 / sentence.length))

const urlsOf = (query: string) => Array.from({ length: 5 }, (_, i) => `https://example.com/${encodeURIComponent(query)}/${i + 1}`)

/** One graph-reader run of NODES nodes; the estimated tokens of every request, by role. */
async function sizes(): Promise<{ byRole: Record<string, number[]>; searchedChars: number[] }> {
  let next = ROOTS.length
  const searchedChars: number[] = []
  const llm = scriptedLLM({
    replies: (req: LLMRequest) => {
      switch (req.system) {
        case plannerSystem:
          return JSON.stringify({ goal: 'g', steps: ['s'], key_elements: ['cathode', 'chemistry'], queries: ROOTS })
        case extractorSystem:
          return JSON.stringify({
            facts: [{ text: `The plant changed its cathode line for ${queryIn(req.prompt)}, and kept the supply contracts.`, source: 1 }],
          })
        case neighborSystem: {
          const list = /Searches already run:\n([\s\S]*?)\n\nLast search:/.exec(req.prompt)?.[1] ?? ''
          searchedChars.push(list.length)
          return JSON.stringify({ answerable: false, queries: [`cathode chemistry aspect ${++next}`] })
        }
        case condenserSystem: {
          const facts = req.prompt.split('\n').filter((l) => l.startsWith('- '))
          const merged = facts.filter((_, i) => i % 5 === 0).map((line) => ({ text: line.slice(2).replace(/( \[\d+\])+$/, ''), sources: [1] }))
          return JSON.stringify({ facts: merged })
        }
        default:
          return 'The plants moved to high-nickel cathodes [1].'
      }
    },
  })
  const search = mockSearch({ results: (q) => urlsOf(q).map((url, i) => ({ title: `${q} report ${i + 1}`, url, snippet: sentence })) })
  const queries = Array.from({ length: NODES + 8 }, (_, i) => `cathode chemistry aspect ${i + 1}`)
  const fetch = mockFetch({ pages: Object.fromEntries(queries.flatMap(urlsOf).map((url) => [url, { title: 'Report', text: pageText }])) })
  const agent = createAgent({
    llm,
    search,
    fetch,
    strategy: 'graph-reader',
    graphReader: { maxSteps: NODES, concurrency: 4 },
  })
  const result = await agent.answer('How did European battery makers change their cathode chemistry, and why?')
  if (result.reason !== 'max-iterations') throw new Error(`the run ended with ${result.reason}`)
  const byRole: Record<string, number[]> = {}
  for (const [role, system] of Object.entries(ROLES))
    byRole[role] = llm.calls.filter((req) => req.system === system).map((req) => estimateTokens(requestText(req)))
  return { byRole, searchedChars }
}

export async function run(): Promise<BenchResult & { details: unknown }> {
  const { byRole, searchedChars } = await sizes()
  const rows = Object.keys(ROLES).map((role) => {
    const largest = Math.max(...byRole[role]!)
    return { role, calls: byRole[role]!.length, largestTokens: largest, target: `≤ ${BUDGET}`, met: largest <= BUDGET }
  })
  const at = (n: number) => searchedChars[Math.min(n, searchedChars.length) - 1]
  return { name: 'graph-reader-context', rows, details: { nodes: NODES, searchedListChars: { at8: at(8), at512: at(512), at1000: at(1000) } } }
}
