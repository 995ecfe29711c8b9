/**
 * The agent the examples run, from their command line:
 *
 *   --demo                                   the scripted demo agent: no model, no network
 *   (nothing)                                a local Ollama (OLLAMA_MODEL, default qwen3:4b; OLLAMA_HOST)
 *   --backend openai --endpoint URL --model NAME
 *                                            any OpenAI-compatible server (llama.cpp, LM Studio,
 *                                            vLLM, OpenAI itself; the key from OPENAI_API_KEY)
 *
 * with DuckDuckGo and page reading. `--verify annotate|revise|off` checks each cited sentence of
 * the answer against its sources (the default is the caller's: the chat turns it on). `--port N`
 * is left to the servers; every other word is the question.
 */
import { parseArgs } from 'node:util'
import { createAgent, type Agent, type LLMProvider, type ResearchResult, type AgentOptions } from '../../src/index.js'
// What `laconic-research/adapters` is on Node: the adapters with Node's parts installed.
import { duckduckgo, httpFetch, ollama, openai } from '../../src/node/adapters-entry.js'
import { demoAgent } from '../sse-server/demo.js'

type VerifyMode = NonNullable<AgentOptions['verify']>

export interface ExampleAgent {
  agent: Agent
  question: string
  demo: boolean
  /** The model the agent runs on; undefined for the demo. */
  llm: LLMProvider | undefined
  /** What the agent runs on, in a few words: `scripted demo`, `Ollama qwen3:4b at http://localhost:11434 + DuckDuckGo`. */
  label: string
  /** The model server, in a few words: `Ollama qwen3:4b at http://localhost:11434`. */
  model: string
  /** What to do when the model server cannot be reached: the servers show it to their page. */
  fix: string
  /** `--port N`, when given. */
  port: number | undefined
}

type Env = Readonly<Record<string, string | undefined>>

const DEMO_FIX = 'try the scripted demo, which needs no model: add --demo'

export function exampleAgent(
  argv: readonly string[] = process.argv.slice(2),
  { demoTokenDelayMs = 2, env = process.env, verify: verifyDefault = false }: { demoTokenDelayMs?: number; env?: Env; verify?: VerifyMode } = {},
): ExampleAgent {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      demo: { type: 'boolean' },
      backend: { type: 'string' },
      endpoint: { type: 'string' },
      model: { type: 'string', short: 'm' },
      'api-key': { type: 'string' },
      port: { type: 'string' },
      verify: { type: 'string' },
    },
  })
  const verify = verifyFlag(values.verify, verifyDefault)
  const question = positionals.join(' ') || 'Who won the 2024 Nobel Prize in Chemistry, and for what?'
  const port = values.port === undefined ? undefined : Number(values.port)
  if (values.demo) {
    const label = 'scripted demo'
    return {
      agent: demoAgent({ tokenDelayMs: demoTokenDelayMs, verify }),
      question,
      demo: true,
      llm: undefined,
      label,
      model: label,
      fix: 'the demo needs no model',
      port,
    }
  }
  const { llm, where, fix } = exampleModel(values, env)
  const agent = createAgent({ llm, search: duckduckgo(), fetch: httpFetch(), strategy: 'graph-reader', verify })
  return { agent, question, demo: false, llm, label: `${where} + DuckDuckGo`, model: where, fix, port }
}

/** `--verify annotate|revise|off`, or the caller's default. */
function verifyFlag(value: string | undefined, fallback: VerifyMode): VerifyMode {
  if (value === undefined) return fallback
  if (value === 'off') return false
  if (value === 'annotate' || value === 'revise') return value
  throw new Error(`--verify must be annotate, revise or off; got "${value}"`)
}

/** The model of `--backend ollama|openai`, where it is, and what to do when it cannot be reached. */
function exampleModel(flags: { backend?: string; endpoint?: string; model?: string; 'api-key'?: string }, env: Env) {
  const backend = flags.backend ?? 'ollama'
  if (backend === 'ollama') {
    const model = flags.model ?? env.OLLAMA_MODEL ?? 'qwen3:4b'
    const host = (flags.endpoint ?? env.OLLAMA_HOST ?? 'http://localhost:11434').replace(/\/+$/, '')
    return {
      llm: ollama({ model, host }),
      where: `Ollama ${model} at ${host}`,
      fix:
        `start Ollama (\`ollama serve\`) and pull the model (\`ollama pull ${model}\`), or point OLLAMA_HOST and OLLAMA_MODEL at yours; ` +
        `or use an OpenAI-compatible server: --backend openai --endpoint URL --model NAME; or ${DEMO_FIX}.`,
    }
  }
  if (backend === 'openai') {
    const model = flags.model
    if (!model) throw new Error('--backend openai needs --model NAME (the model the server serves, e.g. gpt-4o-mini)')
    const endpoint = flags.endpoint ?? 'https://api.openai.com/v1'
    // A bare host (`http://localhost:8080`) means its `/v1`, as the CLI reads it.
    const baseURL = new URL(endpoint).pathname.replace(/\/+$/, '') === '' ? `${endpoint.replace(/\/+$/, '')}/v1` : endpoint
    const apiKey = flags['api-key'] ?? env.OPENAI_API_KEY
    if (!apiKey && new URL(baseURL).hostname === 'api.openai.com')
      throw new Error('api.openai.com needs a key: set OPENAI_API_KEY (or --endpoint URL for a local server)')
    return {
      llm: openai({ baseURL, model, ...(apiKey ? { apiKey } : {}) }),
      where: `${model} at ${baseURL}`,
      fix: `start the OpenAI-compatible server at ${baseURL} with the model ${model} (or pass --endpoint URL for yours; OPENAI_API_KEY for a hosted one); or ${DEMO_FIX}.`,
    }
  }
  throw new Error(`--backend must be ollama or openai; got "${backend}"`)
}

/**
 * The closing line of an example: what the run spent, or, when it failed, why and what to do
 * (an unreachable model server is the usual first-run problem), never a bare "error".
 */
export function describeEnd(result: ResearchResult, fix: string): string {
  const dollars = result.cost.unpricedCalls > 0 ? 'cost unknown' : `$${result.cost.total.toFixed(4)}`
  const summary = `${result.reason} · ${dollars} · ${result.cost.llmCalls} model calls · ${result.cost.searches} searches`
  if (result.reason !== 'error') return summary
  return [`${summary}: ${result.error?.message ?? 'the run failed'}`, `To fix: ${fix}`].join('\n')
}
