/**
 * How much of each prompt a provider's prompt cache can reuse. Local servers (llama.cpp,
 * Ollama) skip the prefill of a prompt's prefix that equals the previous prompt's, and OpenAI
 * and Anthropic bill such a prefix at a fraction; both only help if what stays the same across
 * calls of one role comes first. For every call after a role's first, the reuse is the share
 * of its prompt's characters (system, then user prompt) that equal a prefix of the previous
 * same-role call's prompt; the table gives each role's mean over its calls.
 *
 * Workloads: a 20-node graph-reader run (4 planned queries, each answer check proposing one
 * more, concurrency 1 so "previous" is well defined) and a 20-iteration scratchpad run whose
 * synthesizer keeps its notes in order and adds to the end (as its prompt asks), capped at the
 * knowledge budget. Search results: five ~280-character snippets per query.
 * Targets: ≥ 60% for graph-reader extraction and node checks, ≥ 40% for the scratchpad's roles.
 * The details also give, per extraction call, the share of its prompt before its results: what
 * any order of the same text could at most reuse, since the results are new with every search.
 */
import { createAgent } from '../src/agent.js'
import type { LLMRequest } from '../src/core/contracts/providers.js'
import { graphReader } from '../src/strategies/graph-reader/index.js'
import { extractorSystem, finalizerSystem, neighborSystem, plannerSystem } from '../src/strategies/graph-reader/prompts.js'
import { mockSearch, scriptedLLM, type ScriptedLLM } from '../src/testing/index.js'
import { resultsFor } from './flat-prompts.js'
import { mean, round, type BenchResult } from './stats.js'

const NODES = 20
const ITERATIONS = 20
const QUESTION = 'How did the main European battery makers change their cathode chemistry between 2015 and 2024, and why?'

/** Characters `a` and `b` share from their start. */
export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** The whole text a call sends, in the order the provider sees it. */
const promptText = (req: LLMRequest) => `${req.system ?? ''}\n\n${req.prompt}`

/** For each call after the first: the share of its prompt equal to a prefix of the previous one's. */
export function prefixReuse(prompts: readonly string[]): number[] {
  return prompts.slice(1).map((prompt, i) => (prompt.length ? commonPrefixLength(prompt, prompts[i]!) / prompt.length : 0))
}

function row(workload: string, role: string, prompts: readonly string[], target: number | undefined): Record<string, unknown> {
  const shares = prefixReuse(prompts)
  const reuse = mean(shares)
  return {
    workload,
    role,
    calls: prompts.length,
    meanChars: Math.round(mean(prompts.map((p) => p.length))),
    reusePct: round(reuse * 100, 1),
    minPct: round(Math.min(...shares) * 100, 1),
    target: target === undefined ? '' : `≥ ${target * 100}%`,
    met: target === undefined ? '' : reuse >= target,
  }
}

const queryIn = (prompt: string) => /Results for the search "([^"]*)"/.exec(prompt)?.[1] ?? /Last search: (.*)/.exec(prompt)?.[1] ?? ''

