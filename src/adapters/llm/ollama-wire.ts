/**
 * Ollama's native `/api/chat` wire: request body and a total parser of one NDJSON line.
 */
import type { ChatTurn, JsonSchema, LLMRequest } from '../../core/contracts/providers.js'
import { toolArgsObject } from '../../core/contracts/tool-args.js'
import { openaiTools } from './openai-wire.js'
import { countAt, isObject, objectAt, parseFrame, stringAt, usageStep, type WireStep } from './wire-step.js'

/** Ollama's `think` setting: on or off, or a reasoning effort for models that take one. */
export type OllamaThink = boolean | 'low' | 'medium' | 'high'

/** Ollama's own request settings: output format, thinking, model options and how long the model stays loaded. */
export interface OllamaBodyOptions {
  format?: 'json' | JsonSchema | undefined
  think?: OllamaThink | undefined
  options?: Record<string, unknown> | undefined
  keepAlive?: string | number | undefined
}

export function ollamaBody(model: string, req: LLMRequest, defaults: OllamaBodyOptions): Record<string, unknown> {
  const messages = [
    ...(req.system ? [{ role: 'system', content: req.system }] : []),
    { role: 'user', content: req.prompt },
    ...(req.turns ?? []).map(ollamaMessage),
  ]
  // Ollama has no tool choice: `none` sends no tools, and the others let the model choose.
  const tools = req.toolChoice === 'none' ? {} : { tools: openaiTools(req.tools, undefined).tools }
  const format = req.json === true ? 'json' : req.json ? req.json : defaults.format
  const options = {
    ...defaults.options,
    ...(req.maxTokens !== undefined && { num_predict: req.maxTokens }),
    ...(req.temperature !== undefined && { temperature: req.temperature }),
  }
  return {
    model,
    messages,
    stream: true,
    ...(tools.tools !== undefined && tools),
    ...(format !== undefined && { format }),
    ...(defaults.think !== undefined && { think: defaults.think }),
    ...(Object.keys(options).length > 0 && { options }),
    ...(defaults.keepAlive !== undefined && { keep_alive: defaults.keepAlive }),
  }
}

function ollamaMessage(turn: ChatTurn): Record<string, unknown> {
  switch (turn.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: turn.text,
        ...(turn.toolCalls.length > 0 && {
          tool_calls: turn.toolCalls.map((call) => ({ function: { name: call.name, arguments: toolArgsObject(call.args) } })),
        }),
      }
    case 'tool':
      return { role: 'tool', content: turn.content, tool_name: turn.name }
    case 'user':
      return { role: 'user', content: turn.text }
  }
}

export function parseOllamaLine(line: string): WireStep[] {
  if (line.trim() === '') return []
  const frame = parseFrame(line)
  if ('malformed' in frame) return [frame.malformed]
  const chunk = frame.json
  const error = stringAt(chunk, 'error')
  if (error !== undefined) return [{ type: 'error', message: error, retryable: false }]
  const steps: WireStep[] = []
  // `/api/chat` streams `message`; `/api/generate` streams `response` and `thinking` at the top.
  const message = objectAt(chunk, 'message') ?? chunk
  const thinking = stringAt(message, 'thinking')
  if (thinking) steps.push({ type: 'reasoning', text: thinking })
  const content = stringAt(message, 'content') ?? stringAt(chunk, 'response')
  if (content) steps.push({ type: 'text', text: content })
  const toolCalls = message.tool_calls
  if (Array.isArray(toolCalls)) for (const call of toolCalls) steps.push(...wholeCall(call))
  if (chunk.done === true) {
    // Absent counts stay absent (the run estimates them); a missing count is not a free call.
    steps.push(...usageStep({ inputTokens: countAt(chunk, 'prompt_eval_count'), outputTokens: countAt(chunk, 'eval_count') }))
    steps.push({ type: 'done' })
  }
  return steps
}

/** `{"function":{"name","arguments": {...}}}`, with an `id` in newer versions. */
function wholeCall(call: unknown): WireStep[] {
  const fn = objectAt(call, 'function')
  const name = stringAt(fn, 'name')
  if (!name) return []
  const raw = fn?.arguments
  const args = typeof raw === 'string' ? raw : isObject(raw) ? JSON.stringify(raw) : ''
  const id = stringAt(call, 'id')
  return [{ type: 'tool-whole', name, args, ...(id && { id }) }]
}
