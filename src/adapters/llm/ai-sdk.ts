/**
 * `aiSdkModel(model)`: any Vercel AI SDK language model (`@ai-sdk/google`, `@ai-sdk/amazon-bedrock`,
 * `@ai-sdk/azure`, `@ai-sdk/mistral`, `@ai-sdk/xai`, …) as a laconic model. It calls the
 * provider-level `doStream` (specification v2 or v3) and reads its stream parts as they arrive.
 * Nothing here imports an AI SDK package: the model is taken by its shape, so this entry loads
 * whether or not they are installed.
 */
import { abortError, isAbortError, LaconicError, ProviderError, type ErrorCode } from '../../core/contracts/laconic-error.js'
import type { ChatTurn, LLMChunk, LLMProvider, LLMRequest } from '../../core/contracts/providers.js'
import { llmDollars, type Pricing } from '../../core/contracts/run-cost.js'
import { streamWithRetries, type Backoff } from '../http/index.js'

/** The prompt of one call, in the AI SDK's language model message format. */
export type AiSdkPrompt = Array<
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<{ type: 'text'; text: string }> }
  | { role: 'assistant'; content: Array<{ type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }> }
  | { role: 'tool'; content: Array<{ type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'text' | 'error-text'; value: string } }> }
>

/** The call options this adapter sends to `doStream` (a subset of the AI SDK's). */
export interface AiSdkCallOptions {
  prompt: AiSdkPrompt
  maxOutputTokens?: number
  temperature?: number
  responseFormat?: { type: 'json'; schema?: Record<string, unknown> }
  abortSignal?: AbortSignal
  providerOptions?: Record<string, Record<string, unknown>>
  tools?: Array<{ type: 'function'; name: string; description: string; inputSchema: Record<string, unknown> }>
  toolChoice?: { type: 'auto' | 'none' | 'required' } | { type: 'tool'; toolName: string }
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

/** Options of `aiSdkModel()`: prices, retries and provider options passed through to the AI SDK model. */
export interface AiSdkModelOptions {
  /** Prices by model id, for providers whose usage carries no cost. */
  pricing?: Pricing | undefined
  /** Retries of a call that failed before its first token, when the error says it is retryable. @defaultValue 2 */
  maxRetries?: number | undefined
  backoff?: Backoff | undefined
  /** Passed to every call as the AI SDK's `providerOptions` (e.g. `{ google: { thinkingConfig: … } }`). */
  providerOptions?: Record<string, Record<string, unknown>> | undefined
}

/** An `LLMProvider` from an AI SDK language model (e.g. `google("gemini-2.5-flash")`), with retries and pricing. */
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
  for (const turn of req.turns ?? []) prompt.push(promptTurn(turn))
  const call: AiSdkCallOptions = { prompt }
  if (req.maxTokens !== undefined) call.maxOutputTokens = req.maxTokens
  if (req.temperature !== undefined) call.temperature = req.temperature
  if (req.json) call.responseFormat = typeof req.json === 'object' ? { type: 'json', schema: { ...req.json } } : { type: 'json' }
  if (req.tools?.length) call.tools = req.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, inputSchema: { ...t.parameters } }))
  if (req.toolChoice !== undefined)
    call.toolChoice = typeof req.toolChoice === 'object' ? { type: 'tool', toolName: req.toolChoice.name } : { type: req.toolChoice }
  if (req.signal) call.abortSignal = req.signal
  if (options.providerOptions) call.providerOptions = options.providerOptions
  return call
}

/** A turn of a tool-calling conversation in the AI SDK's message format. */
function promptTurn(turn: ChatTurn): AiSdkPrompt[number] {
  switch (turn.role) {
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: turn.text }] }
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
          ...turn.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: parsedArgs(c.args) })),
        ],
      }
    case 'tool':
      return {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: turn.callId, toolName: turn.name, output: { type: turn.isError ? 'error-text' : 'text', value: turn.content } },
        ],
      }
  }
}

