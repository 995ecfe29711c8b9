/**
 * The three adapters described the same way, so every fault test runs against each of them.
 */
import type { LLMChunk, LLMProvider, LLMRequest } from '../../../src/index.js'
import { anthropic, ollama, openai } from '../../../src/adapters/index.js'
import { anthropicTranscript, expectedUsage, ollamaTranscript, openaiTranscript } from './fixtures.js'

/** The options all three adapters take besides their own (headers, pricing, timeouts, retries, fetch): their public signatures' common keys. */
type LLMAdapterOptions = Pick<OpenAIOptions, Exclude<keyof OpenAIOptions & keyof OllamaOptions & keyof AnthropicOptions, 'model'>>
type OpenAIOptions = Parameters<typeof openai>[0]
type OllamaOptions = Parameters<typeof ollama>[0]
type AnthropicOptions = Parameters<typeof anthropic>[0]

export const API_KEY = 'sk-test-9f8e7d6c5b4a3210SECRET'

export interface AdapterCase {
  name: 'openai' | 'ollama' | 'anthropic'
  path: string
  contentType: string
  transcript: string
  /** The reasoning text the transcript carries out of band. */
  reasoning: string
  /** The one usage chunk the transcript ends with. */
  usage: LLMChunk
  make(url: string, extra?: LLMAdapterOptions): LLMProvider
  /** One frame that delivers `text`. */
  textFrame(text: string): string
  /** A frame that reports an error inside a 200 stream. */
  errorFrame(message: string): string
  /** An HTTP error body in this provider's shape. */
  errorBody(message: string): string
}

export const cases: AdapterCase[] = [
  {
    name: 'openai',
    path: '/v1/chat/completions',
    contentType: 'text/event-stream; charset=utf-8',
    transcript: openaiTranscript,
    reasoning: 'Zürich is in Switzerland…',
    usage: expectedUsage,
    make: (url, extra) => openai({ baseURL: `${url}/v1`, apiKey: API_KEY, model: 'gpt-4o-mini', ...extra }),
    textFrame: (text) => `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}]}\n\n`,
    errorFrame: (message) => `data: {"error":{"message":${JSON.stringify(message)},"type":"invalid_request_error","code":"bad"}}\n\n`,
    errorBody: (message) => JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: 'model_not_found' } }),
  },
  {
    name: 'ollama',
    path: '/api/chat',
    contentType: 'application/x-ndjson',
    transcript: ollamaTranscript,
    reasoning: 'Zürich > Bern?',
    usage: expectedUsage,
    make: (url, extra) => ollama({ host: url, model: 'qwen3:4b', headers: { authorization: `Bearer ${API_KEY}` }, ...extra }),
    textFrame: (text) => `{"model":"qwen3:4b","message":{"role":"assistant","content":${JSON.stringify(text)}},"done":false}\n`,
    errorFrame: (message) => `{"error":${JSON.stringify(message)}}\n`,
    errorBody: (message) => JSON.stringify({ error: message }),
  },
  {
    name: 'anthropic',
    path: '/v1/messages',
    contentType: 'text/event-stream',
    transcript: anthropicTranscript,
    reasoning: 'Zürich is in Switzerland…',
    // Four of the 19 input tokens were read from the prompt cache.
    usage: { ...expectedUsage, cachedInputTokens: 4 },
    make: (url, extra) => anthropic({ baseURL: url, apiKey: API_KEY, model: 'claude-haiku-4-5', ...extra }),
    textFrame: (text) =>
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`,
    errorFrame: (message) => `event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":${JSON.stringify(message)}}}\n\n`,
    errorBody: (message) => JSON.stringify({ type: 'error', error: { type: 'not_found_error', message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' }),
  },
]

export interface Collected {
  chunks: LLMChunk[]
  text: string
  reasoning: string
  usage: LLMChunk[]
}

export async function collect(llm: LLMProvider, req: LLMRequest = { prompt: 'Is Zürich pretty?' }): Promise<Collected> {
  const chunks: LLMChunk[] = []
  for await (const chunk of llm.stream(req)) chunks.push(chunk)
  return summarize(chunks)
}

export function summarize(chunks: LLMChunk[]): Collected {
  const join = (type: 'text' | 'reasoning') => chunks.map((c) => (c.type === type ? c.text : '')).join('')
  return { chunks, text: join('text'), reasoning: join('reasoning'), usage: chunks.filter((c) => c.type === 'usage') }
}

/** Collect until the stream fails; the chunks delivered before the failure are kept. */
export async function collectUntilError(llm: LLMProvider, req: LLMRequest): Promise<{ got: Collected; error: unknown }> {
  const chunks: LLMChunk[] = []
  try {
    for await (const chunk of llm.stream(req)) chunks.push(chunk)
  } catch (error) {
    return { got: summarize(chunks), error }
  }
  throw new Error(`expected the stream to fail, it delivered ${JSON.stringify(chunks)}`)
}
