/** Type-level tests of the event union: what a consumer's `switch (event.type)` can rely on. */
import { describe, expectTypeOf, it } from 'vitest'
import type {
  Cost,
  ErrorCode,
  EventOf,
  EventType,
  FetchedPage,
  InterruptRequest,
  ResearchEvent,
  SearchResult,
  ResearchResult,
  MemoryStore,
  InterruptDecision,
} from '../../src/index.js'
import type { StrategyEvent } from '../../src/strategy.js'

type Citation = ResearchResult['citations'][number]
type ClaimVerdict = EventOf<'claim'>['verdict']
type ErrorInfo = NonNullable<EventOf<'run-end'>['error']>
type Fact = ResearchResult['facts'][number]
type RecalledFinding = Awaited<ReturnType<MemoryStore['recall']>>[number]
type ReportOutline = Extract<InterruptDecision, { outline: unknown }>['outline']
type RunEndReason = EventOf<'run-end'>['reason']
type WarningCode = EventOf<'warning'>['code']

/** True when `T` is a union of more than one member. */
type IsUnion<T> = [T] extends [UnionToIntersection<T>] ? false : true
type UnionToIntersection<U> = (U extends unknown ? (arg: U) => void : never) extends (arg: infer I) => void ? I : never

/** For every event type: exactly one member of the union carries it, and its `type` is that literal. */
type OneMemberPerType = {
  [T in EventType]: [EventOf<T>] extends [never]
    ? 'no member'
    : IsUnion<EventOf<T>> extends true
      ? 'several members'
      : EventOf<T>['type'] extends T
        ? true
        : 'wrong tag'
}

describe('ResearchEvent', () => {
  it('is discriminated by `type`, whose values are exactly the EventType keys', () => {
    expectTypeOf<ResearchEvent['type']>().toEqualTypeOf<EventType>()
    expectTypeOf<EventType>().toEqualTypeOf<
      | 'run-start'
      | 'recall'
      | 'plan'
      | 'query'
      | 'result'
      | 'page'
      | 'fact'
      | 'knowledge-update'
      | 'llm-call'
      | 'cost'
      | 'reasoning-token'
      | 'tool-call'
      | 'tool-result'
      | 'answer-token'
      | 'outline'
      | 'section-start'
      | 'section-end'
      | 'answer'
      | 'claim'
      | 'warning'
      | 'run-end'
    >()
    // A strategy yields every type but the two the run makes, and its own checkpoint.
    expectTypeOf<EventType>().toEqualTypeOf<Exclude<StrategyEvent['type'], 'checkpoint'> | 'run-start' | 'run-end'>()
    expectTypeOf<OneMemberPerType[EventType]>().toEqualTypeOf<true>()
    // Sanity of the helper itself, so the check above could fail.
    expectTypeOf<IsUnion<EventOf<'fact' | 'page'>>>().toEqualTypeOf<true>()
    expectTypeOf<IsUnion<EventOf<'fact'>>>().toEqualTypeOf<false>()
  })

  it('stamps every member with runId, seq and time', () => {
    expectTypeOf<ResearchEvent['runId']>().toEqualTypeOf<string>()
    expectTypeOf<ResearchEvent['seq']>().toEqualTypeOf<number>()
    expectTypeOf<ResearchEvent['time']>().toEqualTypeOf<number>()
  })

  it('narrows on `type` to the payload of that event, and a switch over every type is exhaustive', () => {
    // Never called: only its types are checked.
    function describeEvent(event: ResearchEvent): string {
      switch (event.type) {
        case 'run-start':
          expectTypeOf(event.question).toEqualTypeOf<string>()
          expectTypeOf(event.strategy).toEqualTypeOf<string>()
          expectTypeOf(event.resumed).toEqualTypeOf<{ cost: Cost } | undefined>()
          return event.question
        case 'plan':
          expectTypeOf(event.text).toEqualTypeOf<string>()
          expectTypeOf(event.queries).toEqualTypeOf<string[] | undefined>()
          return event.text
        case 'query':
          expectTypeOf(event.queryId).toEqualTypeOf<string>()
          expectTypeOf(event.parentId).toEqualTypeOf<string | undefined>()
          return event.query
        case 'result':
          expectTypeOf(event.results).toEqualTypeOf<SearchResult[]>()
          expectTypeOf(event.cached).toEqualTypeOf<boolean | undefined>()
          expectTypeOf(event).toHaveProperty('error')
          return event.queryId
        case 'page':
          expectTypeOf(event.url).toEqualTypeOf<string>()
          expectTypeOf(event.chars).toEqualTypeOf<number>()
          return event.url
        case 'fact':
          expectTypeOf(event.fact).toEqualTypeOf<Fact>()
          expectTypeOf(event.supersedes).toEqualTypeOf<string[] | undefined>()
          return event.fact.text
        case 'knowledge-update':
          expectTypeOf(event.knowledge).toEqualTypeOf<string>()
          expectTypeOf(event.iteration).toEqualTypeOf<number>()
          return event.knowledge
        case 'llm-call':
          expectTypeOf(event.role).toEqualTypeOf<string>()
          expectTypeOf(event.inputTokens).toEqualTypeOf<number>()
          return event.role
        case 'cost':
          expectTypeOf(event.delta).toEqualTypeOf<Cost>()
          expectTypeOf(event.total).toEqualTypeOf<Cost>()
          return String(event.total.total)
        case 'reasoning-token':
          expectTypeOf(event.role).toEqualTypeOf<string>()
          expectTypeOf(event.text).toEqualTypeOf<string>()
          return event.text
        case 'tool-call':
          expectTypeOf(event.args).toEqualTypeOf<Record<string, unknown>>()
          return event.name
        case 'recall':
          expectTypeOf(event.findings).toEqualTypeOf<RecalledFinding[]>()
          return `${event.findings.length} recalled`
        case 'tool-result':
          expectTypeOf(event.ok).toEqualTypeOf<boolean>()
          expectTypeOf(event.callId).toEqualTypeOf<string>()
          return event.summary
        case 'answer-token':
          expectTypeOf(event.text).toEqualTypeOf<string>()
          expectTypeOf(event.section).toEqualTypeOf<number | undefined>()
          return event.text
        case 'outline':
          expectTypeOf(event.outline).toEqualTypeOf<ReportOutline>()
          return event.outline.title
        case 'section-start':
          expectTypeOf(event.index).toEqualTypeOf<number>()
          return event.title
        case 'section-end':
          expectTypeOf(event.index).toEqualTypeOf<number>()
          return String(event.index)
        case 'answer':
          expectTypeOf(event.citations).toEqualTypeOf<Citation[]>()
          expectTypeOf(event.confidence).toEqualTypeOf<number | undefined>()
          return event.text
        case 'claim':
          expectTypeOf(event.verdict).toEqualTypeOf<ClaimVerdict>()
          expectTypeOf(event.citations).toEqualTypeOf<number[]>()
          expectTypeOf(event.evidence).toEqualTypeOf<string | undefined>()
          expectTypeOf(event.score).toEqualTypeOf<number>()
          return event.text
        case 'warning':
          expectTypeOf(event.message).toEqualTypeOf<string>()
          expectTypeOf(event.code).toEqualTypeOf<WarningCode>()
          return event.message
        case 'run-end':
          expectTypeOf(event.reason).toEqualTypeOf<RunEndReason>()
          expectTypeOf(event.cost).toEqualTypeOf<Cost>()
          expectTypeOf(event.answer).toEqualTypeOf<string | undefined>()
          return event.reason
        default: {
          // A new event type without a case here fails the type check.
          const unhandled: never = event
          return unhandled
        }
      }
    }
    expectTypeOf(describeEvent).returns.toEqualTypeOf<string>()
  })

  it('does not let one event type carry another type’s fields', () => {
    // Never called: only its types are checked.
    function misuse(event: ResearchEvent): void {
      if (event.type === 'answer-token') {
        // @ts-expect-error an answer-token has no citations
        void event.citations
        expectTypeOf(event).toEqualTypeOf<EventOf<'answer-token'>>()
      }
      // @ts-expect-error `fact` exists only on fact events, so it needs narrowing first
      void event.fact
      // @ts-expect-error no such event type
      if (event.type === 'token') return
    }
    expectTypeOf(misuse).toBeFunction()
  })
})

