/**
 * Type-level tests of the chat handler (`laconic-research/server`), its message type and
 * schemas, against the AI SDK's own types (`ai@6`): `ResearchUIMessage` is a `UIMessage`, its
 * parts hold no transient data part, and the schemas are what `validateUIMessages` takes.
 */
import type { ChatInit, InferUIMessageChunk, UIMessage, validateUIMessages } from 'ai'
import { describe, expectTypeOf, it } from 'vitest'
import type { Agent, SessionState, SessionStore, EventOf, ResearchResult } from '../../src/index.js'
import type { ChatHandler, createChatHandler, createRequestGuard, RequestGuard, REBUILT_LIMITS, sessionStateFromMessages } from '../../src/server/index.js'
import type { StartedChatTurn } from '../../src/server/chat-handler.js'
import type { nodeListener } from '../../src/node/index.js'
import type { MaskedError, researchDataSchemas, researchMetadataSchema, ResearchUIMessage, toUIMessageStream } from '../../src/streams/index.js'
import type { OnMaskedError } from '../../src/streams/error-masking.js'
import type { ResearchDataParts } from '../../src/streams/ui-message-stream.js'
import type { ResearchDataUIPart, ResearchMessageDataParts, ResearchToolUIPart } from '../../src/streams/research-ui-message.js'
import type { ResearchSchema, SchemaIssue, SchemaResult } from '../../src/streams/standard-schema.js'

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

describe('createChatHandler', () => {
  it('is a fetch-style handler with a turn for composing', () => {
    expectTypeOf<typeof createChatHandler>().parameters.toEqualTypeOf<[options: ChatHandlerOptions]>()
    expectTypeOf<ChatHandler>().toExtend<(request: Request) => Promise<Response>>()
    expectTypeOf<ChatHandler['turn']>().returns.toEqualTypeOf<Promise<StartedChatTurn | Response>>()
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
    expectTypeOf<ChatHandlerOptions['onError']>().toEqualTypeOf<OnMaskedError | undefined>()
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
    expectTypeOf<ResearchSchema<string>['~standard']['validate']>().returns.toEqualTypeOf<SchemaResult<string>>()
    expectTypeOf<SchemaIssue['message']>().toEqualTypeOf<string>()
    expectTypeOf<ResearchDataSchemas>().toExtend<NonNullable<ChatInit<ResearchUIMessage>['dataPartSchemas']>>()
    type Options = Parameters<typeof validateUIMessages<ResearchUIMessage>>[0]
    expectTypeOf<{ messages: unknown; dataSchemas: ResearchDataSchemas; metadataSchema: typeof researchMetadataSchema }>().toExtend<Options>()
  })
})