async function graphReaderPrompts(): Promise<Record<string, string[]>> {
  const roots = ['cathode chemistry 2015', 'high-nickel cells europe', 'LFP adoption europe', 'cobalt supply battery makers']
  let proposed = 0
  const byRole: Record<string, LLMRequest[]> = { planner: [], extractor: [], neighbor: [], finalizer: [] }
  const llm: ScriptedLLM = scriptedLLM({
    replies: (req) => {
      switch (req.system) {
        case plannerSystem:
          byRole.planner!.push(req)
          return JSON.stringify({ goal: 'g', steps: ['s'], key_elements: ['cathode chemistry', 'NMC', 'LFP', '2015–2024'], queries: roots })
        case extractorSystem: {
          byRole.extractor!.push(req)
          const query = queryIn(req.prompt)
          return JSON.stringify({
            facts: [
              { text: `Filings on ${query} show output of the newer chemistry rose while the older one fell.`, source: 1 },
              { text: `Makers cited cost per kilowatt-hour and nickel supply when discussing ${query}.`, source: 2 },
            ],
          })
        }
        case neighborSystem: {
          byRole.neighbor!.push(req)
          const next = proposed + roots.length < NODES ? [`follow-up ${++proposed} on ${queryIn(req.prompt)}`] : []
          return JSON.stringify({ answerable: false, missing: 'more detail', queries: next })
        }
        case finalizerSystem:
          byRole.finalizer!.push(req)
          return 'They moved to high-nickel and LFP cells [1].'
        default:
          return ''
      }
    },
  })
  const search = mockSearch({ results: (query) => resultsFor(query) })
  const agent = createAgent({ llm, search, strategy: graphReader({ concurrency: 1, maxSteps: NODES, maxPagesPerNode: 0 }) })
  await agent.answer(QUESTION)
  if (byRole.extractor!.length !== NODES) throw new Error(`the graph-reader run explored ${byRole.extractor!.length} nodes, expected ${NODES}`)
  return Object.fromEntries(Object.entries(byRole).map(([role, reqs]) => [role, reqs.map(promptText)]))
}

async function scratchpadPrompts(): Promise<Record<string, string[]>> {
  const planner = scriptedLLM({ replies: (_, i) => `Action: Search\nQuery: cathode chemistry change aspect ${i + 1}` })
  // Keeps the notes it was given and adds one sentence at the end.
  const synthesizer = scriptedLLM({
    replies: (req) => {
      const notes = /Current notes:\n([\s\S]*?)\n\nNew results for/.exec(req.prompt)?.[1] ?? ''
      const query = /New results for "([^"]*)"/.exec(req.prompt)?.[1] ?? ''
      const kept = notes === '(empty)' ? '' : `${notes} `
      return `${kept}Reporting on ${query}, producers moved toward high-nickel and LFP cells for cost and supply (https://example.com/${encodeURIComponent(query)}).`
    },
  })
  const finalizer = scriptedLLM({ replies: ['They moved to high-nickel and LFP cells.'] })
  const search = mockSearch({ results: (query) => resultsFor(query) })
  const agent = createAgent({ models: { planner, synthesizer, finalizer }, search, scratchpad: { maxSteps: ITERATIONS } })
  const result = await agent.answer(QUESTION)
  if (result.reason !== 'max-iterations') throw new Error(`the scratchpad run ended with ${result.reason}, expected max-iterations`)
  return { planner: planner.calls.map(promptText), synthesizer: synthesizer.calls.map(promptText) }
}

/** For each call after the first: the share of its prompt before its search results. */
export function shareBeforeResults(prompts: readonly string[]): number[] {
  return prompts.slice(1).map((prompt) => {
    const at = prompt.indexOf('\n\nResults for the search')
    return at < 0 ? 0 : at / prompt.length
  })
}

export async function run(): Promise<BenchResult & { details: unknown }> {
  const graph = await graphReaderPrompts()
  const beforeResults = shareBeforeResults(graph.extractor!)

  const scratch = await scratchpadPrompts()
  return {
    name: 'prefix-reuse',
    rows: [
      row('graph-reader (20 nodes)', 'extractor', graph.extractor!, 0.6),
      row('graph-reader (20 nodes)', 'neighbor (node check)', graph.neighbor!, 0.6),
      row('scratchpad (20 iterations)', 'planner', scratch.planner!, 0.4),
      row('scratchpad (20 iterations)', 'synthesizer', scratch.synthesizer!, 0.4),
    ],
    details: {
      extractorBeforeResults: { meanPct: round(mean(beforeResults) * 100, 1), perCall: beforeResults.map((x) => round(x, 3)) },
      reusePerCall: {
        extractor: prefixReuse(graph.extractor!).map((x) => round(x, 3)),
        neighbor: prefixReuse(graph.neighbor!).map((x) => round(x, 3)),
        scratchpadPlanner: prefixReuse(scratch.planner!).map((x) => round(x, 3)),
        scratchpadSynthesizer: prefixReuse(scratch.synthesizer!).map((x) => round(x, 3)),
      },
    },
  }
}
