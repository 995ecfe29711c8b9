/**
 * What a wire parser makes of one frame (an SSE `data:` payload or an NDJSON line). Parsers
 * are total: bad input becomes a `malformed` step, never an exception.
 */

export type WireStep =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  /** Token counts seen so far; later values replace earlier ones field by field. */
  | ({ type: 'usage' } & UsageCounts)
  /** The model declined to answer; `text` is its explanation when it gave one. */
  | { type: 'refusal'; text: string }
  /** A piece of the tool call at `index`: its first piece carries `id` and `name`. */
  | { type: 'tool-delta'; index: number; id?: string; name?: string; args?: string }
  /** The call at `index` is complete; without an index, every open call is. */
  | { type: 'tool-end'; index?: number }
  /** A tool call delivered whole in one frame (Ollama). */
  | { type: 'tool-whole'; id?: string; name: string; args: string }
  | { type: 'done' }
  /** The provider reported an error inside the stream. */
  | { type: 'error'; message: string; kind?: string; retryable: boolean }
  | { type: 'malformed'; sample: string }

/** Counts a provider reported. Absent means not reported, never zero. */
export interface UsageCounts {
  inputTokens?: number
  outputTokens?: number
  /** Part of `inputTokens` read from the provider's prompt cache. */
  cachedInputTokens?: number
  /** Part of `inputTokens` written to the prompt cache (Anthropic bills these apart). */
  cacheWriteTokens?: number
  cost?: number
}

export type JsonObject = Record<string, unknown>

/** Parse a frame as a JSON object, or say it is malformed. */
export function parseFrame(frame: string): { json: JsonObject } | { malformed: WireStep } {
  try {
    const value: unknown = JSON.parse(frame)
    if (isObject(value)) return { json: value }
  } catch {
    // fall through: report the frame below
  }
  return { malformed: { type: 'malformed', sample: frame.length > 120 ? `${frame.slice(0, 120)}…` : frame } }
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export function objectAt(value: unknown, key: string): JsonObject | undefined {
  const found = isObject(value) ? value[key] : undefined
  return isObject(found) ? found : undefined
}

export function stringAt(value: unknown, key: string): string | undefined {
  const found = isObject(value) ? value[key] : undefined
  return typeof found === 'string' ? found : undefined
}

export function countAt(value: unknown, key: string): number | undefined {
  const found = isObject(value) ? value[key] : undefined
  return typeof found === 'number' && Number.isFinite(found) && found >= 0 ? found : undefined
}

/** Error kinds worth a retry when they arrive before any output (overload, rate limit, 5xx). */
export function isTransientKind(kind: string | number | undefined): boolean {
  if (typeof kind === 'number') return kind === 408 || kind === 429 || kind >= 500
  return kind !== undefined && /overload|rate.?limit|server|internal|unavailable|timeout|api_error/i.test(kind)
}

/** A usage step with only the counts that are present (none present: no step). */
export function usageStep(counts: { [K in keyof UsageCounts]: number | undefined }): WireStep[] {
  const present = Object.fromEntries(Object.entries(counts).filter(([, value]) => value !== undefined)) as UsageCounts
  return Object.keys(present).length === 0 ? [] : [{ type: 'usage', ...present }]
}
