/**
 * The `react` strategy's flat context over 20 steps, beside append-everything loops: each step
 * the scripted model searches a new query and reads a page (3,000 characters) from the last
 * results. Request size is `estimateTokens(requestText(req))` of each model call: the system
 * prompt, the prompt, the turns and the tool specs. Target: every request of the flat run fits
 * an 8k-token model with room for the reply (≤ 8,192 − 1,024 tokens).
 */
import { createAgent } from '../src/agent.js'
import type { LLMRequest } from '../src/core/contracts/providers.js'
import { requestText } from '../src/core/contracts/tool-args.js'
import { generate } from '../src/core/run/generate.js'
import { estimateTokens } from '../src/core/util/text.js'
import { mockFetch, mockSearch, scriptedLLM } from '../src/testing/index.js'
import type { ScriptedReply } from '../src/testing/scripted-llm.js'
import { buildReactPrompt, REACT_SYSTEM, resultsFor, type ReactStep } from './flat-prompts.js'
import type { BenchResult } from './stats.js'

const STEPS = 20
const CONTEXT = 8192
const REPLY = 1024
const QUESTION = 'How did the main European battery makers change their cathode chemistry between 2015 and 2024, and why?'
const query = (i: number) => `cathode chemistry change aspect ${i + 1}`

const page = (url: string) => {
  const sentence = `The report at ${url} covers plant conversions, supply contracts for nickel, lithium and cobalt, and the warranty data behind each switch. `
  return { title: `Report ${url.slice(-12)}`, text: sentence.repeat(Math.ceil(3000 / sentence.length)).slice(0, 3000) }
}

/** A model that, at step i, searches query i and reads the first result of the previous search; it answers at the last step. */
function researcher(): ReturnType<typeof scriptedLLM> {
  return scriptedLLM({
    replies: (req: LLMRequest, i): ScriptedReply => {
      if (req.toolChoice === 'none' || i >= STEPS - 1) return { text: 'They moved to high-nickel and then LFP cells for cost and supply [1].' }
      const calls: { name: string; args: unknown }[] = [{ name: 'search', args: { query: query(i) } }]
      if (i > 0) calls.push({ name: 'read_page', args: { url: resultsFor(query(i - 1))[0]!.url } })
      return { text: `Step ${i + 1}: the next aspect.`, toolCalls: calls }
    },
  })
}

async function reactSizes(contextTokens: number): Promise<number[]> {
  const llm = researcher()
  const search = mockSearch({ results: (q) => resultsFor(q) })
  const urls = Array.from({ length: STEPS }, (_, i) => resultsFor(query(i))[0]!.url)
  const fetcher = mockFetch({ pages: Object.fromEntries(urls.map((url) => [url, page(url)])) })
  const agent = createAgent({ llm, search, fetch: fetcher, strategy: 'react', react: { maxSteps: STEPS, contextTokens, finalAnswer: () => true } })
  const result = await agent.answer(QUESTION)
  if (result.reason !== 'max-iterations' && result.reason !== 'answered') throw new Error(`the react run ended with ${result.reason}`)
  return llm.calls.map((req) => estimateTokens(requestText(req)))
}

/** The append-everything text loop of flat-prompts.ts: every search so far, with all its results, in one prompt. */
async function textLoopSizes(): Promise<number[]> {
  const model = scriptedLLM({ replies: (_, i) => `Thought: something is still missing.\nAction: Search\nQuery: ${query(i)}` })
  const search = mockSearch({ results: (q) => resultsFor(q) })
  const steps: ReactStep[] = []
  for (let i = 0; i < STEPS; i++) {
    const { text } = await generate(model, { system: REACT_SYSTEM, prompt: buildReactPrompt(QUESTION, steps) })
    const next = /Query:\s*(.+)/.exec(text)?.[1]?.trim() ?? QUESTION
    steps.push({ query: next, results: await search.search(next, { limit: 5 }) })
  }
  return model.calls.map((req) => estimateTokens(requestText(req)))
}

function row(loop: string, sizes: readonly number[], targeted: boolean): Record<string, unknown> {
  const largest = Math.max(...sizes)
  return {
    loop,
    calls: sizes.length,
    firstTokens: sizes[0],
    lastTokens: sizes.at(-1),
    largestTokens: largest,
    fitsIn8k: largest <= CONTEXT - REPLY,
    target: targeted ? `≤ ${CONTEXT - REPLY}` : 'baseline',
    met: targeted ? largest <= CONTEXT - REPLY : '',
  }
}

export async function run(): Promise<BenchResult & { details: unknown }> {
  const flat = await reactSizes(6000)
  const appended = await reactSizes(1_000_000_000)
  const textLoop = await textLoopSizes()
  return {
    name: 'react-context',
    rows: [
      row('react, flat context (contextTokens 6000)', flat, true),
      row('react, append everything (no compaction)', appended, false),
      row('append-everything text ReAct (flat-prompts.ts, search only)', textLoop, false),
    ],
    details: { requestTokensPerStep: { flat, appended, textLoop } },
  }
}
