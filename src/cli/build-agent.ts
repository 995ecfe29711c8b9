/** The model and sources the flags configure, shared by a one-question run, `--serve` and `laconic mcp`. */
import type { FetchProvider, LLMProvider, SearchProvider } from '../core/index.js'
import type { CliOptions } from './args.js'
import type { CliIO } from './cli.js'
import { debugLLM } from './debug-llm.js'
import { buildLLM } from './llm.js'
import { buildSources } from './search.js'

export interface ConfiguredProviders {
  llm: LLMProvider
  search: SearchProvider
  fetch: FetchProvider | undefined
}

/** Builds the providers (checking the model is there); notices go to stderr. */
export async function configuredProviders(options: CliOptions, io: CliIO): Promise<ConfiguredProviders> {
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
  return { llm, ...sources }
}
