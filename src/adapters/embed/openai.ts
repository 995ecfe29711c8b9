/**
 * `openAIEmbeddings({ baseURL, model })`: OpenAI's `POST /v1/embeddings`, which vLLM, llama.cpp's
 * server, LM Studio, Ollama's `/v1`, OpenRouter and Together speak as well.
 */
import type { EmbeddingProvider } from '../../core/contracts/embeddings.js'
import { LaconicError } from '../../core/contracts/laconic-error.js'
import { secretHeaderValues, type HintFor } from '../http/index.js'
import { isLoopbackUrl } from '../llm/local.js'
import { batchedEmbeddings, countOption, positiveInteger, type BatchReply } from './batched.js'
import { embeddingDollars } from './cost.js'
import type { EmbeddingAdapterOptions } from './options.js'
import { postJson, replyLimit } from './post-json.js'
import { toVector } from './vectors.js'

/** Options of `openAIEmbeddings()`: the API root, key and model, and how the vectors travel. */
export interface OpenAIEmbeddingsOptions extends EmbeddingAdapterOptions {
  /** The API root, usually ending in `/v1`. @defaultValue `https://api.openai.com/v1` */
  baseURL?: string | undefined
  /** Optional for local servers. */
  apiKey?: string | undefined
  /** e.g. `text-embedding-3-small`, or the name a local server gives its model. */
  model: string
  /**
   * Asks for vectors of this length (OpenAI's text-embedding-3 models shorten theirs) and refuses
   * a reply of any other. @defaultValue the model's own, learnt from the first reply
   */
  dimensions?: number | undefined
  /**
   * How the server sends vectors: `base64` is about a quarter of the bytes of `float` (OpenAI's
   * own SDK asks for it); a server that ignores it and sends numbers is read as well.
   * @defaultValue 'float', which every compatible server speaks
   */
  encodingFormat?: 'float' | 'base64' | undefined
}

/** OpenAI's limit is 2,048 texts (and 300,000 tokens) a request; 128 keeps a request well inside both. */
const DEFAULT_BATCH = 128

/** An `EmbeddingProvider` for OpenAI's embeddings API, or any server that speaks it. */
export function openAIEmbeddings(options: OpenAIEmbeddingsOptions): EmbeddingProvider {
  const { model, apiKey } = options
  if (!model)
    throw new LaconicError('openAIEmbeddings: `model` is required', {
      code: 'config',
      hint: 'pass it as `openAIEmbeddings({ model: "text-embedding-3-small" })`',
    })
  positiveInteger(options.dimensions, 'dimensions', 'openai')
  const url = `${(options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/embeddings`
  const headers = { ...options.headers, ...(apiKey && { authorization: `Bearer ${apiKey}` }) }
  const secrets = [apiKey, ...secretHeaderValues(options.headers)]
  const hint: HintFor = (failure) => {
    if (failure.status === 401) return apiKey ? 'check the API key' : 'this server wants an API key: pass `apiKey`'
    if (failure.status === 404) return `check that \`baseURL\` ends in /v1 and that the server has the embedding model \`${model}\``
    return undefined
  }
  const local = isLoopbackUrl(url)
  return batchedEmbeddings(
    {
      provider: 'openai',
      model,
      batchSize: countOption(options.batchSize, 'batchSize', 'openai', DEFAULT_BATCH),
      concurrency: countOption(options.concurrency, 'concurrency', 'openai', 2),
      dimensions: options.dimensions,
      price: (tokens) => embeddingDollars(tokens, model, { pricing: options.pricing, local }),
    },
    async (texts, call) => {
      const body = {
        model,
        input: texts,
        encoding_format: options.encodingFormat ?? 'float',
        ...(options.dimensions !== undefined && { dimensions: options.dimensions }),
      }
      const reply = await postJson({
        url,
        json: body,
        headers,
        provider: 'openai',
        secrets,
        hint,
        signal: call.signal,
        onRetry: call.onRetry,
        timeouts: options.timeouts,
        maxRetries: options.maxRetries,
        backoff: options.backoff,
        fetch: options.fetch,
        maxBytes: replyLimit(texts.length),
      })
      return parseOpenAIEmbeddings(reply, texts.length)
    },
  )
}

/**
 * `{ data: [{ index, embedding }], usage: { prompt_tokens } }`, vectors put in input order by
 * their `index` (the API does not promise the order of `data`). Total: what cannot be read
 * becomes a missing vector, which the caller reports.
 */
export function parseOpenAIEmbeddings(reply: unknown, texts: number): BatchReply {
  const record = isRecord(reply) ? reply : {}
  const data = Array.isArray(record.data) ? record.data : []
  const indexed =
    data.every((item) => isRecord(item) && Number.isInteger(item.index) && (item.index as number) >= 0 && (item.index as number) < texts) &&
    new Set(data.map((item) => (item as { index: number }).index)).size === data.length
  const vectors: Array<Float32Array | undefined> = new Array(data.length)
  for (const [i, item] of data.entries()) {
    const at = indexed ? (item as { index: number }).index : i
    vectors[at] = toVector(isRecord(item) ? item.embedding : undefined)
  }
  const usage = isRecord(record.usage) ? record.usage.prompt_tokens : undefined
  return { vectors, inputTokens: typeof usage === 'number' && Number.isFinite(usage) && usage >= 0 ? usage : undefined }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