/** The AI SDK takes a call's input as a value; what the model wrote may not parse, and is then sent as written. */
function parsedArgs(args: string): unknown {
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
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
    throw aiSdkFailure(error, provider, signal)
  }
  let usage: UsageCounts | undefined
  // Tool calls by the provider's input id, numbered in the order they started.
  const toolInputs = new Map<string, { index: number; id: string; name: string }>()
  const openToolInput = (part: StreamPart) => {
    const call = { index: toolInputs.size, id: part.id as string, name: typeof part.toolName === 'string' ? part.toolName : '' }
    toolInputs.set(call.id, call)
    return call
  }
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
        case 'tool-input-start':
        case 'tool-input-delta': {
          const call = typeof part.id === 'string' ? (toolInputs.get(part.id) ?? openToolInput(part)) : undefined
          const delta = part.type === 'tool-input-delta' ? deltaOf(part) : ''
          if (call && (delta || part.type === 'tool-input-start'))
            yield { type: 'tool-call-delta', index: call.index, id: call.id, name: call.name, argsDelta: delta }
          break
        }
        case 'tool-call':
          if (typeof part.toolCallId === 'string' && typeof part.toolName === 'string') {
            yield {
              type: 'tool-call',
              id: part.toolCallId,
              name: part.toolName,
              args: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}),
            }
          }
          break
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
    throw aiSdkFailure(error, provider, signal)
  }
  if (usage) {
    // A count the provider did not report stays absent (the run estimates it), never 0.
    const { inputTokens, outputTokens } = usage
    const priced = options.pricing?.[model.modelId] !== undefined && inputTokens !== undefined && outputTokens !== undefined
    yield priced ? { type: 'usage', ...usage, cost: llmDollars({ inputTokens, outputTokens }, model.modelId, options.pricing) } : { type: 'usage', ...usage }
  }
}

/** A stream part as it may come from any provider: read defensively, never trusted. */
type StreamPart = {
  type: string
  id?: unknown
  delta?: unknown
  textDelta?: unknown
  usage?: unknown
  error?: unknown
  toolCallId?: unknown
  toolName?: unknown
  input?: unknown
}

function deltaOf(part: StreamPart): string {
  // `delta` since AI SDK 5; `textDelta` in older provider builds.
  const text = part.delta ?? part.textDelta
  return typeof text === 'string' ? text : ''
}

type UsageCounts = { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; cacheWriteTokens?: number }

/**
 * Token counts of a v3 usage (`{ inputTokens: { total, cacheRead, cacheWrite }, outputTokens: { total } }`)
 * or a v2 one (`{ inputTokens: number, cachedInputTokens?: number }`): only the counts it reports.
 */
function usageOf(usage: unknown): UsageCounts | undefined {
  if (!usage || typeof usage !== 'object') return undefined
  const record = usage as Record<string, unknown>
  const input = record.inputTokens && typeof record.inputTokens === 'object' ? (record.inputTokens as Record<string, unknown>) : undefined
  const counts: UsageCounts = {}
  const set = (key: keyof UsageCounts, value: number | undefined) => {
    if (value !== undefined) counts[key] = value
  }
  set('inputTokens', tokens(record.inputTokens))
  set('outputTokens', tokens(record.outputTokens))
  set('cachedInputTokens', tokens(input ? input.cacheRead : record.cachedInputTokens))
  set('cacheWriteTokens', tokens(input?.cacheWrite))
  return Object.keys(counts).length > 0 ? counts : undefined
}

function tokens(value: unknown): number | undefined {
  const n = value && typeof value === 'object' ? (value as { total?: unknown }).total : value
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined
}

/** A thrown AI SDK error (an `APICallError` carries `statusCode` and `isRetryable`) as a `ProviderError`. */
export function aiSdkFailure(error: unknown, provider: string, signal: AbortSignal | undefined): unknown {
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
