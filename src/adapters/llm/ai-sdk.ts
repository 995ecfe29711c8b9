/**
 * `aiSdkModel(model)`: any Vercel AI SDK language model (`@ai-sdk/google`, `@ai-sdk/amazon-bedrock`,
 * `@ai-sdk/azure`, `@ai-sdk/mistral`, `@ai-sdk/xai`, …) as a laconic model. It calls the
 * provider-level `doStream` (specification v2 or v3) and reads its stream parts as they arrive.
 * Nothing here imports an AI SDK package: the model is taken by its shape, so this entry loads
 * whether or not they are installed.
 */
import {
  abortError,
  isAbortError,
  LaconicError,
  llmDollars,
  ProviderError,
  type ErrorCode,
  type LLMChunk,
  type LLMProvider,
  type LLMRequest,
  type Pricing,
} from '../../core/index.js'
import { streamWithRetries, type Backoff } from '../http/index.js'

/** The prompt of one call, in the AI SDK's language model message format. */
export type AiSdkPrompt = Array<{ role: 'system'; content: string } | { role: 'user'; content: Array<{ type: 'text'; text: string }> }>

/** The call options this adapter sends to `doStream` (a subset of the AI SDK's). */
export interface AiSdkCallOptions {
  prompt: AiSdkPrompt
  maxOutputTokens?: number
  temperature?: number
  responseFormat?: { type: 'json'; schema?: Record<string, unknown> }
  abortSignal?: AbortSignal
  providerOptions?: Record<string, Record<string, unknown>>
}

/**
 * What this adapter needs of an AI SDK `LanguageModelV2`/`LanguageModelV3`: every provider
 * package's model object fits (`google('gemini-2.5-flash')`, `bedrock(…)`, …).
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: string
  readonly provider: string
  readonly modelId: string
  /**
   * Called with `AiSdkCallOptions`. Typed `never` so that any provider's own, wider options
   * type fits: the options sent are the subset every v2/v3 model accepts.
   */
  doStream(options: never): PromiseLike<{ stream: ReadableStream<{ type: string }> }>
}

export interface AiSdkModelOptions {
  /** Prices by model id, for providers whose usage carries no cost. */
  pricing?: Pricing | undefined
  /** Retries of a call that failed before its first token, when the error says it is retryable. @defaultValue 2 */
  maxRetries?: number | undefined
  backoff?: Backoff | undefined
  /** Passed to every call as the AI SDK's `providerOptions` (e.g. `{ google: { thinkingConfig: … } }`). */
  providerOptions?: Record<string, Record<string, unknown>> | undefined
}

export function aiSdkModel(model: AiSdkLanguageModel, options: AiSdkModelOptions = {}): LLMProvider {
  if (!model || typeof model !== 'object' || typeof model.doStream !== 'function') {
    throw new LaconicError('aiSdkModel expects an AI SDK language model object (with doStream)', {
      code: 'config',
      hint: 'pass a provider model such as `google("gemini-2.5-flash")`; model id strings for the AI Gateway are not supported',
    })
  }
  if (model.specificationVersion !== 'v2' && model.specificationVersion !== 'v3') {
    throw new LaconicError(`aiSdkModel supports language model specification v2 and v3, got ${String(model.specificationVersion)}`, {
      code: 'config',
      hint: 'upgrade the provider package to one made for AI SDK 5 or later',
    })
  }
  const provider = model.provider || 'ai-sdk'
  return {
    model: model.modelId,
    stream: (req) =>
      streamWithRetries({ maxRetries: options.maxRetries, backoff: options.backoff, onRetry: req.onRetry, signal: req.signal }, () =>
        attempt(model, provider, callOptions(req, options), options, req.signal),
      ),
  }
}

