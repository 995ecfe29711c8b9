/**
 * Type-level tests of the options users write: what the compiler accepts and what it rejects.
 * The functions holding the calls are never executed; `tsc` checks them, and each
 * `@ts-expect-error` fails the type check if its line stops being an error.
 */
import { describe, expectTypeOf, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import type {
  AgentOptions,
  DecideAnswer,
  InterruptDecision,
  InterruptRequest,
  LLMProvider,
  ResearchOptions,
  ResumeOptions,
  ReviewSwitches,
  SearchProvider,
} from '../../src/index.js'
import type { Step, Strategy, StrategyContext, StrategyEvent, StrategyOutcome } from '../../src/strategy.js'

type DeepOptions = NonNullable<AgentOptions['deep']>
type GraphReaderOptions = NonNullable<AgentOptions['graphReader']>
type ReactOptions = NonNullable<AgentOptions['react']>
type ReactTool = Extract<NonNullable<NonNullable<AgentOptions['react']>['tools']>[number], { execute: unknown }>
type ReflectOptions = NonNullable<AgentOptions['reflect']>
type ScratchpadOptions = NonNullable<AgentOptions['scratchpad']>
type ToolCallRequest = Extract<InterruptRequest, { kind: 'tool-call' }>
type Resumption = NonNullable<StrategyContext['resumed']>

declare const llm: LLMProvider
declare const search: SearchProvider
declare const strategy: Strategy
const tool: ReactTool = { name: 'calc', description: 'adds', parameters: { type: 'object' }, execute: async () => 'ok' }

function acceptedAgentOptions(): void {
  createAgent({})
  createAgent({ llm, search, strategy: 'react', searchLimit: 5, budget: { usd: 0.5 } })
  createAgent({ llm, search, pipelining: false })
  createAgent({ llm, strategy })
  // Roles beyond the built-in ones are allowed: a custom strategy may name its own.
  createAgent({ models: { planner: llm, synthesizer: llm, 'my-role': llm } })
  createAgent({ scratchpad: { maxSteps: 3, knowledgeChars: 4000, historySize: 3 } })
  createAgent({ graphReader: { maxSteps: 8, concurrency: 2, maxPagesPerNode: 2, pageChars: 6000, condenseAbove: 10, condenseBatch: 4 } })
  createAgent({ reflect: { maxSteps: 2, maxWords: 200, concurrency: 2 } })
  createAgent({ deep: { mode: 'conversational', maxSteps: 2, searchesPerQuestion: 2, readPages: 3, pageChars: 8000 } })
  createAgent({
    react: { tools: [tool], maxSteps: 6, toolCalls: 'text', afterTool: (call) => (call.name === 'calc' ? { content: 'hidden' } : undefined) },
  })
  createAgent({ react: { activeTools: (_step, names) => names.slice(0, 1), finalAnswer: () => ({ reject: 'cite a source' }) } })
}

function rejectedAgentOptions(): void {
  // @ts-expect-error createAgent needs an options object
  createAgent()
  // @ts-expect-error a step limit is a number
  createAgent({ scratchpad: { maxSteps: '3' } })
  // @ts-expect-error renamed to scratchpad.maxSteps
  createAgent({ maxIterations: 3 })
  // @ts-expect-error renamed to deep.maxSteps
  createAgent({ deep: { maxIterations: 3 } })
  // @ts-expect-error renamed to reflect.maxSteps
  createAgent({ reflect: { maxIterations: 3 } })
  // @ts-expect-error unknown top-level options are typos
  createAgent({ maxIteration: 3 })
  // @ts-expect-error a strategy is a name or a Strategy object, not a factory
  createAgent({ strategy: () => strategy })
  // @ts-expect-error a model per role is an LLMProvider
  createAgent({ models: { planner: 'gpt-4o-mini' } })
  // @ts-expect-error the search provider is an object with a search method
  createAgent({ search: async (q: string) => [q] })
  // @ts-expect-error the budget is in dollars, as an object
  createAgent({ budget: 0.5 })
  // @ts-expect-error pipelining is on or off
  createAgent({ pipelining: 'auto' })
}

function strategyContextCalls(ctx: StrategyContext): void {
  // A strategy reads a reply as it streams, piece by piece.
  ctx.complete('planner', { prompt: 'plan' }, { onText: (text: string) => void text.length })
  // @ts-expect-error onText is given the text
  ctx.complete('planner', { prompt: 'plan' }, { onText: (piece: number) => piece })
  // A strategy asks "may this go ahead?" with any request, and gets a decision or a pause back.
  expectTypeOf(ctx.decide).parameter(0).toEqualTypeOf<InterruptRequest>()
  expectTypeOf(ctx.decide).returns.toEqualTypeOf<Promise<DecideAnswer>>()
  // @ts-expect-error reviewPlan was replaced by decide
  ctx.reviewPlan({ text: 't', queries: [] })
}

function strategySections(): void {
  // @ts-expect-error scratchpad: knowledgeChars is a number
  createAgent({ scratchpad: { knowledgeChars: 'all' } })
  // @ts-expect-error scratchpad: no such option
  createAgent({ scratchpad: { concurrency: 3 } })
  // @ts-expect-error graphReader: concurrency is a number
  createAgent({ graphReader: { concurrency: true } })
  // @ts-expect-error graphReader: no such option
  createAgent({ graphReader: { mode: 'report' } })
  // @ts-expect-error reflect: maxWords is a number
  createAgent({ reflect: { maxWords: '200' } })
  // @ts-expect-error deep: mode is 'report' or 'conversational'
  createAgent({ deep: { mode: 'essay' } })
  // @ts-expect-error deep: no such option
  createAgent({ deep: { knowledgeChars: 10 } })
  // @ts-expect-error react: toolCalls is 'native' or 'text'
  createAgent({ react: { toolCalls: 'json' } })
  // @ts-expect-error react: a tool needs a description and parameters
  createAgent({ react: { tools: [{ name: 'calc', execute: async () => 'ok' }] } })
  // @ts-expect-error react: beforeTool answers with a decision object, not a string
  createAgent({ react: { beforeTool: () => 'yes' } })
  // @ts-expect-error tool approval is a run option now: review.tools
  createAgent({ react: { needsApproval: true } })
  // @ts-expect-error beforeTool was replaced by the run's decide
  createAgent({ react: { beforeTool: () => undefined } })
}

function researchOptions(): void {
  const agent = createAgent({ llm, search })
  const controller = new AbortController()
  agent.research('q')
  agent.research('q', { signal: controller.signal, knowledge: 'known', priorAnswers: [{ query: 'p', answer: 'a' }] })
  agent.research('q', { review: { plan: true } })
  agent.research('q', { review: { tools: true }, decide: async () => ({ action: 'approve' }) })
  agent.research('q', { review: { tools: (call) => call.name !== 'search' && call.args.amount !== 0 } })
  agent.research('q', {
    review: { plan: true },
    decide: (request) => (request.kind === 'plan' ? { action: 'edit', queries: request.queries.slice(0, 2) } : { action: 'pause' }),
  })
  agent.research('q', { decide: () => ({ action: 'reject', reason: 'not now' }) })
  // @ts-expect-error the signal is an AbortSignal, not its controller
  agent.research('q', { signal: controller })
  // @ts-expect-error decide answers with a decision or a pause, not a boolean
  agent.research('q', { decide: () => true })
  // @ts-expect-error review.plan is a boolean (a plan is reviewed or not)
  agent.research('q', { review: { plan: () => true } })
  // @ts-expect-error approvePlan was replaced by decide and review.plan
  agent.research('q', { approvePlan: () => true })
  // @ts-expect-error pauseAfterPlan was replaced by review.plan
  agent.research('q', { pauseAfterPlan: true })
  // @ts-expect-error a prior answer needs its query and answer
  agent.research('q', { priorAnswers: [{ answer: 'a' }] })
  // @ts-expect-error unknown research options are typos
  agent.research('q', { maxIterations: 3 })
  // @ts-expect-error a question is a string
  agent.research({ question: 'q' })
}

describe('Step and StrategyEvent', () => {
  it('a step is a generator of strategy events that returns its value; a strategy yields no run-start, run-end or stamped event', () => {
    async function* step(): Step<number> {
      yield { type: 'plan', text: 'p', queries: ['q'] }
      return 3
    }
    expectTypeOf(step).returns.toEqualTypeOf<AsyncGenerator<StrategyEvent, number, undefined>>()
    expectTypeOf<Extract<StrategyEvent, { type: 'plan' }>['text']>().toEqualTypeOf<string>()
    expectTypeOf<Extract<StrategyEvent, { type: 'run-start' }>>().toBeNever()
    expectTypeOf<Extract<StrategyEvent, { type: 'run-end' }>>().toBeNever()
    // @ts-expect-error -- a strategy's event carries no runId or seq: the run stamps them
    const stamped: StrategyEvent = { type: 'plan', text: 'p', queries: [], runId: 'r', seq: 1 }
    void stamped
  })
})

describe('AgentOptions', () => {
  it('accepts providers, a strategy by name or object, limits and each strategy’s section; rejects wrong types and typos', () => {
    expectTypeOf(acceptedAgentOptions).toBeFunction()
    expectTypeOf(rejectedAgentOptions).toBeFunction()
    expectTypeOf(createAgent).parameter(0).toEqualTypeOf<AgentOptions>()
    // Every option is optional: `{}` is a valid agent.
    expectTypeOf({}).toExtend<AgentOptions>()
    expectTypeOf<AgentOptions['strategy']>().toEqualTypeOf<string | Strategy | undefined>()
    expectTypeOf<AgentOptions['pipelining']>().toEqualTypeOf<boolean | undefined>()
  })

  it('lets a strategy read a model reply as it streams', () => {
    expectTypeOf(strategyContextCalls).toBeFunction()
  })

  it('gives each strategy its own typed section, every field optional', () => {
    expectTypeOf(strategySections).toBeFunction()
    expectTypeOf<AgentOptions['scratchpad']>().toEqualTypeOf<ScratchpadOptions | undefined>()
    expectTypeOf<AgentOptions['graphReader']>().toEqualTypeOf<GraphReaderOptions | undefined>()
    expectTypeOf<AgentOptions['reflect']>().toEqualTypeOf<ReflectOptions | undefined>()
    expectTypeOf<AgentOptions['deep']>().toEqualTypeOf<DeepOptions | undefined>()
    expectTypeOf<AgentOptions['react']>().toEqualTypeOf<ReactOptions | undefined>()
    expectTypeOf({}).toExtend<ScratchpadOptions & GraphReaderOptions & ReflectOptions & DeepOptions & ReactOptions>()
    expectTypeOf<DeepOptions['mode']>().toEqualTypeOf<'report' | 'conversational' | undefined>()
    expectTypeOf<ReactOptions['toolCalls']>().toEqualTypeOf<'native' | 'text' | undefined>()
  })
})

describe('ResearchOptions', () => {
  it('accepts a signal, prior knowledge and plan approval; rejects wrong types and typos', () => {
    expectTypeOf(researchOptions).toBeFunction()
    expectTypeOf({}).toExtend<ResearchOptions>()
    expectTypeOf<ResearchOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>()
    expectTypeOf<NonNullable<ResearchOptions['decide']>>().parameters.toEqualTypeOf<[InterruptRequest, { signal: AbortSignal }]>()
    expectTypeOf<NonNullable<ResearchOptions['decide']>>().returns.toEqualTypeOf<DecideAnswer | Promise<DecideAnswer>>()
    expectTypeOf<DecideAnswer>().toEqualTypeOf<InterruptDecision | { action: 'pause' }>()
    expectTypeOf<ResearchOptions['review']>().toEqualTypeOf<ReviewSwitches | undefined>()
    expectTypeOf<ReviewSwitches['plan']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<ReviewSwitches['tools']>().toEqualTypeOf<boolean | ((call: ToolCallRequest) => boolean | Promise<boolean>) | undefined>()
    // A resume takes the same callback and switches, for the requests the resumed run meets next.
    expectTypeOf<ResumeOptions['decide']>().toEqualTypeOf<ResearchOptions['decide']>()
    expectTypeOf<ResumeOptions['review']>().toEqualTypeOf<ReviewSwitches | undefined>()
  })
})

describe('ResumeOptions: one decision on one request', () => {
  it('answers a paused run with a decision of the request kind; the old plan and approval fields are gone', () => {
    expectTypeOf<ResumeOptions['decision']>().toEqualTypeOf<InterruptDecision | undefined>()
    expectTypeOf<{ action: 'approve' }>().toExtend<InterruptDecision>()
    expectTypeOf<{ action: 'reject'; reason: string }>().toExtend<InterruptDecision>()
    expectTypeOf<{ action: 'edit'; queries: string[] }>().toExtend<InterruptDecision>()
    expectTypeOf<{ action: 'edit'; args: Record<string, unknown> }>().toExtend<InterruptDecision>()
    expectTypeOf<{ action: 'maybe' }>().not.toExtend<InterruptDecision>()
    expectTypeOf<ResumeOptions>().not.toHaveProperty('plan')
    expectTypeOf<ResumeOptions>().not.toHaveProperty('approval')
    // The request, by kind; a strategy reads both when it resumes.
    expectTypeOf<Extract<InterruptRequest, { kind: 'plan' }>['queries']>().toEqualTypeOf<string[]>()
    expectTypeOf<Extract<InterruptRequest, { kind: 'tool-call' }>['args']>().toEqualTypeOf<Record<string, unknown>>()
    expectTypeOf<Resumption['request']>().toEqualTypeOf<InterruptRequest | undefined>()
    expectTypeOf<Resumption['decision']>().toEqualTypeOf<InterruptDecision | undefined>()
    // A strategy that pauses says on what.
    expectTypeOf<{ reason: 'paused'; request: InterruptRequest }>().toExtend<StrategyOutcome>()
    expectTypeOf<{ reason: 'paused' }>().not.toExtend<StrategyOutcome>()
    expectTypeOf<{ reason: 'answered' }>().toExtend<StrategyOutcome>()
  })
})
