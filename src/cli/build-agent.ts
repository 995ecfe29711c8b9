/** The model and sources the flags configure, shared by a one-question run, `--serve`, `laconic worker` and `laconic mcp`. */
import type { FetchProvider, LLMProvider, SearchProvider } from '../core/contracts/providers.js'
import { createAgent, strategyNames, type Agent } from '../index.js'
import { agentOptions } from './agent-options.js'
import type { CliOptions } from './args.js'
import type { CliIO } from './io.js'
import { debugLLM } from './debug-llm.js'
import { didYouMean } from './did-you-mean.js'
import { buildLLM } from './llm.js'
import { type CliMemory, openMemory } from './memory.js'
import { loadOptional } from './optional-package.js'
import { buildSources } from './search.js'
import { UsageError } from './usage-error.js'

/** `--strategy NAME` names a registered strategy, or the command stops with the names (and the one meant). */
export function checkStrategy(name: string | undefined): void {
  const known = strategyNames()
  if (name !== undefined && !known.includes(name)) {
    throw new UsageError(`unknown strategy "${name}"${didYouMean(name, known)}: choose one of ${known.join(', ')}`)
  }
}

export interface ConfiguredProviders {
  llm: LLMProvider
  search: SearchProvider
  fetch: FetchProvider | undefined
  /** The local corpus, when `--corpus` gave one: see `Sources.corpus`. */
  corpus?: FetchProvider | undefined
  /** Long-term memory, when `--memory` gave a folder. */
  memory?: CliMemory | undefined
}

/** Builds the providers (checking the model is there); notices go to stderr. */
export async function configuredProviders(options: CliOptions, io: CliIO): Promise<ConfiguredProviders> {
  if (options.mcp?.length) await loadOptional('--mcp', 'mcp', () => import('@modelcontextprotocol/sdk/client/index.js'))
  const sources = await buildSources(options, io.env)
  const built = await buildLLM(options, io.env, io.fetch)
  if (built.notice) io.stderr.write(`laconic: ${built.notice}\n`)
  const secrets = [
    options.apiKey,
    io.env.OPENAI_API_KEY,
    io.env.ANTHROPIC_API_KEY,
    options.braveKey,
    options.tavilyKey,
    io.env.BRAVE_API_KEY,
    io.env.TAVILY_API_KEY,
  ]
  const llm = options.debug ? debugLLM(built.llm, io.stderr, secrets) : built.llm
  const memory = options.memory !== undefined ? await openMemory(options.memory, options.embed, io.env, io.stderr) : undefined
  return { llm, ...sources, ...(memory ? { memory } : {}) }
}

/**
 * One agent per strategy a caller asks for (undefined: the `--strategy` flag's, or the default),
 * all on the configured model and sources. An unknown name throws when that agent is made.
 */
export async function strategyAgents(options: CliOptions, io: CliIO): Promise<(strategy: string | undefined) => Agent> {
  checkStrategy(options.strategy)
  const providers = await configuredProviders(options, io)
  const agents = new Map<string, Agent>()
  return (strategy) => {
    const key = strategy || options.strategy || ''
    let agent = agents.get(key)
    if (!agent) {
      agent = createAgent(agentOptions({ ...options, ...(strategy ? { strategy } : {}) }, providers))
      agents.set(key, agent)
    }
    return agent
  }
}
