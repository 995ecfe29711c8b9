/**
 * The Anthropic Messages wire: request body and a total parser of one SSE `data` payload
 * (each payload repeats its event name in `type`).
 */
import type { ChatTurn, LLMRequest, ToolChoice, ToolSpec } from '../../core/contracts/providers.js'
import { toolArgsObject } from '../../core/contracts/tool-args.js'
import { countAt, isObject, isTransientKind, objectAt, parseFrame, stringAt, usageStep, type WireStep } from './wire-step.js'

/**
 * With extended thinking (`thinkingBudget` tokens), the API wants `max_tokens` above the budget
 * and no `temperature` but the default; the thinking streams as `reasoning`, never as text.
 */
export function anthropicBody(model: string, maxTokens: number, req: LLMRequest, thinkingBudget?: number): Record<string, unknown> {
  const forced = schemaTool(req, thinkingBudget)
  const system = [req.system, req.json && !forced ? jsonInstruction(req.json) : undefined].filter(Boolean).join('\n\n')
  const answerTokens = req.maxTokens ?? maxTokens
  return {
    model,
    max_tokens: thinkingBudget ? thinkingBudget + answerTokens : answerTokens,
    // Marked for the prompt cache: tools and system text stay the same across a role's calls.
    ...(system && { system: [{ type: 'text', text: system, cache_control: EPHEMERAL }] }),
    messages: anthropicMessages(req.prompt, req.turns ?? [], req.cachePrefix),
    stream: true,
    ...(forced ? anthropicTools([forced], { name: forced.name }) : anthropicTools(req.tools, req.toolChoice)),
    ...(thinkingBudget ? { thinking: { type: 'enabled', budget_tokens: thinkingBudget } } : {}),
    ...(req.temperature !== undefined && !thinkingBudget && { temperature: req.temperature }),
  }
}

/** The forced tool whose input is a structured reply; its `input_json_delta` stream is the reply's text. */
export const SCHEMA_TOOL = 'structured_reply'

/**
 * The Messages API has no JSON Schema response format: a schema call becomes one forced tool
 * whose `input_schema` is the schema. Not with the caller's own tools (they keep their choice),
 * and not with extended thinking, which refuses a forced tool choice (the schema is then asked
 * for in words).
 */
export function schemaTool(req: LLMRequest, thinkingBudget?: number): ToolSpec | undefined {
  if (typeof req.json !== 'object' || req.tools?.length || thinkingBudget) return undefined
  return { name: SCHEMA_TOOL, description: "Give your reply as this tool's input.", parameters: req.json }
}

/**
 * The tool list and choice on the Messages wire. A forced single tool (`{ name }`) is also how
 * structured output can be asked of this API: the tool's input is the JSON.
 */
export function anthropicTools(tools: readonly ToolSpec[] | undefined, choice: ToolChoice | undefined): Record<string, unknown> {
  if (!tools?.length) return {}
  const toolChoice =
    choice === undefined ? undefined : typeof choice !== 'string' ? { type: 'tool', name: choice.name } : { type: choice === 'required' ? 'any' : choice }
  return {
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
    ...(toolChoice && { tool_choice: toolChoice }),
  }
}

const EPHEMERAL = { type: 'ephemeral' } as const

type Block = Record<string, unknown>
interface Message {
  role: 'user' | 'assistant'
  content: string | Block[]
}

/**
 * The prompt, then the turns: tool calls become `tool_use` blocks of the assistant, results
 * `tool_result` blocks of the user. Turns of the same role in a row join one message, as the
 * API wants roles to alternate (several results answer one assistant message). A prompt with a
 * stable prefix (`cachePrefix` characters) is two text blocks, the first marked for the cache.
 */
export function anthropicMessages(prompt: string, turns: readonly ChatTurn[], cachePrefix = 0): Message[] {
  const split = Number.isInteger(cachePrefix) && cachePrefix > 0 && cachePrefix < prompt.length
  const content: Message['content'] = split
    ? [
        { type: 'text', text: prompt.slice(0, cachePrefix), cache_control: EPHEMERAL },
        { type: 'text', text: prompt.slice(cachePrefix) },
      ]
    : prompt
  const messages: Message[] = [{ role: 'user', content }]
  const push = (role: Message['role'], blocks: Block[]) => {
    if (blocks.length === 0) return
    const last = messages[messages.length - 1]!
    if (last.role !== role) {
      messages.push({ role, content: blocks })
      return
    }
    const earlier = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content
    last.content = [...earlier, ...blocks]
  }
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      push('assistant', [
        ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
        ...turn.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: toolArgsObject(call.args) })),
      ])
    } else if (turn.role === 'tool') {
      push('user', [{ type: 'tool_result', tool_use_id: turn.callId, content: turn.content, ...(turn.isError && { is_error: true }) }])
    } else {
      push('user', [{ type: 'text', text: turn.text }])
    }
  }
  return messages
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
    case 'content_block_start': {
      const block = objectAt(event, 'content_block')
      const index = countAt(event, 'index')
      if (block?.type !== 'tool_use' || index === undefined) return []
      const id = stringAt(block, 'id')
      const name = stringAt(block, 'name')
      // The input starts empty and streams as JSON pieces; a block that arrives filled is whole.
      const input = block.input
      const args = isObject(input) && Object.keys(input).length > 0 ? JSON.stringify(input) : ''
      return [{ type: 'tool-delta', index, ...(id && { id }), ...(name && { name }), args }]
    }
    case 'content_block_delta': {
      const delta = objectAt(event, 'delta')
      if (delta?.type === 'text_delta') return textStep('text', stringAt(delta, 'text'))
      if (delta?.type === 'thinking_delta') return textStep('reasoning', stringAt(delta, 'thinking'))
      const index = countAt(event, 'index')
      if (delta?.type === 'input_json_delta' && index !== undefined) return [{ type: 'tool-delta', index, args: stringAt(delta, 'partial_json') ?? '' }]
      return []
    }
    case 'content_block_stop': {
      const index = countAt(event, 'index')
      return index === undefined ? [] : [{ type: 'tool-end', index }]
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
      return [] // ping, and event types added later
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
