import { expectTypeOf, it } from 'vitest'
import type { AgentOptions, InterruptDecision, InterruptRequest, ResearchResult } from '../../src/index.js'
import { report } from '../../src/strategy.js'

type OutlineSection = Extract<InterruptDecision, { outline: unknown }>['outline']['sections'][number]

type Report = NonNullable<ResearchResult['report']>
type ReportSection = NonNullable<NonNullable<ResearchResult['report']>['sections']>[number]

type OutlineRequest = Extract<InterruptRequest, { kind: 'outline' }>
type ReportOptions = NonNullable<AgentOptions['report']>
type ReportOutline = Extract<InterruptDecision, { outline: unknown }>['outline']

it('report: its options section, its outline request and decision, and the sections of its result', () => {
  expectTypeOf<AgentOptions['report']>().toEqualTypeOf<ReportOptions | undefined>()
  expectTypeOf<ReportOptions['contextTokens']>().toEqualTypeOf<number | undefined>()
  expectTypeOf<OutlineRequest>().toMatchTypeOf<InterruptRequest>()
  expectTypeOf<OutlineRequest['outline']>().toEqualTypeOf<ReportOutline>()
  expectTypeOf<ReportOutline['sections']>().toEqualTypeOf<OutlineSection[]>()
  expectTypeOf<OutlineSection['questions']>().toEqualTypeOf<string[]>()
  expectTypeOf<{ action: 'edit'; outline: ReportOutline }>().toMatchTypeOf<InterruptDecision>()
  expectTypeOf<Report['sections']>().toEqualTypeOf<ReportSection[] | undefined>()
  expectTypeOf<ReportSection>().toEqualTypeOf<{ title: string; text: string }>()
  expectTypeOf(report).parameters.toEqualTypeOf<[options?: ReportOptions]>()
})