function callOptions(req: LLMRequest, options: AiSdkModelOptions): AiSdkCallOptions {
  const prompt: AiSdkPrompt = []
  if (req.system) prompt.push({ role: 'system', content: req.system })
  prompt.push({ role: 'user', content: [{ type: 'text', text: req.prompt }] })
  const call: AiSdkCallOptions = { prompt }
  if (req.maxTokens !== undefined) call.maxOutputTokens = req.maxTokens
  if (req.temperature !== undefined) call.temperature = req.temperature
  if (req.json) call.responseFormat = typeof req.json === 'object' ? { type: 'json', schema: { ...req.json } } : { type: 'json' }
  if (req.signal) call.abortSignal = req.signal
  if (options.providerOptions) call.providerOptions = options.providerOptions
  return call
}

async function* attempt(
  model: AiSdkLanguageModel,
  provider: string,
  call: AiSdkCallOptions,
  options: AiSdkModelOptions,
  signal: AbortSignal | undefined,
): AsyncGenerator<LLMChunk> {
  let stream: ReadableStream<{ type: string }>
  try {
    signal?.throwIfAborted()
    ;({ stream } = await model.doStream(call as never))
  } catch (error) {
    throw failure(error, provider, signal)
  }
  let usage: { inputTokens?: number; outputTokens?: number } | undefined
  // Breaking out of this loop (the consumer left) cancels the stream, which ends the provider's request.
  try {
    for await (const part of stream as ReadableStream<StreamPart>) {
      switch (part.type) {
        case 'text-delta':
        case 'reasoning-delta': {
          const text = deltaOf(part)
          if (text) yield { type: part.type === 'text-delta' ? 'text' : 'reasoning', text }
          break
        }
        case 'finish':
          usage = usageOf(part.usage)
          break
        case 'error':
          throw part.error
        default:
          // stream-start, response-metadata, sources, tool calls, raw: nothing a research step uses.
          break
      }
    }
  } catch (error) {
    throw failure(error, provider, signal)
  }
  if (usage) {
    const counts = { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 }
    yield options.pricing?.[model.modelId]
      ? { type: 'usage', ...counts, cost: llmDollars(counts, model.modelId, options.pricing) }
      : { type: 'usage', ...counts }
  }
}

/** A stream part as it may come from any provider: read defensively, never trusted. */
type StreamPart = { type: string; delta?: unknown; textDelta?: unknown; usage?: unknown; error?: unknown }

function deltaOf(part: StreamPart): string {
  // `delta` since AI SDK 5; `textDelta` in older provider builds.
  const text = part.delta ?? part.textDelta
  return typeof text === 'string' ? text : ''
}

/** Token counts of a v3 usage (`{ inputTokens: { total } }`) or a v2 one (`{ inputTokens: number }`). */
function usageOf(usage: unknown): { inputTokens?: number; outputTokens?: number } | undefined {
  if (!usage || typeof usage !== 'object') return undefined
  const record = usage as Record<string, unknown>
  const input = tokens(record.inputTokens)
  const output = tokens(record.outputTokens)
  if (input === undefined && output === undefined) return undefined
  return { ...(input !== undefined && { inputTokens: input }), ...(output !== undefined && { outputTokens: output }) }
}

function tokens(value: unknown): number | undefined {
  const n = value && typeof value === 'object' ? (value as { total?: unknown }).total : value
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined
}

/** A thrown AI SDK error (an `APICallError` carries `statusCode` and `isRetryable`) as a `ProviderError`. */
function failure(error: unknown, provider: string, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return abortError(signal)
  if (error instanceof LaconicError) return error
  if (isAbortError(error)) return abortError(signal)
  const details = (error && typeof error === 'object' ? error : {}) as { statusCode?: unknown; isRetryable?: unknown; message?: unknown }
  const status = typeof details.statusCode === 'number' ? details.statusCode : undefined
  const message = typeof details.message === 'string' && details.message ? details.message : String(error)
  return new ProviderError(`${provider}: ${message}`, {
    code: codeOf(status),
    provider,
    providerMessage: message,
    retryable: details.isRetryable === true,
    cause: error,
    ...(status !== undefined && { status }),
  })
}

function codeOf(status: number | undefined): ErrorCode {
  if (status === undefined) return 'network'
  if (status === 401 || status === 403) return 'auth'
  if (status === 404) return 'not-found'
  if (status === 429) return 'rate-limit'
  return 'http'
}
