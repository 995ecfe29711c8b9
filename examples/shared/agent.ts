/**
 * The agent the examples run: a local Ollama with DuckDuckGo and page reading by default, or
 * the scripted demo agent (no model, no network) with `--demo`.
 * Set OLLAMA_MODEL to choose the model (default qwen3:4b) and OLLAMA_HOST for another server.
 */
import { createAgent, type Agent, type ResearchResult } from '../../src/index.js'
import { duckduckgo, httpFetch, ollama } from '../../src/adapters/index.js'
import { demoAgent } from '../sse-server/demo.js'

export function exampleAgent(
  argv: readonly string[] = process.argv.slice(2),
  { demoTokenDelayMs = 2 }: { demoTokenDelayMs?: number } = {},
): { agent: Agent; question: string; demo: boolean } {
  const demo = argv.includes('--demo')
  const question = argv.filter((a) => a !== '--demo').join(' ') || 'Who won the 2024 Nobel Prize in Chemistry, and for what?'
  if (demo) return { agent: demoAgent({ tokenDelayMs: demoTokenDelayMs }), question, demo }
  const llm = ollama({ model: process.env.OLLAMA_MODEL ?? 'qwen3:4b', ...(process.env.OLLAMA_HOST ? { host: process.env.OLLAMA_HOST } : {}) })
  return { agent: createAgent({ llm, search: duckduckgo(), fetch: httpFetch(), strategy: 'graph-reader' }), question, demo }
}

/**
 * The closing line of an example: what the run spent, or, when it failed, why and what to do
 * (an unreachable Ollama is the usual first-run problem), never a bare "error".
 */
export function describeEnd(result: ResearchResult): string {
  const dollars = result.cost.unpricedCalls > 0 ? 'cost unknown' : `$${result.cost.total.toFixed(4)}`
  const summary = `${result.reason} · ${dollars} · ${result.cost.llmCalls} model calls · ${result.cost.searches} searches`
  if (result.reason !== 'error') return summary
  const model = process.env.OLLAMA_MODEL ?? 'qwen3:4b'
  return [
    `${summary}: ${result.error?.message ?? 'the run failed'}`,
    `To fix: start Ollama (\`ollama serve\`) and pull the model (\`ollama pull ${model}\`), or point OLLAMA_HOST and OLLAMA_MODEL at yours;`,
    'or try the scripted demo, which needs no model: add --demo.',
  ].join('\n')
}
