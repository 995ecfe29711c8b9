/**
 * Type-level tests of the chat handler (`laconic-research/server`), its message type and
 * schemas, against the AI SDK's own types (`ai@6`): `ResearchUIMessage` is a `UIMessage`, its
 * parts hold no transient data part, and the schemas are what `validateUIMessages` takes.
 */
import type { ChatInit, InferUIMessageChunk, UIMessage, validateUIMessages } from 'ai'
import { describe, expectTypeOf, it } from 'vitest'
import type { Agent, SessionState, SessionStore, EventOf, ResearchResult, ResearchRun } from '../../src/index.js'
import type { ChatHandler, createChatHandler, createRequestGuard, RequestGuard, REBUILT_LIMITS, sessionStateFromMessages } from '../../src/server/index.js'
import type { nodeListener } from '../../src/node/index.js'
import type { MaskedError, researchDataSchemas, researchMetadataSchema, ResearchUIMessage, toUIMessageStream } from '../../src/streams/index.js'

type WebHandler = Parameters<typeof nodeListener>[0]
type ResearchUIMessagePart = ResearchUIMessage['parts'][number]
type UIChunkOptions = NonNullable<Parameters<typeof toUIMessageStream>[1]>

type ChatAgent = Parameters<typeof createChatHandler>[0]['agent']
type ResearchMessageMetadata = NonNullable<ResearchUIMessage['metadata']>
type ResearchUIChunk = ReturnType<typeof toUIMessageStream> extends ReadableStream<infer C> ? C : never

type ChatHandlerOptions = NonNullable<Parameters<typeof createChatHandler>[0]>
type RequestGuardOptions = NonNullable<Parameters<typeof createRequestGuard>[0]>
type ResearchDataSchemas = typeof researchDataSchemas

type ClaimVerdict = EventOf<'claim'>['verdict']
type Fact = ResearchResult['facts'][number]
type SessionFact = SessionState['facts'][number]
type SessionOptions = NonNullable<Parameters<Agent['session']>[1]>

// The types below have no name on an entry point: a user reaches them through the handler's
// turn, the message's parts and the stream's chunks, as here.
/** A turn the handler started: what `turn()` gives when it does not answer with a Response. */
type StartedChatTurn = Exclude<Awaited<ReturnType<ChatHandler['turn']>>, Response>
/** A kept `data-*` part of a message, and the tool call part. */
type ResearchDataUIPart = Extract<ResearchUIMessagePart, { type: `data-${string}` }>
type ResearchToolUIPart = Extract<ResearchUIMessagePart, { type: 'dynamic-tool' }>
/** The stream's data parts by name (`data-fact` is `fact`), the transient ones included. */
type ResearchDataParts = {
  [Chunk in Extract<ResearchUIChunk, { type: `data-${string}` }> as Chunk['type'] extends `data-${infer Name}` ? Name : never]: Chunk['data']
}
/** The data parts a message keeps: the stream's, less the transient ones (progress only). */
type ResearchMessageDataParts = Omit<ResearchDataParts, 'page' | 'knowledge' | 'llm-call'>
/** What a schema's `validate` answers: the value, or the issues (Standard Schema v1, written out). */
type SchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey> | undefined }> }
/** A Standard Schema v1 of values of type `Output`, vendor `laconic-research`, written out. */
type ResearchSchema<Output> = {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: 'laconic-research'
    readonly validate: (value: unknown) => SchemaResult<Output>
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined
  }
}
type SchemaIssue = Extract<ReturnType<ResearchDataSchemas['fact']['~standard']['validate']>, { issues: ReadonlyArray<unknown> }>['issues'][number]

