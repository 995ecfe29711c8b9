/**
 * The OpenAI chat-completions wire: request body and a total parser of one SSE `data` payload.
 */
import type { ChatTurn, JsonSchema, LLMRequest, ToolChoice, ToolSpec } from '../../core/contracts/providers.js'
import { countAt, isObject, isTransientKind, objectAt, parseFrame, stringAt, usageStep, type WireStep } from './wire-step.js'

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5, ...) refuse `max_tokens` and any
 * `temperature` but the default; other OpenAI-compatible servers expect `max_tokens`.
 */
export function isReasoningModel(model: string): boolean {
  return /^(?:[\w-]+\/)?(?:o\d|gpt-5)/i.test(model)
}

export function openaiBody(model: string, req: LLMRequest, reasoning = isReasoningModel(model)): Record<string, unknown> {
  const messages = [
    ...(req.system ? [{ role: 'system', content: req.system }] : []),
    { role: 'user', content: req.prompt },
    ...(req.turns ?? []).map(openaiMessage),
  ]
  return {
    model,
    messages,
    stream: true,
    ...openaiTools(req.tools, req.toolChoice),
    stream_options: { include_usage: true },
    ...(req.maxTokens !== undefined && (reasoning ? { max_completion_tokens: req.maxTokens } : { max_tokens: req.maxTokens })),
    ...(req.temperature !== undefined && !reasoning && { temperature: req.temperature }),
    ...(req.json !== undefined && req.json !== false && { response_format: responseFormat(req.json) }),
  }
}

/** OpenAI's tool list and choice; Ollama takes the same tool list. */
export function openaiTools(tools: readonly ToolSpec[] | undefined, choice: ToolChoice | undefined): Record<string, unknown> {
  if (!tools?.length) return {}
  return {
    tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
    ...(choice !== undefined && { tool_choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } } }),
  }
}

function openaiMessage(turn: ChatTurn): Record<string, unknown> {
  switch (turn.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: turn.text || null,
        ...(turn.toolCalls.length > 0 && {
          tool_calls: turn.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args || '{}' } })),
        }),
      }
    case 'tool':
      return { role: 'tool', tool_call_id: turn.callId, content: turn.content }
    case 'user':
      return { role: 'user', content: turn.text }
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
  steps.push(...contentSteps(delta?.content))
  const refusal = stringAt(delta, 'refusal')
  if (refusal) steps.push({ type: 'refusal', text: refusal })
  const toolCalls = delta?.tool_calls
  if (Array.isArray(toolCalls)) for (const [position, call] of toolCalls.entries()) steps.push(...toolDelta(call, position))
  // Any finish reason closes the calls (`tool_calls`, but also `length` or `stop` from lax servers).
  if (stringAt(choices[0], 'finish_reason')) steps.push({ type: 'tool-end' })
  // Groq has sent its counts under `x_groq.usage`, alone or beside the standard `usage`.
  const usage = objectAt(chunk, 'usage') ?? objectAt(objectAt(chunk, 'x_groq'), 'usage')
  if (usage) {
    steps.push(
      ...usageStep({
        inputTokens: countAt(usage, 'prompt_tokens'),
        outputTokens: countAt(usage, 'completion_tokens'),
        // OpenAI nests it; Moonshot and some proxies put it beside the other counts.
        cachedInputTokens: nonZero(countAt(objectAt(usage, 'prompt_tokens_details'), 'cached_tokens') ?? countAt(usage, 'cached_tokens')),
        cost: countAt(usage, 'cost'),
      }),
    )
  }
  return steps
}

/**
 * `delta.content` is a string, or (Mistral's reasoning models) an array of parts: `text` parts
 * are the answer, `thinking` parts (themselves a string or a list of text parts) are reasoning.
 */
function contentSteps(content: unknown): WireStep[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  if (!Array.isArray(content)) return []
  const steps: WireStep[] = []
  for (const part of content) {
    const kind = stringAt(part, 'type')
    if (kind === 'text') {
      const text = stringAt(part, 'text')
      if (text) steps.push({ type: 'text', text })
    } else if (kind === 'thinking') {
      const text = thinkingText(isObject(part) ? part.thinking : undefined)
      if (text) steps.push({ type: 'reasoning', text })
    }
  }
  return steps
}

function thinkingText(thinking: unknown): string {
  if (typeof thinking === 'string') return thinking
  if (!Array.isArray(thinking)) return ''
  return thinking.map((inner) => (typeof inner === 'string' ? inner : (stringAt(inner, 'text') ?? ''))).join('')
}

const nonZero = (count: number | undefined): number | undefined => (count ? count : undefined)

/** One entry of `delta.tool_calls`; a server that sends no `index` sends its calls in order. */
function toolDelta(call: unknown, position: number): WireStep[] {
  if (!isObject(call)) return []
  const fn = objectAt(call, 'function')
  const index = countAt(call, 'index') ?? position
  const id = stringAt(call, 'id')
  const name = stringAt(fn, 'name')
  const rawArgs = fn?.arguments
  // A few servers send the arguments as an object, whole.
  const args = typeof rawArgs === 'string' ? rawArgs : isObject(rawArgs) ? JSON.stringify(rawArgs) : undefined
  return [{ type: 'tool-delta', index, ...(id && { id }), ...(name && { name }), ...(args !== undefined && { args }) }]
}
