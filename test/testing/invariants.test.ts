import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { assertEventInvariants } from '../../src/testing/index.js'

const stamp = (events: object[]): ResearchEvent[] => events.map((e, seq) => ({ ...e, runId: 'r', seq, time: 1 }) as ResearchEvent)

const start = { type: 'run-start', question: 'q', strategy: 's' }
const end = { type: 'run-end', reason: 'answered', cost: zeroCost() }

describe('assertEventInvariants', () => {
  it('accepts an answer equal to the tokens streamed before it', () => {
    const events = stamp([start, { type: 'answer-token', text: 'A' }, { type: 'answer-token', text: 'B' }, { type: 'answer', text: 'AB', citations: [] }, end])
    expect(assertEventInvariants(events)).toBe(events)
  })

  it('rejects an event a JSON round trip changes, and accepts plain nested data', () => {
    const query = { type: 'query', queryId: 'q1', query: 'x' }
    for (const odd of [{ at: new Date(0) }, { missing: undefined }, { count: Number.NaN }, { seen: new Map() }, { list: [1, undefined] }]) {
      expect(() => assertEventInvariants(stamp([start, { ...query, ...odd }, end])), JSON.stringify(Object.keys(odd))).toThrow(/not plain JSON/)
    }
    expect(() => assertEventInvariants(stamp([start, { ...query, extra: { list: [1, 'a', null, { deep: [true] }] } }, end]))).not.toThrow()
  })

  it('report sections: after the outline, started in outline order, tokens only of the section streaming, all ended before the answer', () => {
    const outline = {
      type: 'outline',
      outline: {
        title: 'T',
        sections: [
          { title: 'A', goal: 'a', questions: [] },
          { title: 'B', goal: 'b', questions: [] },
        ],
      },
    }
    const section = (index: number, text: string) => [
      { type: 'section-start', index, title: 'x' },
      { type: 'answer-token', text, section: index },
      { type: 'section-end', index },
    ]
    const answer = { type: 'answer', text: 'ab', citations: [] }
    expect(() => assertEventInvariants(stamp([start, outline, ...section(0, 'a'), ...section(1, 'b'), answer, end]))).not.toThrow()
    expect(() => assertEventInvariants(stamp([start, outline, ...section(1, 'b'), ...section(0, 'a'), answer, end]))).toThrow(/out of outline order/)
    expect(() => assertEventInvariants(stamp([start, ...section(0, 'a'), { ...answer, text: 'a' }, end]))).toThrow(/before the outline/)
    expect(() => assertEventInvariants(stamp([start, outline, ...section(0, 'a'), { ...answer, text: 'a' }, end]))).toThrow(/after 1 of 2 sections/)
    const stray = [
      { type: 'section-start', index: 0, title: 'x' },
      { type: 'answer-token', text: 'a', section: 1 },
      { type: 'section-end', index: 0 },
    ]
    expect(() => assertEventInvariants(stamp([start, outline, ...stray, ...section(1, 'b'), answer, end]))).toThrow(/answer-token of section 1 while section 0/)
  })

  it('rejects answer tokens streamed after the answer event', () => {
    const events = stamp([start, { type: 'answer-token', text: 'A' }, { type: 'answer', text: 'A', citations: [] }, { type: 'answer-token', text: 'B' }, end])
    expect(() => assertEventInvariants(events)).toThrow(/answer-token/)
  })

  it('claims: numbered from 0 without a gap, each the answer’s text after the one before, uncited exactly when citing nothing', () => {
    const answer = { type: 'answer', text: 'A is 1 [1]. B is 2.', citations: [{ index: 1, url: 'https://a.example/' }] }
    const tokens = { type: 'answer-token', text: answer.text }
    const first = { type: 'claim', index: 0, text: 'A is 1 [1].', citations: [1], verdict: 'supported', score: 1 }
    const second = { type: 'claim', index: 1, text: 'B is 2.', citations: [], verdict: 'uncited', score: 0 }
    // Claims settle in any order, before or after the answer event.
    expect(() => assertEventInvariants(stamp([start, tokens, second, answer, first, end]))).not.toThrow()
    expect(() => assertEventInvariants(stamp([start, tokens, answer, { ...second, index: 2 }, first, end]))).toThrow(/claim 1 is missing/)
    expect(() => assertEventInvariants(stamp([start, tokens, answer, { ...first, text: 'A is 3 [1].' }, end]))).toThrow(/not the answer's text/)
    expect(() => assertEventInvariants(stamp([start, tokens, answer, second, first, first, end]))).toThrow(/reported twice/)
    expect(() => assertEventInvariants(stamp([start, tokens, answer, { ...first, verdict: 'uncited' }, end]))).toThrow(/uncited exactly when/)
    expect(() => assertEventInvariants(stamp([start, tokens, answer, { ...first, citations: [2] }, end]))).toThrow(/cites \[2\]/)
    expect(() => assertEventInvariants(stamp([start, tokens, answer, { ...first, score: 1.5 }, end]))).toThrow(/within \[0, 1\]/)
    expect(() => assertEventInvariants(stamp([start, tokens, answer, { ...first, verdict: 'true' }, end]))).toThrow(/unknown claim verdict/)
  })

  it('a revision: revised tokens after the answer, joined equal to the one revised answer, no claim after it began', () => {
    const answer = { type: 'answer', text: 'A [1]. B [1].', citations: [] }
    const claim = { type: 'claim', index: 0, text: 'A [1].', citations: [1], verdict: 'unsupported', score: 0.2 }
    const revised = [
      { type: 'answer-token', text: 'B ', revised: true },
      { type: 'answer-token', text: '[1].', revised: true },
      { type: 'answer', text: 'B [1].', citations: [], revised: true },
    ]
    const draft = [{ type: 'answer-token', text: answer.text }, answer]
    expect(() => assertEventInvariants(stamp([start, ...draft, claim, ...revised, end]))).not.toThrow()
    expect(() => assertEventInvariants(stamp([start, revised[0]!, ...draft, end]))).toThrow(/revised answer-token before the answer/)
    expect(() => assertEventInvariants(stamp([start, ...draft, ...revised.slice(0, 1), revised[2]!, end]))).toThrow(/revised answer-token texts joined/)
    expect(() => assertEventInvariants(stamp([start, ...draft, revised[0]!, claim, end]))).toThrow(/claim after the revision began/)
  })

  it('rejects a result that names a query not yet announced', () => {
    const events = stamp([start, { type: 'result', queryId: 'q1', results: [] }, { type: 'query', queryId: 'q1', query: 'x' }, end])
    expect(() => assertEventInvariants(events)).toThrow(/q1 before its query/)
  })

  it('tool calls: a result names a call announced before it, once; a finished run leaves none without its result', () => {
    const call = { type: 'tool-call', callId: 'c1', name: 'search', args: { query: 'x' } }
    const result = { type: 'tool-result', callId: 'c1', ok: true, summary: 's', chars: 1 }
    expect(() => assertEventInvariants(stamp([start, call, result, end]))).not.toThrow()
    expect(() => assertEventInvariants(stamp([start, result, call, end]))).toThrow(/c1 before its tool-call/)
    expect(() => assertEventInvariants(stamp([start, call, result, result, end]))).toThrow(/second result/)
    expect(() => assertEventInvariants(stamp([start, call, end]))).toThrow(/never got its tool-result/)
    // A paused run may end with the call it waits on open.
    expect(() => assertEventInvariants(stamp([start, call, { ...end, reason: 'paused' }]))).not.toThrow()
  })

  it('rejects a decreasing cost total and a run-end cost that differs from the last total', () => {
    const high = { ...zeroCost(), llm: 2, total: 2 }
    const low = { ...zeroCost(), llm: 1, total: 1 }
    const events = stamp([start, { type: 'cost', delta: high, total: high }, { type: 'cost', delta: low, total: low }, { ...end, cost: high }])
    expect(() => assertEventInvariants(events)).toThrow(/decreased[\s\S]*run-end.cost differs/)
  })

  it('starts the answer afresh where a later attempt joined the log (a resumed warning)', () => {
    const resumed = { type: 'warning', code: 'resumed', message: 'the worker stopped' }
    const events = stamp([
      start,
      { type: 'answer-token', text: 'Half' },
      resumed,
      { type: 'answer-token', text: 'Whole' },
      { type: 'answer', text: 'Whole', citations: [] },
      end,
    ])
    expect(assertEventInvariants(events)).toBe(events)
    const other = { type: 'warning', code: 'search-failed', message: 'x' }
    expect(() =>
      assertEventInvariants(stamp([start, { type: 'answer-token', text: 'Half' }, other, { type: 'answer', text: 'Whole', citations: [] }, end])),
    ).toThrow(/differ/)
  })

  it('accepts reasoning beside the answer tokens, and rejects a reasoning-token without role or text', () => {
    const ok = stamp([
      start,
      { type: 'reasoning-token', role: 'finalizer', text: 'hmm' },
      { type: 'answer-token', text: 'A' },
      { type: 'answer', text: 'A', citations: [] },
      end,
    ])
    expect(assertEventInvariants(ok)).toBe(ok)
    const bad = stamp([start, { type: 'reasoning-token', role: '', text: 'hmm' }, { type: 'reasoning-token', role: 'planner', text: '' }, end])
    expect(() => assertEventInvariants(bad)).toThrow(/reasoning-token without a role[\s\S]*reasoning-token without text/)
  })
})

describe('assertEventInvariants on resumed runs', () => {
  const spent = { ...zeroCost(), llm: 1, total: 1, llmCalls: 1 }
  const cost = { type: 'cost', delta: spent, total: spent }
  const resumedStart = (c = spent) => ({ ...start, resumed: { cost: c } })
  const answered = { ...end, cost: spent }

  it('accepts a paused run joined to its resume, and a resumed run alone', () => {
    const paused = { type: 'run-end', reason: 'paused', cost: spent }
    const joined = stamp([start, cost, paused, resumedStart(), { type: 'answer-token', text: 'A' }, { type: 'answer', text: 'A', citations: [] }, answered])
    expect(assertEventInvariants(joined)).toBe(joined)
    const alone = [resumedStart(), answered].map((e, i) => ({ ...e, runId: 'r', seq: 7 + i, time: 1 }) as ResearchEvent)
    expect(assertEventInvariants(alone)).toBe(alone)
  })

  it('accepts the events up to a checkpoint joined to the resume that continues them', () => {
    expect(() => assertEventInvariants(stamp([start, cost, resumedStart(), answered]))).not.toThrow()
  })

  it('rejects a resume whose cost differs from what was spent, one after a finished run, and a gap in seq', () => {
    expect(() => assertEventInvariants(stamp([start, cost, resumedStart(zeroCost()), { ...end, cost: zeroCost() }]))).toThrow(/resumed.cost differs/)
    expect(() => assertEventInvariants(stamp([start, cost, answered, resumedStart(), answered]))).toThrow(/run-end must come only last/)
    const gap = stamp([start, cost, resumedStart(), answered])
    gap[2] = { ...gap[2]!, seq: 5 } as ResearchEvent
    expect(() => assertEventInvariants(gap)).toThrow(/seq 5 \(run-start\): seq must be 2/)
    expect(() => assertEventInvariants(stamp([start, { ...start }, end]))).toThrow(/run-start must come only first/)
  })
})
