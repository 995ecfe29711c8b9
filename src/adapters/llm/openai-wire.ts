/**
 * The OpenAI chat-completions wire: request body and a total parser of one SSE `data` payload.
 */
import type { JsonSchema, LLMRequest } from '../../core/index.js'
import { countAt, isObject, isTransientKind, objectAt, parseFrame, stringAt, usageStep, type WireStep } from './wire-step.js'

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5, ...) refuse `max_tokens` and any
 * `temperature` but the default; other OpenAI-compatible servers expect `max_tokens`.
 */
export function isReasoningModel(model: string): boolean {
  return /^(?:[\w-]+\/)?(?:o\d|gpt-5)/i.test(model)
}

export function openaiBody(model: string, req: LLMRequest, reasoning = isReasoningModel(model)): Record<string, unknown> {
  const messages = [...(req.system ? [{ role: 'system', content: req.system }] : []), { role: 'user', content: req.prompt }]
  return {
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(req.maxTokens !== undefined && (reasoning ? { max_completion_tokens: req.maxTokens } : { max_tokens: req.maxTokens })),
    ...(req.temperature !== undefined && !reasoning && { temperature: req.temperature }),
    ...(req.json !== undefined && req.json !== false && { response_format: responseFormat(req.json) }),
  }
}

function responseFormat(json: true | JsonSchema): Record<string, unknown> {
  if (json === true) return { type: 'json_object' }
  const title = typeof json.title === 'string' ? json.title.replace(/[^\w-]/g, '_').slice(0, 64) : ''
  // Strict mode rejects schemas that allow extra properties, so ask for it only when they do not.
  const strict = json.additionalProperties === false
  return { type: 'json_schema', json_schema: { name: title || 'response', schema: json, ...(strict && { strict }) } }
}

export function parseOpenAIData(data: string): WireStep[] {
  if (data.trim() === '[DONE]') return [{ type: 'done' }]
  const frame = parseFrame(data)
  if ('malformed' in frame) return [frame.malformed]
  const chunk = frame.json
  const error = chunk.error
  if (error !== undefined && error !== null) {
    const message = typeof error === 'string' ? error : (stringAt(error, 'message') ?? JSON.stringify(error))
    const kind = isObject(error) ? (error.code ?? error.type) : undefined
    const kindText = typeof kind === 'string' || typeof kind === 'number' ? kind : undefined
    return [{ type: 'error', message, ...(kindText !== undefined && { kind: String(kindText) }), retryable: isTransientKind(kindText) }]
  }
  const steps: WireStep[] = []
  const choices = Array.isArray(chunk.choices) ? chunk.choices : []
  const delta = objectAt(choices[0], 'delta') ?? objectAt(choices[0], 'message')
  const reasoning = stringAt(delta, 'reasoning_content') ?? stringAt(delta, 'reasoning')
  if (reasoning) steps.push({ type: 'reasoning', text: reasoning })
  const content = stringAt(delta, 'content')
  if (content) steps.push({ type: 'text', text: content })
  const usage = objectAt(chunk, 'usage')
  if (usage) steps.push(...usageStep(countAt(usage, 'prompt_tokens'), countAt(usage, 'completion_tokens'), countAt(usage, 'cost')))
  return steps
}
