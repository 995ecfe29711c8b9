/**
 * Type-level tests of the embedding providers: the contract on the root entry, and the adapters'
 * factories and options on `laconic-research/adapters`.
 */
import { describe, expectTypeOf, it } from 'vitest'
import { aiSdkEmbeddings, localEmbeddings, ollamaEmbeddings, openAIEmbeddings, type openai } from '../../src/adapters/index.js'
import type { EmbeddingProvider, LLMRequest, Pricing } from '../../src/index.js'

type AiSdkEmbeddingModel = Parameters<typeof aiSdkEmbeddings>[0]

type AiSdkEmbeddingsOptions = NonNullable<Parameters<typeof aiSdkEmbeddings>[1]>
type LocalEmbeddings = Awaited<ReturnType<typeof localEmbeddings>>
type LocalEmbeddingsOptions = NonNullable<Parameters<typeof localEmbeddings>[0]>
type OllamaEmbeddingsOptions = NonNullable<Parameters<typeof ollamaEmbeddings>[0]>
type OpenAIEmbeddingsOptions = NonNullable<Parameters<typeof openAIEmbeddings>[0]>

type Embeddings = Awaited<ReturnType<EmbeddingProvider['embed']>>
type EmbedOptions = NonNullable<Parameters<EmbeddingProvider['embed']>[1]>
type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

// The shared options have no name on the entry point: a user meets them in each factory's
// options, so they are written out here, with the HTTP parts the model adapters take.
type ModelOptions = Parameters<typeof openai>[0]
/** What every embedding adapter takes besides its own options: how it splits the work, and prices. */
type EmbeddingBatchOptions = { batchSize?: number | undefined; concurrency?: number | undefined; pricing?: Pricing | undefined }
/** What the HTTP embedding adapters take besides: the HTTP options, as the model adapters take them. */
type EmbeddingAdapterOptions = EmbeddingBatchOptions & Pick<ModelOptions, 'headers' | 'timeouts' | 'maxRetries' | 'backoff' | 'fetch'>

describe('the embedding contract', () => {
  it('embeds a batch of texts into Float32Array vectors, cancellably', () => {
    expectTypeOf<EmbeddingProvider['embed']>().parameters.toEqualTypeOf<[readonly string[], (EmbedOptions | undefined)?]>()
    expectTypeOf<EmbeddingProvider['embed']>().returns.toEqualTypeOf<Promise<Embeddings>>()
    expectTypeOf<Embeddings['vectors']>().toEqualTypeOf<Float32Array[]>()
    expectTypeOf<Embeddings['inputTokens']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<EmbedOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>()
    expectTypeOf<EmbedOptions['onRetry']>().toEqualTypeOf<((info: RetryInfo) => void) | undefined>()
    expectTypeOf<EmbeddingProvider['dimensions']>().toEqualTypeOf<number | undefined>()
  })
})

describe('embedding adapters', () => {
  it('share batching, pricing and HTTP options, and return an EmbeddingProvider', () => {
    expectTypeOf<Pick<OpenAIEmbeddingsOptions, keyof EmbeddingAdapterOptions>>().toEqualTypeOf<Pick<EmbeddingAdapterOptions, keyof EmbeddingAdapterOptions>>()
    expectTypeOf<Pick<OllamaEmbeddingsOptions, keyof EmbeddingAdapterOptions>>().toEqualTypeOf<Pick<EmbeddingAdapterOptions, keyof EmbeddingAdapterOptions>>()
    expectTypeOf<Pick<AiSdkEmbeddingsOptions, keyof EmbeddingBatchOptions>>().toEqualTypeOf<EmbeddingBatchOptions>()
    expectTypeOf<OpenAIEmbeddingsOptions>().toExtend<EmbeddingAdapterOptions>()
    expectTypeOf<OllamaEmbeddingsOptions>().toExtend<EmbeddingAdapterOptions>()
    expectTypeOf<EmbeddingAdapterOptions>().toExtend<EmbeddingBatchOptions>()
    expectTypeOf<AiSdkEmbeddingsOptions>().toExtend<EmbeddingBatchOptions>()
    expectTypeOf<EmbeddingBatchOptions['batchSize']>().toEqualTypeOf<number | undefined>()
    expectTypeOf(openAIEmbeddings).returns.toEqualTypeOf<EmbeddingProvider>()
    expectTypeOf(ollamaEmbeddings).returns.toEqualTypeOf<EmbeddingProvider>()
    expectTypeOf(aiSdkEmbeddings).returns.toEqualTypeOf<EmbeddingProvider>()
    expectTypeOf<OpenAIEmbeddingsOptions['encodingFormat']>().toEqualTypeOf<'float' | 'base64' | undefined>()
    expectTypeOf<OpenAIEmbeddingsOptions>().toHaveProperty('model').toEqualTypeOf<string>()
    expectTypeOf<OllamaEmbeddingsOptions['truncate']>().toEqualTypeOf<boolean | undefined>()
  })

  it('run a GGUF model in process, loaded and freed on demand', () => {
    expectTypeOf(localEmbeddings).parameter(0).toEqualTypeOf<LocalEmbeddingsOptions>()
    expectTypeOf(localEmbeddings).returns.toEqualTypeOf<LocalEmbeddings>()
    expectTypeOf<LocalEmbeddings>().toExtend<EmbeddingProvider>()
    expectTypeOf<LocalEmbeddings['close']>().returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf<LocalEmbeddingsOptions['gpu']>().toEqualTypeOf<false | 'auto' | undefined>()
  })

  it('take any AI SDK embedding model by its shape', () => {
    expectTypeOf(aiSdkEmbeddings).parameter(0).toEqualTypeOf<AiSdkEmbeddingModel>()
    expectTypeOf<AiSdkEmbeddingModel['modelId']>().toEqualTypeOf<string>()
  })
})
