/**
 * The loop every LLM adapter shares: send the request, read frames, turn them into chunks as
 * they arrive, end with one usage chunk, and retry only while nothing was delivered.
 */
import { fromWireError, ProviderError, redact } from '../../core/contracts/laconic-error.js'
import type { LLMChunk, LLMRequest } from '../../core/contracts/providers.js'
import { llmDollars } from '../../core/contracts/run-cost.js'
import { concatBytes, readSSE } from '../../wire/index.js'
import { attemptRequest, messageFromBody, quoteSafely, streamWithRetries, type HintFor, type HttpResponse } from '../http/index.js'
import type { LLMAdapterOptions } from './options.js'
import { ToolCallAssembler } from './tool-calls.js'
import type { UsageCounts, WireStep } from './wire-step.js'

/** One adapter's side of a call: where it goes, and how the response reads. */
export interface ChatWire {
  provider: string
  model: string
  url: string
  headers: Record<string, string>
  body: unknown
  secrets: ReadonlyArray<string | undefined>
  hint?: HintFor | undefined
  /** The body's frames: SSE `data` payloads or NDJSON lines. */
  frames(response: HttpResponse, wire: ChatWire): AsyncIterable<string>
  /** A total parser of one frame. */
  parse(frame: string): WireStep[]
}

export function streamChat(wire: ChatWire, options: LLMAdapterOptions, req: LLMRequest): AsyncGenerator<LLMChunk> {
  return streamWithRetries({ maxRetries: options.maxRetries, backoff: options.backoff, onRetry: req.onRetry, signal: req.signal }, () =>
    attempt(wire, options, req.signal),
  )
}

async function* attempt(wire: ChatWire, options: LLMAdapterOptions, signal: AbortSignal | undefined): AsyncGenerator<LLMChunk> {
  const response = await attemptRequest({
    url: wire.url,
    method: 'POST',
    headers: { accept: 'text/event-stream, application/x-ndjson, application/json', ...wire.headers },
    json: wire.body,
    provider: wire.provider,
    secrets: wire.secrets,
    signal,
    timeouts: options.timeouts,
    hint: wire.hint,
    fetch: options.fetch,
  })
  let usage: UsageCounts | undefined
  let refusal: string | undefined
  const toolCalls = new ToolCallAssembler()
  for await (const frame of framesOf(response, wire)) {
    for (const step of wire.parse(frame)) {
      switch (step.type) {
        case 'text':
        case 'reasoning':
          if (step.text !== '') yield { type: step.type, text: step.text }
          break
        case 'tool-delta':
        case 'tool-end':
        case 'tool-whole':
          yield* toolCalls.step(step)
          break
        case 'usage':
          usage = { ...usage, ...withoutType(step) }
          break
        case 'refusal':
          refusal = (refusal ?? '') + step.text
          break
        case 'error':
          throw streamError(wire, step)
        case 'malformed':
          // Quoted from the whole frame, redacted before it is cut (a cut key would not match).
          throw new ProviderError(`${wire.provider}: malformed chunk in the response stream: ${quoteSafely(frame, wire.secrets, 120)}`, {
            code: 'bad-response',
            provider: wire.provider,
            hint: 'the server sent something that is not the expected JSON; check that the base URL points at the right API',
          })
        case 'done':
          yield* toolCalls.endAll()
          if (refusal !== undefined) throw refusalError(wire, refusal)
          if (usage) yield usageChunk(usage, wire.model, options)
          return
      }
    }
  }
  // Some servers end without a terminator; what arrived is still the answer.
  yield* toolCalls.endAll()
  if (refusal !== undefined) throw refusalError(wire, refusal)
  if (usage) yield usageChunk(usage, wire.model, options)
}

/** The wire's frames, its failures (an oversized line) as typed errors. */
async function* framesOf(response: HttpResponse, wire: ChatWire): AsyncGenerator<string> {
  try {
    yield* wire.frames(response, wire)
  } catch (error) {
    throw fromWireError(error)
  }
}

function withoutType(step: WireStep & { type: 'usage' }): UsageCounts {
  const { type: _type, ...counts } = step
  return counts
}

