/**
 * `openai({ baseURL, apiKey, model })`: any OpenAI-compatible chat-completions server
 * (OpenAI, vLLM, llama.cpp, LM Studio, Ollama's /v1, OpenRouter, Groq, Together).
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { LLMProvider } from '../../core/contracts/providers.js'
import type { HintFor } from '../http/index.js'
import type { LLMAdapterOptions } from './options.js'
import { secretHeaderValues } from '../http/index.js'
import { isReasoningModel, openaiBody, parseOpenAIData } from './openai-wire.js'
import { isLoopbackUrl } from './local.js'
import { sseData, streamChat } from './stream-chat.js'
import { jsonSupport, withJsonFallback } from './json-fallback.js'

/** Options of `openai()`: the API root, key and model, for OpenAI and any server speaking its Chat Completions API. */
export interface OpenAIOptions extends LLMAdapterOptions {
  /** The API root, usually ending in `/v1`. @defaultValue `https://api.openai.com/v1` */
  baseURL?: string | undefined
  /** Optional for local servers. */
  apiKey?: string | undefined
  model: string
  /**
   * Send `max_completion_tokens` and no `temperature`, as OpenAI's reasoning models require.
   * @defaultValue true for model names starting `o1`, `o3`, `o4`, `gpt-5` (also after a `vendor/` prefix)
   */
  reasoningModel?: boolean | undefined
}

/** An `LLMProvider` for OpenAI's Chat Completions API, or any server that speaks it (vLLM, llama.cpp, LM Studio). */
export function openai(options: OpenAIOptions): LLMProvider {
  const { model, apiKey } = options
  if (!model) throw new LaconicError('openai: `model` is required', { code: 'config', hint: 'pass it as `openai({ model: "gpt-4o-mini" })`' })
  const url = `${(options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/chat/completions`
  const headers = { ...options.headers, ...(apiKey && { authorization: `Bearer ${apiKey}` }) }
  const hint: HintFor = (failure) => {
    if (failure.status === 401) return apiKey ? 'check the API key' : 'this server wants an API key: pass `apiKey`'
    if (failure.status === 404) return `pull or choose a model this server has (\`${model}\` was not found), and check that \`baseURL\` ends in /v1`
    return undefined
  }
  const json = jsonSupport()
  return {
    model,
    local: isLoopbackUrl(url),
    stream: (request) =>
      withJsonFallback(request, json, (req) =>
        streamChat(
          {
            provider: 'openai',
            model,
            url,
            headers,
            body: openaiBody(model, req, options.reasoningModel ?? isReasoningModel(model)),
            secrets: [apiKey, ...secretHeaderValues(options.headers)],
            hint,
            frames: sseData,
            parse: parseOpenAIData,
          },
          options,
          req,
        ),
      ),
  }
}
