/**
 * Type-level tests of the `laconic-research/adapters` sub-path's options and helpers: what each
 * model, search and fetch adapter is configured with.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { FetchProvider, LLMProvider, SearchProvider, SearchResult } from '../../src/index.js'
import type {
  anthropic,
  arxiv,
  cached,
  combineSearch,
  openAlex,
  openai,
  pubmed,
  semanticScholar,
  wikipedia,
  aiSdkModel,
  createPacer,
  local,
  localCorpus,
  brave,
  duckduckgo,
  httpFetch,
  memoryCache,
  ollama,
  searxng,
  tavily,
} from '../../src/adapters/index.js'
// `isBlockedAddress` is the fetch guard's own check, on no entry point: its signature is pinned
// here beside the guard's public options (test/adapters/fetch/ssrf.test.ts tests what it does).
import type { isBlockedAddress } from '../../src/adapters/fetch/index.js'

type AiSdkLanguageModel = Parameters<typeof aiSdkModel>[0]
type LocalModel = ReturnType<typeof local>

type ArxivOptions = NonNullable<Parameters<typeof arxiv>[0]>
type CombineSearchOptions = NonNullable<Parameters<typeof combineSearch>[1]>
type OpenAlexOptions = NonNullable<Parameters<typeof openAlex>[0]>
type PubMedOptions = NonNullable<Parameters<typeof pubmed>[0]>
type SemanticScholarOptions = NonNullable<Parameters<typeof semanticScholar>[0]>
type WikipediaOptions = NonNullable<Parameters<typeof wikipedia>[0]>
type AiSdkModelOptions = NonNullable<Parameters<typeof aiSdkModel>[1]>
type BraveOptions = NonNullable<Parameters<typeof brave>[0]>
type DuckDuckGoOptions = NonNullable<Parameters<typeof duckduckgo>[0]>
type HttpFetchOptions = NonNullable<Parameters<typeof httpFetch>[0]>
type LocalCorpusOptions = NonNullable<Parameters<typeof localCorpus>[0]>
type MemoryCacheOptions = NonNullable<Parameters<typeof memoryCache>[0]>
type OllamaOptions = NonNullable<Parameters<typeof ollama>[0]>
type Pacer = Awaited<ReturnType<typeof createPacer>>
type PacerOptions = NonNullable<Parameters<typeof createPacer>[0]>
type SearxngOptions = NonNullable<Parameters<typeof searxng>[0]>
type TavilyOptions = NonNullable<Parameters<typeof tavily>[0]>
type OpenAIOptions = Parameters<typeof openai>[0]
type AnthropicOptions = Parameters<typeof anthropic>[0]
type LocalModelOptions = Parameters<typeof local>[0]
type CacheOptions = NonNullable<Parameters<typeof cached>[1]>

// The options several factories share have no name on the entry point: a user meets them in each
// factory's options, so they are reached here as what those options have in common.
/** What every model adapter takes besides its own options: the keys the HTTP model adapters share, `model` aside. */
type LLMAdapterOptions = Omit<Pick<OpenAIOptions, keyof OpenAIOptions & keyof AnthropicOptions & keyof OllamaOptions>, 'model'>
type HttpTimeouts = NonNullable<AnthropicOptions['timeouts']>
type Backoff = NonNullable<OllamaOptions['backoff']>
/** Ollama's own request settings: what its options add to the shared ones, `host` and `model` aside. */
type OllamaBodyOptions = Omit<OllamaOptions, keyof LLMAdapterOptions | 'host' | 'model'>
type OllamaThink = NonNullable<OllamaBodyOptions['think']>
/** What every HTTP search provider takes besides its own options: the keys the four web search providers share. */
type HttpSearchOptions = Pick<BraveOptions, keyof BraveOptions & keyof TavilyOptions & keyof DuckDuckGoOptions & keyof SearxngOptions>
/** What every scholarly search provider takes: the keys the five share. */
type ScholarlyOptions = Pick<
  ArxivOptions,
  keyof ArxivOptions & keyof OpenAlexOptions & keyof SemanticScholarOptions & keyof PubMedOptions & keyof WikipediaOptions
