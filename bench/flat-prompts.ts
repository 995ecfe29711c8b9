/**
 * Benchmark 4: prompt size over 20 research iterations. The scratchpad rewrites a capped
 * knowledge summary instead of appending, so its prompts should stay flat; an append-everything
 * ReAct loop (written here, as such agents usually are) grows with every result it has seen.
 * Sizes are read from the scripted models' `.calls` (system + prompt, in characters).
 * Target: scratchpad largest / smallest prompt ≤ 1.3 per role over the iterations.
 */
import { createAgent } from '../src/agent.js'
import type { SearchResult } from '../src/core/contracts/providers.js'
import { generate } from '../src/core/run/generate.js'
import { mockSearch, scriptedLLM, type ScriptedLLM } from '../src/testing/index.js'
import { round, type BenchResult } from './stats.js'

const ITERATIONS = 20
const TARGET_RATIO = 1.3
const QUESTION = 'How did the main European battery makers change their cathode chemistry between 2015 and 2024, and why?'

/** Five results per query, snippets of about 280 characters, different for every query. */
export function resultsFor(query: string): SearchResult[] {
  return Array.from({ length: 5 }, (_, i) => ({
    title: `${query} — source ${i + 1}`,
    url: `https://example.com/${encodeURIComponent(query)}/${i + 1}`,
    snippet:
      `Reporting on ${query}: the plant switched lines in stage ${i + 1}, citing cost per kilowatt-hour, ` +
      `supply of nickel and cobalt, and warranty data from fleet operators. Output rose by ${10 + i}% ` +
      `while the share of the older chemistry fell, according to filings reviewed for this article.`,
  }))
}

/** A synthesizer reply well over the scratchpad's knowledge budget (1,500 characters by default). */
function longNotes(query: string): string {
  const sentence = `Notes on ${query}: producers moved toward high-nickel and LFP cells for cost and supply reasons (https://example.com/notes). `
  return sentence.repeat(Math.ceil(3000 / sentence.length))
}

const plannerQuery = (i: number) => `cathode chemistry change aspect ${i + 1}`

export const REACT_SYSTEM = `You are a research agent. Think, then either search or answer.
Reply with "Action: Search" and "Query: <query>", or "Action: Answer" and the answer.`

export interface ReactStep {
  query: string
  results: readonly SearchResult[]
}

/** The append-everything prompt: the question, then every search so far with all its results. */
export function buildReactPrompt(question: string, steps: readonly ReactStep[]): string {
  const history = steps
    .map((step, n) => {
      const results = step.results.map((r, i) => `[${i + 1}] ${r.title}\n${r.url}\n${r.snippet}`).join('\n\n')
      return `Step ${n + 1}\nAction: Search\nQuery: ${step.query}\nObservation:\n${results}`
    })
    .join('\n\n')
  return `Question: ${question}\n\n${history || '(no steps yet)'}\n\nNext step:`
}

/** Largest over smallest; NaN for an empty list. */
export function growthRatio(sizes: readonly number[]): number {
  if (sizes.length === 0) return Number.NaN
  return Math.max(...sizes) / Math.min(...sizes)
}

const promptChars = (model: ScriptedLLM) => model.calls.map((req) => (req.system ?? '').length + req.prompt.length)

async function scratchpadSizes(): Promise<{ planner: number[]; synthesizer: number[] }> {
  const planner = scriptedLLM({ replies: (_, i) => `Action: Search\nQuery: ${plannerQuery(i)}` })
  const synthesizer = scriptedLLM({ replies: (req) => longNotes(/New results for "([^"]*)"/.exec(req.prompt)?.[1] ?? '') })
  const finalizer = scriptedLLM({ replies: ['They moved to high-nickel and LFP cells.'] })
  const search = mockSearch({ results: (query) => resultsFor(query) })
  const agent = createAgent({ models: { planner, synthesizer, finalizer }, search, scratchpad: { maxSteps: ITERATIONS } })
  const result = await agent.answer(QUESTION)
  if (result.reason !== 'max-iterations') throw new Error(`the scratchpad run ended with ${result.reason}, expected max-iterations`)
  return { planner: promptChars(planner), synthesizer: promptChars(synthesizer) }
}

async function reactSizes(): Promise<number[]> {
  const model = scriptedLLM({ replies: (_, i) => `Thought: something is still missing.\nAction: Search\nQuery: ${plannerQuery(i)}` })
  const search = mockSearch({ results: (query) => resultsFor(query) })
  const steps: ReactStep[] = []
  for (let i = 0; i < ITERATIONS; i++) {
    const { text } = await generate(model, { system: REACT_SYSTEM, prompt: buildReactPrompt(QUESTION, steps) })
    const query = /Query:\s*(.+)/.exec(text)?.[1]?.trim() ?? QUESTION
    steps.push({ query, results: await search.search(query, { limit: 5 }) })
  }
  return promptChars(model)
}

function row(loop: string, sizes: readonly number[], targeted: boolean): Record<string, unknown> {
  const ratio = growthRatio(sizes)
  const steady = growthRatio(sizes.slice(1))
  return {
    loop,
    calls: sizes.length,
    firstChars: sizes[0],
    lastChars: sizes.at(-1),
    smallest: Math.min(...sizes),
    largest: Math.max(...sizes),
    ratio: round(ratio, 2),
    // From the second iteration on, the knowledge is no longer empty: the steady state.
    ratioFromIteration2: round(steady, 2),
    target: targeted ? `≤ ${TARGET_RATIO}` : 'baseline',
    met: targeted ? ratio <= TARGET_RATIO : '',
    metFromIteration2: targeted ? steady <= TARGET_RATIO : '',
  }
}

export async function run(): Promise<BenchResult & { details: unknown }> {
  const scratchpad = await scratchpadSizes()
  const react = await reactSizes()
  return {
    name: 'flat-prompts',
    rows: [
      row('scratchpad planner', scratchpad.planner, true),
      row('scratchpad synthesizer', scratchpad.synthesizer, true),
      row('append-everything ReAct', react, false),
    ],
    details: { promptCharsPerIteration: { scratchpadPlanner: scratchpad.planner, scratchpadSynthesizer: scratchpad.synthesizer, react } },
  }
}
