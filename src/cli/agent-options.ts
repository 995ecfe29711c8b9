/**
 * The research flags → `AgentOptions`. `--max-steps` and `--concurrency` mean the same thing to
 * every strategy that has such a limit, so each gets them in its own section.
 */
import type { AgentOptions } from '../agent.js'
import type { FetchProvider, LLMProvider, SearchProvider } from '../core/contracts/providers.js'
import type { CliOptions } from './args.js'
import { mcpTools } from '../mcp/mcp-tools.js'
import type { CliMemory } from './memory.js'

export function agentOptions(
  options: CliOptions,
  providers: { llm: LLMProvider; search: SearchProvider; fetch: FetchProvider | undefined; memory?: CliMemory | undefined },
): AgentOptions {
  const { maxSteps, concurrency } = options
  const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T
  return {
    llm: providers.llm,
    search: providers.search,
    ...(providers.fetch ? { fetch: providers.fetch } : {}),
    ...(options.strategy !== undefined ? { strategy: options.strategy } : {}),
    ...(options.price && providers.llm.model !== undefined ? { pricing: { [providers.llm.model]: options.price } } : {}),
    ...(options.maxCost !== undefined ? { budget: { usd: options.maxCost } } : {}),
    ...(options.verify !== undefined ? { verify: options.verify } : {}),
    ...(options.sources !== undefined ? { sources: options.sources } : {}),
    ...(options.language !== undefined ? { language: options.language } : {}),
    ...(providers.memory ? { memory: providers.memory.options } : {}),
    scratchpad: defined({ maxSteps }),
    graphReader: defined({ maxSteps, concurrency }),
    reflect: defined({ maxSteps, concurrency }),
    deep: defined({ maxSteps, concurrency }),
    react: defined({ maxSteps, concurrency, tools: options.mcp?.map((server) => mcpTools(server)) }),
    report: defined({ sections: maxSteps, concurrency }),
  }
}
