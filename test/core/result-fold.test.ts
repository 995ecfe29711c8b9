import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resultOfEvents } from '../../src/core/run/result-fold.js'
import { createAgent, type ResearchEvent, type ResearchRun } from '../../src/index.js'
import type { Strategy, StrategyEvent } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { zeroCost } from '../support/cost.js'

async function collect(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return events
}

/** Stamps events as a log holds them. */
function log(...events: Record<string, unknown>[]): ResearchEvent[] {
  return events.map((event, seq) => ({ runId: 'r', seq, time: 0, ...event }) as ResearchEvent)
}

const spent = { ...zeroCost(), llm: 0.01, total: 0.01, llmCalls: 1 }
const fact = (id: string, text: string) => ({ id, text, sources: ['https://a.example/'] })

describe('the result fold', () => {
  it('folds claims by index and their support rate (uncited left out), and a revision over its draft', () => {
    const claim = (index: number, verdict: string, citations = [1]) => ({ type: 'claim', index, text: `S${index}`, citations, verdict, score: 0.5 })
    const result = resultOfEvents(
      log(
        { type: 'run-start', question: 'q?', strategy: 's' },
        { type: 'answer-token', text: 'draft' },
        claim(1, 'unsupported'),
        { type: 'answer', text: 'draft', citations: [] },
        claim(0, 'supported'),
        claim(2, 'uncited', []),
        claim(3, 'partial'),
        { type: 'answer-token', text: 'half of the revis', revised: true },
        { type: 'run-end', reason: 'aborted', cost: spent },
      ),
    )
    // A revision that never finished leaves the draft the answer.
    expect(result.answer).toBe('draft')
    expect(result.draft).toBeUndefined()
    expect(result.claims?.map((c) => [c.index, c.verdict])).toEqual([
      [0, 'supported'],
      [1, 'unsupported'],
      [2, 'uncited'],
      [3, 'partial'],
    ])
    expect(result.claims?.[0]).toEqual({ index: 0, text: 'S0', citations: [1], verdict: 'supported', score: 0.5 })
    expect(result.supportRate).toBeCloseTo(1 / 3)
    const revised = resultOfEvents(
      log(
        { type: 'run-start', question: 'q?', strategy: 's' },
        { type: 'answer', text: 'draft [1]', citations: [{ index: 1, url: 'https://a.example/' }] },
        { type: 'answer', text: 'kept', citations: [], revised: true },
        { type: 'run-end', reason: 'answered', cost: spent },
      ),
    )
    expect(revised).toMatchObject({ answer: 'kept', citations: [], draft: 'draft [1]' })
    expect(revised.claims).toBeUndefined()
    expect(revised.supportRate).toBeUndefined()
  })

  it('folds a logged run: the answer event, facts as superseded, the last knowledge, and run-end’s reason and cost', () => {
    const result = resultOfEvents(
      log(
        { type: 'run-start', question: 'q?', strategy: 's' },
        { type: 'fact', fact: fact('f1', 'one') },
        { type: 'fact', fact: fact('f2', 'two') },
        { type: 'fact', fact: fact('f3', 'one and two'), supersedes: ['f1'] },
        { type: 'knowledge-update', knowledge: 'k1', iteration: 1 },
        { type: 'knowledge-update', knowledge: 'k2', iteration: 2 },
        { type: 'answer-token', text: 'Blue [1]' },
        { type: 'answer', text: 'Blue [1].', citations: [{ index: 1, url: 'https://a.example/' }], confidence: 0.8 },
        { type: 'run-end', reason: 'answered', answer: 'Blue [1].', cost: spent },
      ),
    )
    expect(result).toEqual({
      answer: 'Blue [1].',
      citations: [{ index: 1, url: 'https://a.example/' }],
      facts: [fact('f2', 'two'), fact('f3', 'one and two')],
      knowledge: 'k2',
      cost: spent,
      reason: 'answered',
      confidence: 0.8,
    })
  })

  it('answers with the streamed tokens when the run ended before its answer event, and keeps the error', () => {
    const error = { message: 'connection cut', code: 'network' as const }
    const result = resultOfEvents(
      log(
        { type: 'run-start', question: 'q?', strategy: 's' },
        { type: 'answer-token', text: 'The sky ' },
        { type: 'answer-token', text: 'is blue' },
        { type: 'run-end', reason: 'error', cost: spent, error },
      ),
    )
    expect(result).toMatchObject({ answer: 'The sky is blue', reason: 'error', error, citations: [] })
  })

  it('restarts the streamed answer at a `resumed` warning: the later attempt streams its answer again', () => {
    const events = log(
      { type: 'run-start', question: 'q?', strategy: 's' },
      { type: 'fact', fact: fact('f1', 'kept across attempts') },
      { type: 'answer-token', text: 'The sky is bl' },
      { type: 'warning', code: 'resumed', message: 'the worker running this run stopped; another worker resumed it' },
      { type: 'answer-token', text: 'The sky ' },
      { type: 'answer-token', text: 'is blue.' },
      { type: 'run-end', reason: 'error', cost: spent, error: { message: 'cut', code: 'network' } },
    )
    const result = resultOfEvents(events)
    expect(result.answer).toBe('The sky is blue.')
    expect(result.facts).toEqual([fact('f1', 'kept across attempts')])
    // The later attempt stopped before it streamed anything: the dead attempt's tokens are not its answer.
    const cutShort = resultOfEvents([...events.slice(0, 4), ...log({ type: 'run-end', reason: 'aborted', cost: spent })])
    expect(cutShort.answer).toBe('')
    expect(cutShort.reason).toBe('aborted')
  })

  it('takes the answer from run-end when the run streamed none (a finished checkpoint resumed)', () => {
    const result = resultOfEvents(
      log({ type: 'run-start', question: 'q?', strategy: 's' }, { type: 'run-end', reason: 'answered', answer: 'Saved.', cost: spent }),
    )
    expect(result).toMatchObject({ answer: 'Saved.', reason: 'answered', cost: spent })
  })

  it('reads a log with no run-end as a run that ended in error, keeping what it gathered', () => {
    const result = resultOfEvents(log({ type: 'run-start', question: 'q?', strategy: 's' }, { type: 'answer-token', text: 'partial' }))
    expect(result).toMatchObject({ answer: 'partial', reason: 'error', cost: zeroCost() })
  })

  it('gives a run’s own result back from its events, whatever the strategy yields (one fold for both)', async () => {
    const step: fc.Arbitrary<StrategyEvent> = fc.oneof(
      fc.string({ maxLength: 6 }).map((text) => ({ type: 'answer-token' as const, text })),
      fc.record({ text: fc.string({ maxLength: 10 }), url: fc.webUrl() }).map(({ text, url }) => ({
        type: 'answer' as const,
        text,
        citations: [{ index: 1, url }],
      })),
      fc
        .record({ id: fc.constantFrom('f1', 'f2', 'f3'), text: fc.string({ maxLength: 8 }), supersedes: fc.subarray(['f1', 'f2', 'f3']) })
        .map(({ id, text, supersedes }) => ({ type: 'fact' as const, fact: fact(id, text), supersedes })),
      fc.string({ maxLength: 8 }).map((knowledge) => ({ type: 'knowledge-update' as const, knowledge, iteration: 1 })),
      fc.integer({ min: 1, max: 5 }).map((calls) => ({ type: 'cost' as const, delta: { llm: calls / 1000, llmCalls: calls } as never })),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), fc.constantFrom('return', 'max-iterations', 'throw'), async (steps, ending) => {
        const strategy: Strategy = {
          name: 'replay',
          async *run() {
            for (const event of steps) yield event
            if (ending === 'throw') throw new Error('strategy bug')
            return { reason: ending === 'max-iterations' ? 'max-iterations' : 'answered' }
          },
        }
        const run = createAgent({ llm: scriptedLLM({ replies: [] }), strategy }).research('q?')
        const events = await collect(run)
        expect(resultOfEvents(events)).toEqual(await run.result)
      }),
      { numRuns: 80 },
    )
  })
})
