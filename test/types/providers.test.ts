/**
 * Type-level tests of the root entry's provider contracts: what a model, search or fetch
 * provider is asked, how retries and failures are reported, and the event stamp.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type {
  CheckpointStore,
  Cost,
  EventType,
  FetchedPage,
  LaconicError,
  LLMChunk,
  LLMRequest,
  ProviderError,
  SearchOptions,
  SearchResult,
  ResearchOptions,
  EventOf,
  memoryCheckpoints,
  ResearchEvent,
  FetchProvider,
  fromGenerate,
  Pricing,
  Checkpoint,
  AgentOptions,
} from '../../src/index.js'
import type { StrategyContext } from '../../src/strategy.js'

type SearchOutcome = ReturnType<StrategyContext['runSearch']> extends AsyncGenerator<unknown, infer T> ? T : never
type DocumentKind = NonNullable<FetchedPage['kind']>
type EventStamp = Pick<ResearchEvent, 'runId' | 'seq' | 'time'>
type FetchOptions = NonNullable<Parameters<FetchProvider['fetch']>[1]>
type GenerateFunction = Parameters<typeof fromGenerate>[0]
type ModelPrice = Pricing[string]
type PageWarning = NonNullable<FetchedPage['warnings']>[number]
type PriorAnswer = NonNullable<Checkpoint['input']['priorAnswers']>[number]
type ProviderUsage = Parameters<NonNullable<SearchOptions['onUsage']>>[0]
type ProviderErrorDetails = ConstructorParameters<typeof ProviderError>[1]
type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]
type SharedOptions = AgentOptions
type SourceFilter = NonNullable<ResearchOptions['sources']>
type SourceFilterPart = Parameters<NonNullable<SearchOptions['onSourcesApplied']>>[0][number]
type ToolCall = Omit<Extract<LLMChunk, { type: 'tool-call' }>, 'type'>
type ToolSpec = NonNullable<LLMRequest['tools']>[number]
type UsageReporter = NonNullable<SearchOptions['onUsage']>

describe('source rules', () => {
  it('are options of the agent and of a run, handed to search providers, counted on the result event', () => {
    expectTypeOf<SharedOptions['sources']>().toEqualTypeOf<SourceFilter | undefined>()
    expectTypeOf<ResearchOptions['sources']>().toEqualTypeOf<SourceFilter | undefined>()
    expectTypeOf<SourceFilter['allow']>().toEqualTypeOf<readonly string[] | undefined>()
    expectTypeOf<SourceFilter['after']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<SourceFilter['strictDates']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<SourceFilterPart>().toEqualTypeOf<'domains' | 'dates'>()
    expectTypeOf<SearchOptions['sources']>().toEqualTypeOf<SourceFilter | undefined>()
    expectTypeOf<SearchOptions['onSourcesApplied']>().toEqualTypeOf<((parts: readonly SourceFilterPart[]) => void) | undefined>()
    expectTypeOf<SearchResult['published']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<FetchedPage['published']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<EventOf<'result'>['sourcesFiltered']>().toEqualTypeOf<number | undefined>()
  })
  it('language is a BCP 47 tag on the agent and on a run', () => {
    expectTypeOf<SharedOptions['language']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<ResearchOptions['language']>().toEqualTypeOf<string | undefined>()
  })
})

describe('provider contracts', () => {
  it('requests carry a prompt, a signal and a retry callback', () => {
    expectTypeOf<LLMRequest['prompt']>().toEqualTypeOf<string>()
    expectTypeOf<LLMRequest['signal']>().toEqualTypeOf<AbortSignal | undefined>()
    expectTypeOf<SearchOptions['limit']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<SearchOptions['onRetry']>().toEqualTypeOf<((info: RetryInfo) => void) | undefined>()
    expectTypeOf<SearchOptions['onWarning']>().toEqualTypeOf<((warning: PageWarning) => void) | undefined>()
    expectTypeOf<FetchOptions['onRetry']>().toEqualTypeOf<((info: RetryInfo) => void) | undefined>()
    expectTypeOf<RetryInfo['attempt']>().toEqualTypeOf<number>()
    expectTypeOf<RetryInfo['delayMs']>().toEqualTypeOf<number>()
  })

  it('a search tells the run what it spent on calls of its own, which the run counts in its cost', () => {
    expectTypeOf<SearchOptions['onUsage']>().toEqualTypeOf<UsageReporter | undefined>()
    expectTypeOf<UsageReporter>().toEqualTypeOf<(usage: ProviderUsage) => void>()
    expectTypeOf<{ kind: 'embedding'; model: 'text-embedding-3-small'; inputTokens: 12; cost: 0 }>().toExtend<ProviderUsage>()
    expectTypeOf<{ kind: 'model'; role: 'reranker'; model: 'gpt-4o-mini'; inputTokens: 300; outputTokens: 9 }>().toExtend<ProviderUsage>()
    // A model call's usage needs its tokens.
    expectTypeOf<{ kind: 'model'; role: 'reranker' }>().not.toExtend<ProviderUsage>()
    expectTypeOf<Cost['embedding']>().toEqualTypeOf<number>()
    expectTypeOf<Cost['embeddingTokens']>().toEqualTypeOf<number>()
  })

  it('a model streams chunks, and may call tools', () => {
    expectTypeOf<Extract<LLMChunk, { type: 'text' }>>().toEqualTypeOf<{ type: 'text'; text: string }>()
    expectTypeOf<Extract<LLMChunk, { type: 'tool-call' }>>().toExtend<ToolCall>()
    expectTypeOf<ToolCall['args']>().toEqualTypeOf<string>()
    expectTypeOf<ToolSpec['name']>().toEqualTypeOf<string>()
    expectTypeOf<GenerateFunction>().parameters.toEqualTypeOf<[system: string, prompt: string, options: { signal?: AbortSignal }]>()
    expectTypeOf<ModelPrice['inputPerMillion']>().toEqualTypeOf<number>()
  })

  it('a failed provider call says which provider and whether to retry', () => {
    expectTypeOf<ProviderError>().toExtend<LaconicError>()
    expectTypeOf<ProviderErrorDetails['provider']>().toEqualTypeOf<string>()
    expectTypeOf<ProviderErrorDetails['retryable']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<SearchOutcome['results']>().toEqualTypeOf<SearchResult[]>()
  })
})

describe('runs', () => {
  it('every event is stamped, and its type is one of EventType', () => {
    expectTypeOf<EventStamp>().toEqualTypeOf<{ runId: string; seq: number; time: number }>()
    expectTypeOf<ResearchEvent['type']>().toEqualTypeOf<EventType>()
    expectTypeOf<DocumentKind>().toEqualTypeOf<'pdf' | 'docx'>()
    expectTypeOf<PriorAnswer['answer']>().toEqualTypeOf<string>()
    expectTypeOf<ReturnType<typeof memoryCheckpoints>>().toEqualTypeOf<CheckpointStore>()
  })
})
