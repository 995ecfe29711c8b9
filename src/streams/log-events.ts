import type { ResearchEvent } from '../core/contracts/events.js'
import { redactUrl } from '../core/util/urls.js'

/** A pino, bunyan, winston or console-style logger: `logger.info(fields, message)`. */
export type LogFunction = (fields: Record<string, unknown>, message: string) => void

/** A logger `logEvents()` writes to: `info` is required; `warn`, `error` and `debug` are used when present. */
export interface EventLogger {
  info: LogFunction
  warn?: LogFunction | undefined
  error?: LogFunction | undefined
  debug?: LogFunction | undefined
}

type Level = 'debug' | 'info' | 'warn' | 'error'

interface LogLine {
  level: Level
  message: string
  fields: Record<string, unknown>
}

/** Long texts (facts, plans) are cut so one line stays one line's worth. */
const MAX_TEXT = 200

/**
 * Log a run: one structured line per meaningful event, with `runId`, `seq` and `event`.
 * Answer tokens are not logged one by one: the `answer` line says how many streamed. Costs
 * appear once, on `run-end`. Knowledge and page texts are logged by size, never verbatim, and
 * page URLs lose any credentials they carry.
 * Resolves when the stream ends.
 */
export async function logEvents(events: AsyncIterable<ResearchEvent>, logger: EventLogger): Promise<void> {
  const tokensByRun = new Map<string, number>()
  for await (const event of events) {
    if (event.type === 'answer-token') {
      tokensByRun.set(event.runId, (tokensByRun.get(event.runId) ?? 0) + 1)
      continue
    }
    const line = describe(event, tokensByRun.get(event.runId) ?? 0)
    if (!line) continue
    const log = logger[line.level] ?? logger.info
    log.call(logger, { runId: event.runId, seq: event.seq, event: event.type, ...line.fields }, line.message)
    if (event.type === 'run-end') tokensByRun.delete(event.runId)
  }
}

function describe(event: ResearchEvent, tokens: number): LogLine | undefined {
  switch (event.type) {
    case 'run-start':
      return line('info', `research started: ${cut(event.question)}`, { strategy: event.strategy })
    case 'recall':
      return line('info', `recalled ${event.findings.length} earlier findings`, { findings: event.findings.length })
    case 'plan':
      return line('info', `plan: ${cut(event.text)}`, { queries: event.queries?.length ?? 0 })
    case 'query':
      return line('info', `search: ${cut(event.query)}`, { queryId: event.queryId, depth: event.depth })
    case 'result':
      return line('info', `${event.results.length} results`, { queryId: event.queryId, cached: event.cached ?? false })
    case 'page':
      return line('info', `read ${redactUrl(event.url) ?? event.url}`, { queryId: event.queryId, chars: event.chars })
    case 'fact':
      return line('debug', `fact: ${cut(event.fact.text)}`, {
        factId: event.fact.id,
        sources: event.fact.sources.length,
        supersedes: event.supersedes,
      })
    case 'knowledge-update':
      return line('debug', `knowledge rewritten`, { iteration: event.iteration, chars: event.knowledge.length })
    case 'llm-call':
      return line('debug', `${event.role} call`, {
        model: event.model,
        latencyMs: event.latencyMs,
        inputTokens: event.inputTokens,
        outputTokens: event.outputTokens,
      })
    case 'claim':
      return line('info', `claim ${event.index + 1} ${event.verdict}: ${cut(event.text)}`, {
        claim: event.index,
        verdict: event.verdict,
        citations: event.citations.length,
        score: event.score,
      })
    case 'answer':
      return line('info', event.revised ? 'revised answer ready' : `answer ready`, {
        chars: event.text.length,
        tokens,
        citations: event.citations.length,
        confidence: event.confidence,
      })
    case 'warning':
      return line('warn', event.message, { code: event.code })
    case 'run-end':
      return line(event.reason === 'error' ? 'error' : 'info', `research ended: ${event.reason}`, {
        dollars: event.cost.total,
        inputTokens: event.cost.inputTokens,
        outputTokens: event.cost.outputTokens,
        llmCalls: event.cost.llmCalls,
        searches: event.cost.searches,
        fetches: event.cost.fetches,
        error: event.error,
      })
    case 'cost':
    case 'answer-token':
    // Model text, possibly long: a UI shows it; a log line would only repeat it.
    case 'reasoning-token':
      return undefined
  }
}

function line(level: Level, message: string, fields: Record<string, unknown>): LogLine {
  // Dropping undefined keeps lines short and JSON loggers free of `"x": undefined` noise.
  const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
  return { level, message, fields: defined }
}

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat
}
