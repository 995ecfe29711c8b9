/** The root entry is a promise to users: it holds what an agent's user needs and nothing else. */
import { expect, expectTypeOf, it } from 'vitest'
import * as root from '../../src/index.js'
import type {
  AgentOptions,
  InterruptDecision,
  InterruptRequest,
  ResearchResult,
  Checkpoint,
  Cost,
  CheckpointStore,
  EventOf,
  LLMChunk,
  LLMProvider,
  LLMRequest,
  ResearchEvent,
  ResearchRun,
  ResumeOptions,
} from '../../src/index.js'
import * as kit from '../../src/strategy.js'
import type { StrategyContext, StrategyOutcome } from '../../src/strategy.js'

// Parts of the root's types, named the way users reach them.
type ToolSpec = NonNullable<LLMRequest['tools']>[number]
type ChatTurn = NonNullable<LLMRequest['turns']>[number]
type ReactTool = Extract<NonNullable<NonNullable<AgentOptions['react']>['tools']>[number], { execute: unknown }>
type ReportOutline = Extract<InterruptDecision, { outline: unknown }>['outline']

it('the root entry exports only the agent, its registry, fromGenerate, the error classes and the in-memory stores', () => {
  expect(Object.keys(root).sort()).toEqual(
    ['LaconicError', 'ProviderError', 'createAgent', 'fromGenerate', 'memoryCheckpoints', 'memorySessions', 'registerStrategy', 'strategyNames'].sort(),
  )
})

it('strategy authors find their toolkit on laconic-research/strategy', () => {
  for (const name of [
    'defineStrategy',
    'createMerge',
    'generate',
    'parseLooseJson',
    'CitationRegistry',
    'Notebook',
    'graphReader',
    'stripThink',
    'parseToolArgs',
    'toolsUnsupported',
  ])
    expect(typeof (kit as Record<string, unknown>)[name]).toBe('function')
})

it('the types stay reachable from the root entry', () => {
  expectTypeOf<EventOf<'run-end'>>().toMatchTypeOf<ResearchEvent>()
  expectTypeOf(root.createAgent).returns.toHaveProperty('research')
  expectTypeOf<ReturnType<ReturnType<typeof root.createAgent>['research']>>().toEqualTypeOf<ResearchRun>()
})

it('checkpoints: the store interface users implement, the memory store, resume and pausing', () => {
  expectTypeOf(root.memoryCheckpoints).returns.toEqualTypeOf<CheckpointStore>()
  expectTypeOf<CheckpointStore['load']>().returns.toEqualTypeOf<Promise<Checkpoint | undefined>>()
  expectTypeOf<CheckpointStore['acquire']>().returns.toEqualTypeOf<Promise<(() => Promise<void>) | undefined>>()
  expectTypeOf<ReturnType<typeof root.createAgent>['resume']>().parameters.toEqualTypeOf<[string, ResumeOptions]>()
  expectTypeOf<ReturnType<typeof root.createAgent>['resume']>().returns.toEqualTypeOf<ResearchRun>()
  expectTypeOf<EventOf<'run-end'>['reason']>().extract<'paused'>().toEqualTypeOf<'paused'>()
  expectTypeOf<StrategyOutcome['reason']>().extract<'paused'>().toEqualTypeOf<'paused'>()
  expectTypeOf<StrategyContext['checkpoint']>().parameters.toEqualTypeOf<[unknown]>()
})

it('tool calling types: a request carries tools and turns, a chunk carries a whole call', () => {
  expectTypeOf<LLMRequest['tools']>().toEqualTypeOf<readonly ToolSpec[] | undefined>()
  expectTypeOf<LLMRequest['turns']>().toEqualTypeOf<readonly ChatTurn[] | undefined>()
  expectTypeOf<Extract<LLMChunk, { type: 'tool-call' }>>().toMatchTypeOf<{ id: string; name: string; args: string }>()
  expectTypeOf<Extract<LLMChunk, { type: 'tool-call-delta' }>['argsDelta']>().toEqualTypeOf<string>()
  expectTypeOf(kit.parseToolArgs).returns.toEqualTypeOf<{ ok: true; value: Record<string, unknown> } | { ok: false; error: string }>()
})

it('cost that tells the truth: unpriced calls, a budget, local models and partial usage', () => {
  expectTypeOf<Cost['unpricedCalls']>().toEqualTypeOf<number>()
  expectTypeOf<NonNullable<AgentOptions['budget']>>().toEqualTypeOf<{ usd: number }>()
  expectTypeOf<LLMProvider['local']>().toEqualTypeOf<boolean | undefined>()
  expectTypeOf<Extract<LLMChunk, { type: 'usage' }>['inputTokens']>().toEqualTypeOf<number | undefined>()
  expectTypeOf<Extract<LLMChunk, { type: 'usage' }>['cachedInputTokens']>().toEqualTypeOf<number | undefined>()
  expectTypeOf<StrategyContext['budgetExhausted']>().returns.toEqualTypeOf<boolean>()
})

it('react: a user tool, and the decision a paused run resumes with', () => {
  expectTypeOf<ReactTool['execute']>().parameters.toEqualTypeOf<[Record<string, unknown>, { signal: AbortSignal }]>()
  expectTypeOf<ResumeOptions['decision']>().toEqualTypeOf<InterruptDecision | undefined>()
  expectTypeOf<ResearchResult['request']>().toEqualTypeOf<InterruptRequest | undefined>()
  expectTypeOf<EventOf<'run-end'>['request']>().toEqualTypeOf<InterruptRequest | undefined>()
  expectTypeOf<InterruptRequest['kind']>().toEqualTypeOf<'plan' | 'tool-call' | 'outline'>()
  expectTypeOf<{ action: 'edit'; queries: string[] }>().toMatchTypeOf<InterruptDecision>()
  expectTypeOf<{ action: 'edit'; args: { id: number } }>().toMatchTypeOf<InterruptDecision>()
  expectTypeOf<{ action: 'edit'; outline: ReportOutline }>().toMatchTypeOf<InterruptDecision>()
  expectTypeOf(kit.react).returns.toHaveProperty('run')
  expectTypeOf<EventOf<'tool-result'>['ok']>().toEqualTypeOf<boolean>()
})
