/**
 * The Anthropic Messages wire: request body and a total parser of one SSE `data` payload
 * (each payload repeats its event name in `type`).
 */
import type { LLMRequest } from '../../core/index.js'
import { countAt, isTransientKind, objectAt, parseFrame, stringAt, usageStep, type WireStep } from './wire-step.js'

/**
 * With extended thinking (`thinkingBudget` tokens), the API wants `max_tokens` above the budget
 * and no `temperature` but the default; the thinking streams as `reasoning`, never as text.
 */
export function anthropicBody(model: string, maxTokens: number, req: LLMRequest, thinkingBudget?: number): Record<string, unknown> {
  const system = [req.system, req.json ? jsonInstruction(req.json) : undefined].filter(Boolean).join('\n\n')
  const answerTokens = req.maxTokens ?? maxTokens
  return {
    model,
    max_tokens: thinkingBudget ? thinkingBudget + answerTokens : answerTokens,
    ...(system && { system }),
    messages: [{ role: 'user', content: req.prompt }],
    stream: true,
    ...(thinkingBudget ? { thinking: { type: 'enabled', budget_tokens: thinkingBudget } } : {}),
    ...(req.temperature !== undefined && !thinkingBudget && { temperature: req.temperature }),
  }
}

/** The Messages API has no JSON switch, so JSON is asked for in words (with the schema when given). */
function jsonInstruction(json: true | Record<string, unknown>): string {
  const base = 'Reply with a single JSON value and nothing else: no prose, no code fences.'
  return json === true ? base : `${base} It must match this JSON Schema:\n${JSON.stringify(json)}`
}

export function parseAnthropicData(data: string): WireStep[] {
  const frame = parseFrame(data)
  if ('malformed' in frame) return [frame.malformed]
  const event = frame.json
  switch (event.type) {
    case 'message_start': {
      const usage = objectAt(objectAt(event, 'message'), 'usage')
      return usage ? usageSteps(usage) : []
    }
    case 'content_block_delta': {
      const delta = objectAt(event, 'delta')
      if (delta?.type === 'text_delta') return textStep('text', stringAt(delta, 'text'))
      if (delta?.type === 'thinking_delta') return textStep('reasoning', stringAt(delta, 'thinking'))
      return []
    }
    case 'message_delta': {
      const usage = objectAt(event, 'usage')
      const delta = objectAt(event, 'delta')
      const refusal: WireStep[] =
        stringAt(delta, 'stop_reason') === 'refusal' ? [{ type: 'refusal', text: stringAt(objectAt(delta, 'stop_details'), 'explanation') ?? '' }] : []
      return [...(usage ? usageSteps(usage) : []), ...refusal]
    }
    case 'message_stop':
      return [{ type: 'done' }]
    case 'error': {
      const error = objectAt(event, 'error')
      const kind = stringAt(error, 'type')
      return [{ type: 'error', message: stringAt(error, 'message') ?? 'unknown error', ...(kind && { kind }), retryable: isTransientKind(kind) }]
    }
    default:
      return [] // ping, content_block_start/stop, and event types added later
  }
}

/**
 * Cached prompt tokens are reported apart from `input_tokens`; they are input all the same, so
 * `inputTokens` is the sum and the cached parts are named within it.
 */
function usageSteps(usage: Record<string, unknown>): WireStep[] {
  const read = countAt(usage, 'cache_read_input_tokens')
  const write = countAt(usage, 'cache_creation_input_tokens')
  const parts = [countAt(usage, 'input_tokens'), read, write]
  const inputTokens = parts.every((part) => part === undefined) ? undefined : parts.reduce<number>((sum, part) => sum + (part ?? 0), 0)
  return usageStep({
    inputTokens,
    outputTokens: countAt(usage, 'output_tokens'),
    cachedInputTokens: read || undefined,
    cacheWriteTokens: write || undefined,
  })
}

function textStep(type: 'text' | 'reasoning', text: string | undefined): WireStep[] {
  return text ? [{ type, text }] : []
}