/** The reported counts, priced with the adapter's `pricing` only when both counts are known. */
function usageChunk(usage: UsageCounts, model: string, options: LLMAdapterOptions): LLMChunk {
  const { inputTokens, outputTokens } = usage
  const price = options.pricing?.[model]
  if (usage.cost !== undefined || price === undefined || inputTokens === undefined || outputTokens === undefined) {
    return { type: 'usage', ...usage }
  }
  return { type: 'usage', ...usage, cost: llmDollars({ ...usage, inputTokens, outputTokens }, model, options.pricing) }
}

/** A refusal is an outcome the caller must see, not an empty answer. */
function refusalError(wire: ChatWire, words: string): ProviderError {
  const said = redact(words.trim(), wire.secrets)
  return new ProviderError(`${wire.provider}: the model refused to answer${said ? `: ${said}` : ''}`, {
    code: 'refusal',
    provider: wire.provider,
    ...(said && { providerMessage: said }),
    hint: 'rephrase the question or use another model',
  })
}

function streamError(wire: ChatWire, step: WireStep & { type: 'error' }): ProviderError {
  const providerMessage = redact(step.message, wire.secrets)
  const rateLimited = /rate.?limit/i.test(step.kind ?? '')
  return new ProviderError(`${wire.provider}: error in the response stream: ${providerMessage}`, {
    code: rateLimited ? 'rate-limit' : 'http',
    provider: wire.provider,
    providerMessage,
    retryable: step.retryable,
    hint: step.retryable ? 'the provider failed mid-response; try again' : 'the provider refused the request; read its message',
  })
}

/**
 * The `data` of each server-sent event: the frames of the SSE-speaking adapters. A `200` that
 * is not an event stream (a proxy's login page, a JSON error body) is a `bad-response` error
 * quoting the start of the body, not an empty answer.
 */
export async function* sseData(response: HttpResponse, wire: ChatWire): AsyncGenerator<string> {
  for await (const event of readSSE(await eventStreamChunks(response, wire))) yield event.data
}

/** How much of a body that is not an event stream is read to show what it is. */
const NOT_A_STREAM_BYTES = 2048

async function eventStreamChunks(response: HttpResponse, wire: ChatWire): Promise<AsyncIterable<Uint8Array>> {
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  if (type === 'text/event-stream') return response.chunks()
  // Undeclared or unusual: judged by its first bytes (only as many as it takes, so tokens are
  // not held back), which are then passed on untouched.
  const iterator = response.chunks()
  const head: Uint8Array[] = []
  let size = 0
  let ended = false
  const startOf = () =>
    new TextDecoder()
      .decode(concatBytes(head))
      .replace(/^\uFEFF/, '')
      .trimStart()
  const readMore = async (): Promise<boolean> => {
    const step = await iterator.next()
    if (step.done) {
      ended = true
      return false
    }
    head.push(step.value)
    size += step.value.byteLength
    return true
  }
  const declaredOther = type === 'text/html' || type === 'application/json' || type.endsWith('+json') || type === 'application/xhtml+xml'
  while (!declaredOther && startOf().length < 8 && (await readMore()));
  if (declaredOther || !looksLikeEventStream(startOf())) {
    // Enough of it to show what answered.
    while (size < NOT_A_STREAM_BYTES && (await readMore()));
    if (!ended) await iterator.return(undefined)
    throw notAStream(wire, type, startOf())
  }
  return (async function* () {
    yield* head
    if (!ended) yield* { [Symbol.asyncIterator]: () => iterator }
  })()
}

/** SSE starts with a field (`data:`, `event:`, `id:`, `retry:`) or a comment (`:`); nothing at all is fine too. */
function looksLikeEventStream(start: string): boolean {
  return start === '' || /^(data|event|id|retry)?:/.test(start) || /^(data|event|id|retry)\r?\n/.test(start)
}

function notAStream(wire: ChatWire, type: string, start: string): ProviderError {
  const quoted = messageFromBody(redact(start, wire.secrets)) ?? ''
  const what = type === '' ? 'no content-type' : type
  return new ProviderError(`${wire.provider}: HTTP 200 but not an event stream (${what})${quoted ? `: ${quoted}` : ''}`, {
    code: 'bad-response',
    provider: wire.provider,
    status: 200,
    ...(quoted ? { providerMessage: quoted } : {}),
    hint: 'something other than the API answered (a login page, a proxy, a wrong path): check the base URL',
  })
}