describe('createChatHandler', () => {
  it('is a fetch-style handler with a turn for composing', () => {
    expectTypeOf<typeof createChatHandler>().parameters.toEqualTypeOf<[options: ChatHandlerOptions]>()
    expectTypeOf<ChatHandler>().toExtend<(request: Request) => Promise<Response>>()
    expectTypeOf<ChatHandler['turn']>().returns.toEqualTypeOf<Promise<StartedChatTurn | Response>>()
    expectTypeOf<StartedChatTurn>().toEqualTypeOf<{ chatId: string; question: string; run: ResearchRun; stream: ReadableStream<ResearchUIChunk> }>()
    expectTypeOf<StartedChatTurn['stream']>().toEqualTypeOf<ReadableStream<ResearchUIChunk>>()
    // It mounts in node:http as it is.
    expectTypeOf<ChatHandler>().toExtend<WebHandler>()
    expectTypeOf<typeof nodeListener>().parameters.toEqualTypeOf<[handler: WebHandler]>()
  })

  it("takes the server's token guard, and false", () => {
    // One request guard for both handlers: its guard, and its options.
    expectTypeOf<ReturnType<typeof createRequestGuard>>().toExtend<NonNullable<ChatHandlerOptions['guard']>>()
    expectTypeOf<ChatHandlerOptions['guard']>().toEqualTypeOf<Pick<RequestGuard, 'checkStart'> | false | undefined>()
    expectTypeOf<ChatHandlerOptions>().toExtend<RequestGuardOptions>()
    expectTypeOf<ChatHandlerOptions['host']>().toEqualTypeOf<string | false | undefined>()
    expectTypeOf<ChatHandlerOptions['token']>().toEqualTypeOf<string | false | undefined>()
    expectTypeOf<ChatAgent['session']>().returns.toHaveProperty('research')
    expectTypeOf<Agent>().toExtend<ChatAgent>()
  })

  it('reports hidden failures with their kind and chat', () => {
    expectTypeOf<ChatHandlerOptions['onError']>().toEqualTypeOf<((error: MaskedError) => void) | undefined>()
    expectTypeOf<MaskedError['kind']>().toEqualTypeOf<'run' | 'warning' | 'search' | 'tool' | 'request'>()
    expectTypeOf<UIChunkOptions['maskErrors']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<typeof sessionStateFromMessages>().returns.toEqualTypeOf<SessionState>()
    expectTypeOf<SessionState['facts']>().toEqualTypeOf<SessionFact[]>()
    expectTypeOf<ChatHandlerOptions['store']>().toEqualTypeOf<SessionStore | undefined>()
    expectTypeOf<Parameters<ChatAgent['session']>[1]>().toEqualTypeOf<SessionOptions | undefined>()
    expectTypeOf<(typeof REBUILT_LIMITS)['facts']>().toEqualTypeOf<300>()
  })
})

describe('ResearchUIMessage', () => {
  it("is an AI SDK UIMessage, with the run's metadata", () => {
    expectTypeOf<ResearchUIMessage>().toExtend<UIMessage<ResearchMessageMetadata>>()
    expectTypeOf<ResearchUIMessage>().toExtend<UIMessage<ResearchMessageMetadata, ResearchMessageDataParts>>()
    expectTypeOf<ResearchUIMessage['metadata']>().toEqualTypeOf<ResearchMessageMetadata | undefined>()
    expectTypeOf<ResearchUIMessage['parts']>().toEqualTypeOf<ResearchUIMessagePart[]>()
    expectTypeOf<InferUIMessageChunk<ResearchUIMessage>>().not.toBeNever()
  })

  it('narrows a data part by its type, and holds no transient part', () => {
    expectTypeOf<Extract<ResearchUIMessagePart, { type: 'data-fact' }>['data']['fact']>().toEqualTypeOf<Fact>()
    expectTypeOf<Extract<ResearchUIMessagePart, { type: 'data-page' | 'data-knowledge' | 'data-llm-call' }>>().toBeNever()
    expectTypeOf<keyof ResearchMessageDataParts>().toEqualTypeOf<
      'plan' | 'query' | 'fact' | 'cost' | 'warning' | 'recall' | 'report' | 'outline' | 'section' | 'claim' | 'revision'
    >()
    expectTypeOf<ResearchDataUIPart['type']>().toEqualTypeOf<
      | 'data-plan'
      | 'data-query'
      | 'data-fact'
      | 'data-cost'
      | 'data-warning'
      | 'data-recall'
      | 'data-report'
      | 'data-outline'
      | 'data-section'
      | 'data-claim'
      | 'data-revision'
    >()
    expectTypeOf<Extract<ResearchUIMessagePart, { type: 'data-section' }>['data']>().toEqualTypeOf<{
      index: number
      title: string
      start: number
      end?: number
    }>()
    expectTypeOf<Extract<ResearchUIMessagePart, { type: 'data-claim' }>['data']['verdict']>().toEqualTypeOf<ClaimVerdict>()
    expectTypeOf<ResearchMessageMetadata['supportRate']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Extract<ResearchToolUIPart, { state: 'output-available' }>['output']>().toEqualTypeOf<{ summary: string; chars: number }>()
  })
})

describe('the schemas', () => {
  it('are Standard Schemas of each data part and of the metadata, as validateUIMessages takes them', () => {
    expectTypeOf<ResearchDataSchemas['fact']>().toEqualTypeOf<ResearchSchema<ResearchDataParts['fact']>>()
    expectTypeOf<typeof researchDataSchemas>().toEqualTypeOf<ResearchDataSchemas>()
    expectTypeOf<typeof researchMetadataSchema>().toEqualTypeOf<ResearchSchema<ResearchMessageMetadata | undefined>>()
    expectTypeOf<ResearchDataSchemas['warning']['~standard']['validate']>().returns.toEqualTypeOf<SchemaResult<ResearchDataParts['warning']>>()
    expectTypeOf<SchemaIssue['message']>().toEqualTypeOf<string>()
    expectTypeOf<ResearchDataSchemas>().toExtend<NonNullable<ChatInit<ResearchUIMessage>['dataPartSchemas']>>()
    type Options = Parameters<typeof validateUIMessages<ResearchUIMessage>>[0]
    expectTypeOf<{ messages: unknown; dataSchemas: ResearchDataSchemas; metadataSchema: typeof researchMetadataSchema }>().toExtend<Options>()
  })
})
