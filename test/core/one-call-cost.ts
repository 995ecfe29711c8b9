/**
 * What a run is charged for one model call, read from its result the way a user reads it: the
 * call's usage reported by a provider of the test's own, priced by the run (the provider's
 * figure, else `pricing`, else the built-in table, else free on this machine, else unknown).
 */
import { type AgentOptions, createAgent, type LLMChunk, type LLMProvider } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'

export type Usage = Omit<Extract<LLMChunk, { type: 'usage' }>, 'type'>

const oneCall: Strategy = {
  name: 'one-call',
  async *run(_question, ctx) {
    const text = yield* ctx.complete('planner', { prompt: 'p' })
    yield { type: 'answer', text, citations: [] }
  },
}

/** A provider of `model` that answers once and reports `usage`. */
export function reporting(model: string | undefined, usage: Usage, local?: boolean): LLMProvider {
  return {
    ...(model !== undefined ? { model } : {}),
    ...(local !== undefined ? { local } : {}),
    async *stream() {
      yield { type: 'text', text: 'ok' }
      yield { type: 'usage', ...usage }
    },
  }
}

/** The dollars a run charges for the call, or `null` when the run counts it as unpriced. */
export async function callDollars(
  model: string | undefined,
  usage: Usage,
  options: { pricing?: AgentOptions['pricing']; local?: boolean } = {},
): Promise<number | null> {
  const run = createAgent({
    llm: reporting(model, usage, options.local),
    strategy: oneCall,
    ...(options.pricing ? { pricing: options.pricing } : {}),
  }).research('q?')
  const { cost, reason } = await run.result
  if (reason !== 'answered' || cost.llmCalls !== 1) throw new Error(`the run ended ${reason} after ${cost.llmCalls} calls`)
  return cost.unpricedCalls > 0 ? null : cost.llm
}

/** Dollars per million tokens of each kind, as a run charges them for `model` (undefined when unpriced). */
export async function chargedRates(model: string, pricing?: AgentOptions['pricing']) {
  const million = 1_000_000
  const rate = async (usage: Usage) => {
    const dollars = await callDollars(model, usage, pricing ? { pricing } : {})
    return dollars === null ? undefined : Math.round(dollars * 1e9) / 1e9
  }
  const input = await rate({ inputTokens: million, outputTokens: 0 })
  if (input === undefined) return undefined
  return {
    input,
    cachedInput: await rate({ inputTokens: million, outputTokens: 0, cachedInputTokens: million }),
    cacheWrite: await rate({ inputTokens: million, outputTokens: 0, cacheWriteTokens: million }),
    output: await rate({ inputTokens: 0, outputTokens: million }),
  }
}
