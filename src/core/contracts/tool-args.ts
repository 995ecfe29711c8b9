/**
 * Helpers shared by the adapters (which put tool calls on the wire) and the strategies (which
 * run them): reading a call's argument text, and telling a server that cannot call tools.
 */
import { ProviderError } from './laconic-error.js'
import type { LLMRequest } from './providers.js'

/** A tool call's arguments as parsed by `parseToolArgs()`: the object, or why the text is not one. */
export type ToolArgs = { ok: true; value: Record<string, unknown> } | { ok: false; error: string }

/**
 * A tool call's arguments as an object. Total: text that is not a JSON object is an error
 * (empty text is `{}`: a call without arguments streams none).
 */
export function parseToolArgs(text: string): ToolArgs {
  if (text.trim() === '') return { ok: true, value: {} }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, error: 'the arguments are not valid JSON' }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'the arguments must be a JSON object' }
  return { ok: true, value: value as Record<string, unknown> }
}

/** The arguments as an object for wires that want one (Anthropic, Ollama); `{}` when unreadable. */
export function toolArgsObject(text: string): Record<string, unknown> {
  const parsed = parseToolArgs(text)
  return parsed.ok ? parsed.value : {}
}

/**
 * True when a server refused a request because it cannot call tools (Ollama: "does not support
 * tools"; llama.cpp without --jinja; vLLM without --enable-auto-tool-choice): the caller can
 * fall back to a text protocol. Only client errors count: a 5xx says nothing about tools.
 */
export function toolsUnsupported(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return false
  if (error.retryable || (error.status !== undefined && (error.status < 400 || error.status >= 500 || error.status === 429))) return false
  const text = `${error.providerMessage ?? ''} ${error.message}`
  return /tool/i.test(text) && /(not|n't|un)\s*(support|enabled|available|allowed)|requires? .*(jinja|tool)|jinja/i.test(text)
}

/** Everything a request puts before the model, as text: for estimating its tokens when a backend reports none. */
export function requestText(req: Pick<LLMRequest, 'system' | 'prompt' | 'turns' | 'tools'>): string {
  const turns = (req.turns ?? []).map((turn) =>
    turn.role === 'assistant'
      ? `${turn.text}${turn.toolCalls.map((call) => `\n${call.name}(${call.args})`).join('')}`
      : turn.role === 'tool'
        ? turn.content
        : turn.text,
  )
  const tools = (req.tools ?? []).map((tool) => `${tool.name}: ${tool.description} ${JSON.stringify(tool.parameters)}`)
  return [req.system ?? '', req.prompt, ...turns, ...tools].join('\n')
}