describe('EventOf', () => {
  it('picks the one member of a type, with its tag, payload and stamp', () => {
    expectTypeOf<EventOf<'fact'>>().toEqualTypeOf<Extract<ResearchEvent, { type: 'fact' }>>()
    expectTypeOf<EventOf<'fact'>['type']>().toEqualTypeOf<'fact'>()
    // The payload is what a strategy yields of that type; the run adds the stamp.
    expectTypeOf<EventOf<'fact'>>().toExtend<Extract<StrategyEvent, { type: 'fact' }> & { runId: string; seq: number; time: number }>()
    expectTypeOf<EventOf<'run-end'>['reason']>().toEqualTypeOf<RunEndReason>()
    expectTypeOf<EventOf<'answer'>['citations']>().toEqualTypeOf<Citation[]>()
  })

  it('of several types is the union of those members, and of all types the whole union', () => {
    expectTypeOf<EventOf<'answer' | 'answer-token'>>().toEqualTypeOf<EventOf<'answer'> | EventOf<'answer-token'>>()
    expectTypeOf<EventOf<'answer' | 'answer-token'>['text']>().toEqualTypeOf<string>()
    expectTypeOf<EventOf<EventType>>().toEqualTypeOf<ResearchEvent>()
  })

  it('accepts only event types', () => {
    // @ts-expect-error 'token' is not an event type
    expectTypeOf<EventOf<'token'>>().toBeNever()
    // @ts-expect-error the internal checkpoint event is not one consumers see
    expectTypeOf<EventOf<'checkpoint'>>().toBeNever()
  })
})

describe('codes', () => {
  it('types a warning code and an error code as unions a consumer can switch on, open to user codes', () => {
    expectTypeOf<EventOf<'warning'>['code']>().toEqualTypeOf<WarningCode>()
    expectTypeOf<ErrorInfo['code']>().toEqualTypeOf<ErrorCode>()
    expectTypeOf<ErrorInfo['cause']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<EventOf<'run-end'>['error']>().toEqualTypeOf<ErrorInfo | undefined>()
    expectTypeOf<EventOf<'run-end'>['request']>().toEqualTypeOf<InterruptRequest | undefined>()
    expectTypeOf<'plan-rejected'>().toExtend<WarningCode>()
    expectTypeOf<EventOf<'result'>['error']>().toEqualTypeOf<ErrorInfo | undefined>()
    // The known codes are members (so editors complete them), failures' codes among the warnings'.
    expectTypeOf<'max-iterations' | 'search-empty' | 'retry' | 'slow-subscriber' | 'extraction-fallback'>().toExtend<WarningCode>()
    // A page read by a fallback says why; the run warns `extraction-fallback` for it.
    expectTypeOf<FetchedPage['fallback']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<ErrorCode>().toExtend<WarningCode>()
    expectTypeOf<'rate-limit' | 'network' | 'aborted'>().toExtend<ErrorInfo['code']>()
    // A strategy a user writes may warn with a code of its own.
    expectTypeOf<'my-strategy-gave-up'>().toExtend<WarningCode>()
    // @ts-expect-error a code is a string, nothing else
    const notACode: WarningCode = 404
    void notACode
  })
})
