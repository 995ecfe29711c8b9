/**
 * Type-level tests of each sub-path's main exports: the signatures users call. Sub-paths are
 * imported as types only, so nothing here loads an optional peer dependency.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type * as adapters from '../../src/adapters/index.js'
import type {
  Agent,
  AgentOptions,
  EventOf,
  EventType,
  FetchProvider,
  LLMProvider,
  ResearchEvent,
  ResearchOptions,
  ResearchResult,
  ResearchRun,
  SearchProvider,
  Session,
  SessionState,
  SessionStore,
} from '../../src/index.js'
import type { Strategy, StrategyDefinition } from '../../src/strategy.js'
import type * as root from '../../src/index.js'
import type * as node from '../../src/node/index.js'
import type * as otel from '../../src/otel/index.js'
import type * as server from '../../src/server/index.js'
import type * as redis from '../../src/redis/index.js'
import type * as kit from '../../src/strategy.js'
import type * as streams from '../../src/streams/index.js'
import type * as testing from '../../src/testing/index.js'

// Parts of the entries' types, named the way users reach them.
type EventStream = Parameters<typeof streams.toSSE>[0]
type LiveAgent = Parameters<typeof server.inProcessRuns>[0]['agent']

describe('laconic-research', () => {
  it('createAgent makes an agent whose research is a ResearchRun with a real Promise of the result', () => {
    expectTypeOf<typeof root.createAgent>().toEqualTypeOf<(options: AgentOptions) => Agent>()
    expectTypeOf<Agent['research']>().parameters.toEqualTypeOf<[string, ResearchOptions?]>()
    expectTypeOf<Agent['research']>().returns.toEqualTypeOf<ResearchRun>()
    expectTypeOf<Agent['answer']>().returns.toEqualTypeOf<Promise<ResearchResult>>()
    expectTypeOf<ResearchRun['result']>().toEqualTypeOf<Promise<ResearchResult>>()
    expectTypeOf<ResearchRun['runId']>().toEqualTypeOf<string>()
    expectTypeOf<ResearchRun>().toExtend<AsyncIterable<ResearchEvent>>()
    expectTypeOf<ResearchRun['abort']>().parameters.toEqualTypeOf<[reason?: unknown]>()
    expectTypeOf<ResearchRun['toReadableStream']>().returns.toEqualTypeOf<ReadableStream<ResearchEvent>>()
  })

  it('a session researches like the agent', () => {
    expectTypeOf<Agent['session']>().parameters.toEqualTypeOf<[chatId?: string, options?: { store?: SessionStore; state?: SessionState }]>()
    expectTypeOf<Agent['session']>().returns.toEqualTypeOf<Session>()
    expectTypeOf<Session['chatId']>().toEqualTypeOf<string>()
    expectTypeOf<Session['state']>().returns.toEqualTypeOf<Promise<SessionState>>()
    expectTypeOf<Session['research']>().returns.toEqualTypeOf<ResearchRun>()
    expectTypeOf<Session['answer']>().returns.toEqualTypeOf<Promise<ResearchResult>>()
  })

  it('a session state is plain JSON kept by a SessionStore, such as memorySessions()', () => {
    expectTypeOf<typeof root.memorySessions>().returns.toEqualTypeOf<SessionStore>()
    expectTypeOf<typeof root.memorySessions>().parameter(0).toEqualTypeOf<{ maxChats?: number } | undefined>()
    expectTypeOf<SessionState['version']>().toEqualTypeOf<1>()
    expectTypeOf<SessionState['facts']>().toEqualTypeOf<{ text: string; url: string; title?: string }[]>()
    expectTypeOf<SessionStore['update']>().parameter(1).toEqualTypeOf<(current: SessionState | undefined) => SessionState>()
  })

  it('defineStrategy makes a definition, callable with options of its section, that the registry takes', () => {
    // Never called: what `defineStrategy` infers is the point.
    const define = (defineStrategy: typeof kit.defineStrategy) =>
      defineStrategy({
        name: 'depth',
        optionsKey: 'depth',
        normalize: (options: { depth?: number } | undefined) => ({ depth: options?.depth ?? 1 }),
        concurrency: (settings) => settings.depth,
        async *run(_question, ctx, settings) {
          // `run` gets what `normalize` returned, typed.
          expectTypeOf(settings).toEqualTypeOf<{ depth: number }>()
          expectTypeOf(ctx.limit<string>).returns.toEqualTypeOf<Promise<string>>()
          yield { type: 'answer', text: String(settings.depth), citations: [] }
        },
      })
    type Defined = ReturnType<typeof define>
    expectTypeOf<Defined>().parameters.toEqualTypeOf<[options?: { depth?: number }]>()
    expectTypeOf<Defined>().returns.toEqualTypeOf<Strategy>()
    expectTypeOf<Defined>().toExtend<StrategyDefinition<unknown, { depth?: number }>>()
    expectTypeOf<typeof root.registerStrategy<unknown, { depth?: number }>>().parameters.toEqualTypeOf<[StrategyDefinition<unknown, { depth?: number }>]>()
    expectTypeOf<Strategy['concurrency']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<typeof root.strategyNames>().returns.toEqualTypeOf<string[]>()
    expectTypeOf<typeof root.fromGenerate>().returns.toEqualTypeOf<LLMProvider>()
  })
})

describe('laconic-research/adapters', () => {
  it('model adapters return an LLMProvider', () => {
    expectTypeOf<typeof adapters.openai>().returns.toEqualTypeOf<LLMProvider>()
    expectTypeOf<typeof adapters.openai>().parameter(0).toHaveProperty('model')
    expectTypeOf<typeof adapters.ollama>().returns.toEqualTypeOf<LLMProvider>()
    expectTypeOf<typeof adapters.anthropic>().returns.toEqualTypeOf<LLMProvider>()
    expectTypeOf<typeof adapters.aiSdkModel>().returns.toEqualTypeOf<LLMProvider>()
    expectTypeOf<ReturnType<typeof adapters.local>>().toExtend<LLMProvider>()
    expectTypeOf<ReturnType<typeof adapters.local>['load']>().returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf<{ model: string }>().toExtend<Parameters<typeof adapters.openai>[0]>()
    expectTypeOf<{ apiKey: string }>().not.toExtend<Parameters<typeof adapters.anthropic>[0]>()
  })

  it('search adapters return a SearchProvider; the local corpus also fetches its documents', () => {
    expectTypeOf<typeof adapters.duckduckgo>().returns.toEqualTypeOf<SearchProvider>()
    expectTypeOf<typeof adapters.brave>().returns.toEqualTypeOf<SearchProvider>()
    expectTypeOf<typeof adapters.tavily>().returns.toEqualTypeOf<SearchProvider>()
    expectTypeOf<typeof adapters.searxng>().returns.toEqualTypeOf<SearchProvider>()
    expectTypeOf<typeof adapters.localCorpus>().returns.toEqualTypeOf<SearchProvider & FetchProvider>()
  })

  it('httpFetch returns a FetchProvider, and cached keeps the provider’s own type', () => {
    expectTypeOf<typeof adapters.httpFetch>().returns.toEqualTypeOf<FetchProvider>()
    expectTypeOf<typeof adapters.cached<SearchProvider>>().returns.toEqualTypeOf<SearchProvider>()
    expectTypeOf<typeof adapters.cached<FetchProvider>>().returns.toEqualTypeOf<FetchProvider>()
    expectTypeOf<typeof adapters.memoryCache>().returns.toEqualTypeOf<adapters.CacheStore>()
  })
})

describe('laconic-research/streams', () => {
  it('encoders take a run (or any event stream) and give bytes', () => {
    expectTypeOf<ResearchRun>().toExtend<EventStream>()
    expectTypeOf<AsyncIterable<ResearchEvent>>().toExtend<EventStream>()
    expectTypeOf<typeof streams.toSSE>().returns.toEqualTypeOf<ReadableStream<Uint8Array>>()
    expectTypeOf<typeof streams.toNDJSON>().parameters.toEqualTypeOf<[EventStream]>()
    expectTypeOf<typeof streams.toNDJSON>().returns.toEqualTypeOf<ReadableStream<Uint8Array>>()
  })

  it('decoders give ResearchEvents back', () => {
    expectTypeOf<typeof streams.fromSSE>().returns.toExtend<AsyncIterable<ResearchEvent>>()
    expectTypeOf<Response>().toExtend<Parameters<typeof streams.fromSSE>[0]>()
    expectTypeOf<typeof streams.fromNDJSON>().returns.toExtend<AsyncIterable<ResearchEvent>>()
    expectTypeOf<typeof streams.parseResearchEvent>().toEqualTypeOf<(text: string) => ResearchEvent | undefined>()
  })

  it('filter narrows to the chosen event types; the other helpers keep the whole union', () => {
    type Filter = typeof streams.filter<'fact' | 'answer'>
    expectTypeOf<Filter>().parameters.toEqualTypeOf<[AsyncIterable<ResearchEvent>, ...('fact' | 'answer')[]]>()
    expectTypeOf<Filter>().returns.toEqualTypeOf<AsyncGenerator<EventOf<'fact' | 'answer'>>>()
    expectTypeOf<typeof streams.filter<EventType>>().returns.toEqualTypeOf<AsyncGenerator<ResearchEvent>>()
    expectTypeOf<typeof streams.coalesceTokens>().returns.toEqualTypeOf<AsyncGenerator<ResearchEvent>>()
    expectTypeOf<typeof streams.collectMetrics>().returns.toEqualTypeOf<Promise<streams.RunMetrics>>()
    expectTypeOf<typeof streams.broadcast>().returns.toEqualTypeOf<streams.Broadcast>()
    expectTypeOf<ReturnType<streams.Broadcast['subscribe']>>().toExtend<AsyncIterable<ResearchEvent>>()
  })
})

describe('laconic-research/strategy, /testing, /node, /otel', () => {
  it('the built-in strategies are definitions, callable as factories, and the toolkit keeps its types', () => {
    // Each takes its own section of the agent's options (as `createAgent` would pass it).
    expectTypeOf<typeof kit.scratchpad>().toEqualTypeOf<
      StrategyDefinition<unknown, NonNullable<AgentOptions['scratchpad']>> & ((options?: NonNullable<AgentOptions['scratchpad']>) => Strategy)
    >()
    expectTypeOf<typeof kit.graphReader>().toEqualTypeOf<
      StrategyDefinition<unknown, NonNullable<AgentOptions['graphReader']>> & ((options?: NonNullable<AgentOptions['graphReader']>) => Strategy)
    >()
    expectTypeOf<typeof kit.reflect>().toEqualTypeOf<
      StrategyDefinition<unknown, NonNullable<AgentOptions['reflect']>> & ((options?: NonNullable<AgentOptions['reflect']>) => Strategy)
    >()
    expectTypeOf<typeof kit.deep>().toEqualTypeOf<
      StrategyDefinition<unknown, NonNullable<AgentOptions['deep']>> & ((options?: NonNullable<AgentOptions['deep']>) => Strategy)
    >()
    expectTypeOf<typeof kit.react>().toEqualTypeOf<
      StrategyDefinition<unknown, NonNullable<AgentOptions['react']>> & ((options?: NonNullable<AgentOptions['react']>) => Strategy)
    >()
    expectTypeOf<ReturnType<typeof kit.createMerge<number>>>().toExtend<AsyncIterable<number>>()
    expectTypeOf<Awaited<ReturnType<typeof kit.generate>>['text']>().toEqualTypeOf<string>()
    expectTypeOf<typeof kit.parseLooseJson>().returns.toEqualTypeOf<unknown>()
  })

  it('the test doubles are providers', () => {
    expectTypeOf<ReturnType<typeof testing.scriptedLLM>>().toExtend<LLMProvider>()
    expectTypeOf<ReturnType<typeof testing.mockSearch>>().toExtend<SearchProvider>()
    expectTypeOf<ReturnType<typeof testing.mockFetch>>().toExtend<FetchProvider>()
    expectTypeOf<typeof testing.assertEventInvariants>().parameters.toEqualTypeOf<[readonly ResearchEvent[]]>()
  })

  it('node checkpoints and otel tracing fit the run’s types', () => {
    expectTypeOf<typeof node.fileCheckpoints>().returns.toEqualTypeOf<root.CheckpointStore>()
    expectTypeOf<typeof node.fileSessions>().parameter(0).toEqualTypeOf<string>()
    expectTypeOf<typeof node.fileSessions>().returns.toEqualTypeOf<SessionStore>()
    expectTypeOf<typeof otel.traceRun>().parameter(0).toEqualTypeOf<AsyncIterable<ResearchEvent>>()
    expectTypeOf<typeof otel.traceRun>().returns.toEqualTypeOf<AsyncGenerator<ResearchEvent, void, undefined>>()
  })

  it("the live server's source view reads with any FetchProvider (a local corpus)", () => {
    type ReadSource = NonNullable<Parameters<typeof node.createLiveServer>[0]['readSource']>
    const reader = (corpus: FetchProvider) => (url: string, signal: AbortSignal) => corpus.fetch(url, { signal })
    expectTypeOf<ReturnType<typeof reader>>().toExtend<ReadSource>()
    expectTypeOf<ReadSource>().parameters.toEqualTypeOf<[string, AbortSignal]>()
  })
})

describe('laconic-research/server', () => {
  it('the handler is a fetch-style function over a run host, and fits wherever (request: Request) => Promise<Response> does', () => {
    expectTypeOf<typeof server.createResearchHandler>().returns.toEqualTypeOf<server.ResearchHandler>()
    expectTypeOf<server.ResearchHandler>().toExtend<(request: Request) => Promise<Response>>()
    expectTypeOf<server.ResearchHandler>().parameter(1).toEqualTypeOf<{ address?: string | undefined } | undefined>()
    type HandlerOptions = Parameters<typeof server.createResearchHandler>[0]
    expectTypeOf<HandlerOptions['runs']>().toEqualTypeOf<server.RunHost>()
    expectTypeOf<NonNullable<HandlerOptions['limits']>['maxActiveRuns']>().toEqualTypeOf<number | undefined>()
  })

  it('the in-process host is a RunHost on any agent createAgent makes, closed by close()', () => {
    type InProcessRuns = ReturnType<typeof server.inProcessRuns>
    expectTypeOf<InProcessRuns>().toExtend<server.RunHost>()
    expectTypeOf<Agent>().toExtend<LiveAgent>()
    expectTypeOf<InProcessRuns['close']>().returns.toEqualTypeOf<void>()
  })

  it('a host streams events, says a run ended, or knows no such run; its status is JSON', () => {
    expectTypeOf<ReturnType<server.RunHost['events']>>().toEqualTypeOf<Promise<EventStream | 'ended' | undefined>>()
    type StartedRun = Awaited<ReturnType<server.RunHost['start']>>
    type RunStatus = NonNullable<Awaited<ReturnType<server.RunHost['status']>>>
    expectTypeOf<StartedRun['ended']>().toEqualTypeOf<Promise<void>>()
    expectTypeOf<RunStatus['state']>().toEqualTypeOf<'queued' | 'running' | 'done' | 'failed'>()
    expectTypeOf<RunStatus['result']>().toEqualTypeOf<ResearchResult | undefined>()
    expectTypeOf<NonNullable<Awaited<ReturnType<NonNullable<server.RunHost['readSource']>>>>>().toHaveProperty('text')
  })

  it("a paused run is answered with the core's decision type, and the agent's resume fits the host", () => {
    expectTypeOf<NonNullable<server.RunHost['decide']>>().parameters.toEqualTypeOf<[string, root.InterruptDecision]>()
    expectTypeOf<NonNullable<server.RunHost['decide']>>().returns.toEqualTypeOf<Promise<Awaited<ReturnType<server.RunHost['start']>> | undefined>>()
    expectTypeOf<Agent['resume']>().toExtend<NonNullable<LiveAgent['resume']>>()
    expectTypeOf<Parameters<typeof server.inProcessRuns>[0]['checkpoints']>().toEqualTypeOf<root.CheckpointStore | undefined>()
    expectTypeOf<Parameters<typeof node.createLiveServer>[0]['review']>().toEqualTypeOf<{ plan?: boolean; tools?: boolean } | undefined>()
  })

  it("a follow-up is a turn of the agent's session, kept in any SessionStore", () => {
    expectTypeOf<Agent['session']>().toExtend<NonNullable<LiveAgent['session']>>()
    expectTypeOf<Parameters<typeof server.inProcessRuns>[0]['sessions']>().toEqualTypeOf<root.SessionStore | undefined>()
    expectTypeOf<Parameters<typeof node.createLiveServer>[0]['sessions']>().toEqualTypeOf<root.SessionStore | undefined>()
    expectTypeOf<server.RunHost['conversations']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<server.RunHost['start']>().parameter(1).toEqualTypeOf<{ strategy?: string | undefined; conversation?: string | undefined }>()
  })

  it('the request guard checks a Web Request or Node headers', () => {
    expectTypeOf<typeof server.createRequestGuard>().returns.toEqualTypeOf<server.RequestGuard>()
    type GuardOptions = NonNullable<Parameters<typeof server.createRequestGuard>[0]>
    expectTypeOf<Request>().toExtend<Parameters<server.RequestGuard['checkStart']>[0]>()
    expectTypeOf<NonNullable<ReturnType<server.RequestGuard['checkStart']>>>().toHaveProperty('status')
    expectTypeOf<GuardOptions['token']>().toEqualTypeOf<string | false | undefined>()
    expectTypeOf<Parameters<typeof server.createResearchHandler>[0]>().toExtend<GuardOptions>()
  })
})

describe('laconic-research/redis', () => {
  it("the event log's refusals are an error of its own, not core's ErrorCode", () => {
    expectTypeOf<redis.EventLogError>().toExtend<root.LaconicError>()
    expectTypeOf<'fenced'>().toExtend<redis.EventLogError['code']>()
    expectTypeOf<'locked'>().not.toExtend<redis.EventLogError['code']>()
  })
})
