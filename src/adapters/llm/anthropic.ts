/**
 * `anthropic({ apiKey, model })`: the Anthropic Messages API, streamed as SSE.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { LLMChunk, LLMProvider, LLMRequest } from '../../core/contracts/providers.js'
import type { HintFor } from '../http/index.js'
import { anthropicBody, parseAnthropicData, SCHEMA_TOOL, schemaTool } from './anthropic-wire.js'
import type { LLMAdapterOptions } from './options.js'
import { secretHeaderValues } from '../http/index.js'
import { sseData, streamChat } from './stream-chat.js'

/** Options of `anthropic()`: the API key, the model, and the Anthropic Messages API's own settings. */
export interface AnthropicOptions extends LLMAdapterOptions {
  apiKey: string
  model: string
  /** Output cap when a request names none (the API requires one). @defaultValue 4096 */
  maxTokens?: number | undefined
  /** @defaultValue `https://api.anthropic.com` */
  baseURL?: string | undefined
  /** Extended thinking with this many tokens (at least 1024); its text streams as `reasoning`. */
  thinkingBudget?: number | undefined
}

/** An `LLMProvider` for Anthropic's Messages API (Claude models), streamed, with retries. */
export function anthropic(options: AnthropicOptions): LLMProvider {
  const { apiKey, model } = options
  if (!apiKey) {
    throw new LaconicError('anthropic: `apiKey` is missing', {
      code: 'config',
      hint: 'pass it as `anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, model })`',
    })
  }
  if (!model)
    throw new LaconicError('anthropic: `model` is required', { code: 'config', hint: 'pass it as `anthropic({ apiKey, model: "claude-haiku-4-5" })`' })
  const url = `${(options.baseURL ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`
  const headers = { ...options.headers, 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' }
  const hint: HintFor = (failure) => (failure.status === 404 ? `choose a model your key can use (\`${model}\` was not found)` : undefined)
  return {
    model,
    stream: (req) =>
      schemaReplyAsText(
        req,
        options.thinkingBudget,
        streamChat(
          {
            provider: 'anthropic',
            model,
            url,
            headers,
            body: anthropicBody(model, options.maxTokens ?? 4096, req, options.thinkingBudget),
            secrets: [apiKey, ...secretHeaderValues(options.headers)],
            hint,
            frames: sseData,
            parse: parseAnthropicData,
          },
          options,
          req,
        ),
      ),
  }
}

/** A schema call answered through the forced tool: its input streams as the reply's text. */
async function* schemaReplyAsText(req: LLMRequest, thinkingBudget: number | undefined, chunks: AsyncIterable<LLMChunk>): AsyncGenerator<LLMChunk> {
  if (!schemaTool(req, thinkingBudget)) return yield* chunks
  for await (const chunk of chunks) {
    if (chunk.type === 'tool-call-delta' && chunk.name === SCHEMA_TOOL) {
      if (chunk.argsDelta) yield { type: 'text', text: chunk.argsDelta }
    } else if (chunk.type !== 'tool-call' || chunk.name !== SCHEMA_TOOL) yield chunk
  }
}
