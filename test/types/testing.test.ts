/**
 * Type-level tests of the `laconic-research/testing` and `laconic-research/otel` sub-paths: the
 * fakes tests build runs from, and the tracing options.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { FetchedPage, LLMProvider, LLMRequest, ProviderError, SearchResult } from '../../src/index.js'
import type { TraceRunOptions } from '../../src/otel/index.js'
import type { InFlight, MockFetch, MockSearch, ScriptedLLM, searchFailure, sleep, mockFetch, mockSearch, scriptedLLM } from '../../src/testing/index.js'

type Script = Parameters<typeof scriptedLLM>[0]['replies']
type ScriptedReply = Exclude<Extract<Parameters<typeof scriptedLLM>[0]['replies'], readonly unknown[]>[number], string>

type MockFetchOptions = NonNullable<Parameters<typeof mockFetch>[0]>
type MockSearchOptions = NonNullable<Parameters<typeof mockSearch>[0]>
type ScriptedLLMOptions = NonNullable<Parameters<typeof scriptedLLM>[0]>

type ProviderErrorDetails = ConstructorParameters<typeof ProviderError>[1]

describe('testing fakes', () => {
  it('scriptedLLM replies from a script and records requests', () => {
    expectTypeOf<ScriptedLLMOptions['replies']>().toEqualTypeOf<Script>()
    expectTypeOf<ScriptedReply>().toHaveProperty('text').toEqualTypeOf<string>()
    expectTypeOf<[string, ScriptedReply]>().toExtend<Extract<Script, readonly unknown[]>>()
    expectTypeOf<ScriptedLLM>().toExtend<LLMProvider>()
    expectTypeOf<ScriptedLLM['calls']>().toEqualTypeOf<LLMRequest[]>()
    expectTypeOf<ScriptedLLM['inFlight']>().toEqualTypeOf<InFlight>()
  })

  it('mockSearch and mockFetch record calls and signals', () => {
    expectTypeOf<MockSearchOptions['corpus']>().toEqualTypeOf<readonly SearchResult[] | undefined>()
    expectTypeOf<MockSearch['calls']>().toEqualTypeOf<string[]>()
    expectTypeOf<MockSearch['signals']>().toEqualTypeOf<(AbortSignal | undefined)[]>()
    expectTypeOf<MockFetchOptions['pages']>().toEqualTypeOf<Readonly<Record<string, string | Omit<FetchedPage, 'url'>>>>()
    expectTypeOf<MockFetch['calls']>().toEqualTypeOf<string[]>()
    expectTypeOf<MockFetch['inFlight']>().toEqualTypeOf<InFlight>()
  })

  it('searchFailure and sleep script failures and waits', () => {
    expectTypeOf<typeof searchFailure>().parameters.toEqualTypeOf<[message?: string]>()
    expectTypeOf<ReturnType<typeof searchFailure>>().toEqualTypeOf<ProviderError>()
    expectTypeOf<ProviderErrorDetails['provider']>().toEqualTypeOf<string>()
    expectTypeOf<typeof sleep>().parameters.toEqualTypeOf<[ms: number, signal?: AbortSignal]>()
    expectTypeOf<InFlight['peak']>().toEqualTypeOf<number>()
  })
})

describe('otel', () => {
  it('traceRun names the agent', () => {
    expectTypeOf<TraceRunOptions['agentName']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<TraceRunOptions['captureContent']>().toEqualTypeOf<boolean | undefined>()
  })
})