>
/** What both kinds of local corpus take: the list-of-documents options, the documents aside. */
type LocalCorpusBaseOptions = Omit<Extract<LocalCorpusOptions, { dir?: undefined }>, 'documents' | 'dir'>
type LocalDocument = Extract<LocalCorpusOptions, { dir?: undefined }>['documents'][number]
type ResolveHost = NonNullable<HttpFetchOptions['resolveHost']>

describe('model adapters', () => {
  it('share HTTP options, and take their own', () => {
    expectTypeOf<keyof LLMAdapterOptions>().toEqualTypeOf<'headers' | 'pricing' | 'timeouts' | 'maxRetries' | 'backoff' | 'fetch'>()
    expectTypeOf<keyof OllamaBodyOptions>().toEqualTypeOf<'format' | 'think' | 'options' | 'keepAlive'>()
    expectTypeOf<LLMAdapterOptions['timeouts']>().toEqualTypeOf<HttpTimeouts | undefined>()
    expectTypeOf<LLMAdapterOptions['backoff']>().toEqualTypeOf<Backoff | undefined>()
    expectTypeOf<HttpTimeouts['firstByteMs']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Backoff['initialMs']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<OllamaOptions>().toExtend<LLMAdapterOptions & OllamaBodyOptions>()
    expectTypeOf<OllamaOptions['model']>().toEqualTypeOf<string>()
    expectTypeOf<OllamaBodyOptions['think']>().toEqualTypeOf<OllamaThink | undefined>()
    expectTypeOf<OllamaThink>().toEqualTypeOf<boolean | 'low' | 'medium' | 'high'>()
    expectTypeOf<typeof aiSdkModel>().parameters.toEqualTypeOf<[model: AiSdkLanguageModel, options?: AiSdkModelOptions]>()
    expectTypeOf<AiSdkModelOptions['maxRetries']>().toEqualTypeOf<number | undefined>()
  })

  it('local loads a GGUF model and can be closed', () => {
    expectTypeOf<typeof local>().parameters.toEqualTypeOf<[options: LocalModelOptions]>()
    expectTypeOf<LocalModelOptions['model']>().toEqualTypeOf<string>()
    expectTypeOf<LocalModel>().toExtend<LLMProvider>()
    expectTypeOf<LocalModel['close']>().returns.toEqualTypeOf<Promise<void>>()
  })
})

describe('search and fetch adapters', () => {
  it('share HTTP search options, and take their own', () => {
    expectTypeOf<keyof HttpSearchOptions>().toEqualTypeOf<'timeoutMs' | 'maxRetries' | 'backoff' | 'headers' | 'fetch'>()
    for (const options of [{} as BraveOptions, {} as TavilyOptions, {} as DuckDuckGoOptions, {} as SearxngOptions]) {
      expectTypeOf(options).toExtend<HttpSearchOptions>()
    }
    expectTypeOf<HttpSearchOptions['maxRetries']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<BraveOptions['apiKey']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<TavilyOptions['apiKey']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<SearxngOptions['baseURL']>().toEqualTypeOf<string>()
    expectTypeOf<DuckDuckGoOptions['endpoint']>().toEqualTypeOf<string | undefined>()
  })

  it('localCorpus searches a folder or a list of documents', () => {
    expectTypeOf<ReturnType<typeof localCorpus>>().toEqualTypeOf<SearchProvider & FetchProvider>()
    expectTypeOf<keyof LocalCorpusBaseOptions>().toEqualTypeOf<'chunkChars' | 'snippetChars'>()
    expectTypeOf<Extract<LocalCorpusOptions, { dir: string }>>().toExtend<LocalCorpusBaseOptions>()
    expectTypeOf<Extract<LocalCorpusOptions, { dir: string }>['maxFileBytes']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Extract<LocalCorpusOptions, { dir?: undefined }>['documents']>().toEqualTypeOf<readonly LocalDocument[]>()
    expectTypeOf<LocalDocument['text']>().toEqualTypeOf<string>()
  })

  it('httpFetch guards the network; cached, memoryCache and createPacer take options', () => {
    expectTypeOf<HttpFetchOptions['allowPrivateNetwork']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<typeof isBlockedAddress>().parameters.toEqualTypeOf<[text: string]>()
    expectTypeOf<typeof isBlockedAddress>().returns.toEqualTypeOf<boolean>()
    expectTypeOf<ResolveHost>().parameters.toEqualTypeOf<[hostname: string, signal?: AbortSignal]>()
    expectTypeOf<ResolveHost>().returns.toEqualTypeOf<Promise<string[]>>()
    expectTypeOf<CacheOptions['ttl']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<MemoryCacheOptions['maxEntries']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<typeof createPacer>().parameters.toEqualTypeOf<[input?: PacerOptions]>()
    expectTypeOf<ReturnType<typeof createPacer>>().toEqualTypeOf<Pacer>()
    expectTypeOf<PacerOptions['intervalMs']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Pacer['wait']>().parameters.toEqualTypeOf<[signal?: AbortSignal]>()
  })
})

