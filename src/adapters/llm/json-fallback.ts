/**
 * Structured output that degrades instead of failing: many OpenAI-compatible servers answer 400
 * to a `json_schema` response format (or to any), so a refused format is retried once as plain
 * JSON mode, then with none. What a server refused is remembered for the adapter's lifetime, and
 * each step down is told through `onRetry` (the run shows it as a `retry` warning). The total
 * parsers read the reply whichever way it was asked for.
 */
import { ProviderError } from '../../core/contracts/laconic-error.js'
import type { LLMChunk, LLMRequest } from '../../core/contracts/providers.js'

const LEVELS = ['schema', 'object', 'none'] as const
type Level = (typeof LEVELS)[number]

/** What one adapter instance has learned about its server. */
export interface JsonSupport {
  level: Level
}

export function jsonSupport(): JsonSupport {
  return { level: 'schema' }
}

export async function* withJsonFallback(req: LLMRequest, support: JsonSupport, call: (req: LLMRequest) => AsyncIterable<LLMChunk>): AsyncGenerator<LLMChunk> {
  let attempt = 1
  while (true) {
    const level = levelFor(req.json, support.level)
    let started = false
    try {
      for await (const chunk of call(level === undefined ? req : { ...req, json: asked(req.json, level) })) {
        started = true
        yield chunk
      }
      return
    } catch (error) {
      if (level === undefined || started || !(error instanceof ProviderError) || error.status !== 400) throw error
      const next = LEVELS[LEVELS.indexOf(level) + 1]
      if (next === undefined) throw error
      if (LEVELS.indexOf(next) > LEVELS.indexOf(support.level)) support.level = next
      req.onRetry?.({
        attempt: attempt++,
        delayMs: 0,
        status: 400,
        reason: `the server refused ${describe(level)} (400); asking again with ${describe(next)}`,
      })
    }
  }
}

/** The format this request will be sent with, or undefined when it asks for none. */
function levelFor(json: LLMRequest['json'], learned: Level): Level | undefined {
  if (json === undefined || json === false) return undefined
  const wanted: Level = json === true ? 'object' : 'schema'
  return LEVELS.indexOf(learned) > LEVELS.indexOf(wanted) ? learned : wanted
}

function asked(json: LLMRequest['json'], level: Level): LLMRequest['json'] {
  return level === 'schema' ? json : level === 'object'
}

function describe(level: Level): string {
  return level === 'schema' ? 'a JSON Schema response format' : level === 'object' ? 'JSON mode' : 'no response format'
}
