/** Type-level tests of claim verification: the option, the claim event and the result's fields. */
import { describe, expectTypeOf, it } from 'vitest'
import type { AgentOptions, EventOf, ResearchOptions, ResearchResult } from '../../src/index.js'

type Claim = Omit<EventOf<'claim'>, 'type' | 'runId' | 'seq' | 'time'>
type ClaimVerdict = EventOf<'claim'>['verdict']
type VerifyMode = NonNullable<AgentOptions['verify']>

describe('verify', () => {
  it('is an option of the agent and of a run: off, annotate or revise', () => {
    expectTypeOf<VerifyMode>().toEqualTypeOf<boolean | 'annotate' | 'revise'>()
    expectTypeOf<AgentOptions['verify']>().toEqualTypeOf<VerifyMode | undefined>()
    expectTypeOf<ResearchOptions['verify']>().toEqualTypeOf<VerifyMode | undefined>()
  })

  it('reports claims as events and in the result, and keeps a revised answer’s draft', () => {
    expectTypeOf<EventOf<'claim'>>().toMatchTypeOf<Claim>()
    expectTypeOf<Claim['verdict']>().toEqualTypeOf<ClaimVerdict>()
    expectTypeOf<ClaimVerdict>().toEqualTypeOf<'supported' | 'partial' | 'unsupported' | 'uncited' | 'unverifiable'>()
    expectTypeOf<ResearchResult['claims']>().toEqualTypeOf<Claim[] | undefined>()
    expectTypeOf<ResearchResult['supportRate']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<ResearchResult['draft']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<EventOf<'answer'>['revised']>().toEqualTypeOf<true | undefined>()
    expectTypeOf<EventOf<'answer-token'>['revised']>().toEqualTypeOf<true | undefined>()
  })
})