describe('scholarly search adapters', () => {
  it('take the HTTP search options, an endpoint and a pacer, and their own', () => {
    expectTypeOf<keyof ScholarlyOptions>().toEqualTypeOf<keyof HttpSearchOptions | 'baseURL' | 'pacer'>()
    expectTypeOf<ScholarlyOptions>().toExtend<HttpSearchOptions>()
    expectTypeOf<ScholarlyOptions['baseURL']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<ScholarlyOptions['pacer']>().toEqualTypeOf<Pacer | undefined>()
    for (const options of [{} as ArxivOptions, {} as OpenAlexOptions, {} as SemanticScholarOptions, {} as PubMedOptions, {} as WikipediaOptions]) {
      expectTypeOf(options).toExtend<ScholarlyOptions>()
    }
    expectTypeOf<ArxivOptions['sortBy']>().toEqualTypeOf<'relevance' | 'lastUpdatedDate' | 'submittedDate' | undefined>()
    expectTypeOf<OpenAlexOptions['mailto']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<SemanticScholarOptions['apiKey']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<PubMedOptions['email']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<WikipediaOptions['lang']>().toEqualTypeOf<string | undefined>()
  })

  it('are search providers, made with optional options', () => {
    expectTypeOf<typeof arxiv>().parameters.toEqualTypeOf<[options?: ArxivOptions]>()
    expectTypeOf<typeof openAlex>().parameters.toEqualTypeOf<[options?: OpenAlexOptions]>()
    expectTypeOf<typeof semanticScholar>().parameters.toEqualTypeOf<[options?: SemanticScholarOptions]>()
    expectTypeOf<typeof pubmed>().parameters.toEqualTypeOf<[options?: PubMedOptions]>()
    expectTypeOf<typeof wikipedia>().parameters.toEqualTypeOf<[options?: WikipediaOptions]>()
    expectTypeOf<ReturnType<typeof arxiv>>().toEqualTypeOf<SearchProvider>()
  })

  it('combineSearch takes providers and a weight for each', () => {
    expectTypeOf<typeof combineSearch>().parameters.toEqualTypeOf<[providers: readonly SearchProvider[], options?: CombineSearchOptions]>()
    expectTypeOf<CombineSearchOptions['weights']>().toEqualTypeOf<readonly number[] | undefined>()
    expectTypeOf<ReturnType<typeof combineSearch>>().toEqualTypeOf<SearchProvider>()
  })

  it("a result's meta: what a scholarly source knows of the work", () => {
    type Meta = NonNullable<SearchResult['meta']>
    expectTypeOf<Meta['authors']>().toEqualTypeOf<string[] | undefined>()
    expectTypeOf<Meta['year']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Meta['venue' | 'doi' | 'arxivId' | 'pdfUrl']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<{ title: string; url: string; snippet: string }>().toExtend<SearchResult>()
  })
})
