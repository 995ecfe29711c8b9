import fc from 'fast-check'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { EventOf, ResearchEvent } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { coalesceTokens, collectMetrics, filter, logEvents } from '../../src/streams/index.js'
import { researchRun, stamp } from './arbitraries.js'
import { collect, gate, scriptedRun } from './helpers.js'

type ClaimVerdict = EventOf<'claim'>['verdict']

const cost = { ...zeroCost(), llm: 0.02, total: 0.025, search: 0.005, llmCalls: 2, searches: 1, inputTokens: 300, outputTokens: 40 }

const run: ResearchEvent[] = stamp([
  { type: 'run-start', question: 'why is the sky blue?', strategy: 'scratchpad' },
  { type: 'plan', text: 'Search: rayleigh', queries: ['rayleigh'] },
  { type: 'query', queryId: 'q1', query: 'rayleigh scattering' },
  { type: 'result', queryId: 'q1', results: [{ title: 't', url: 'https://a.example/x', snippet: 's' }] },
  { type: 'page', url: 'https://user:pw@a.example/x?api_key=SECRET123&page=2', queryId: 'q1', chars: 1200 },
  { type: 'fact', fact: { id: 'f1', text: 'Short light scatters more.', sources: ['https://a.example/x'] } },
  { type: 'knowledge-update', knowledge: 'Blue light scatters more than red.', iteration: 1 },
  { type: 'llm-call', role: 'planner', model: 'm', latencyMs: 120, inputTokens: 200, outputTokens: 20 },
  { type: 'cost', delta: cost, total: cost },
  { type: 'answer-token', text: 'Rayleigh' },
  { type: 'answer-token', text: ' scattering' },
  { type: 'answer-token', text: ' [1].' },
  { type: 'answer', text: 'Rayleigh scattering [1].', citations: [{ index: 1, url: 'https://a.example/x' }] },
  { type: 'warning', message: 'a search failed', code: 'http' },
  { type: 'run-end', reason: 'answered', cost, answer: 'Rayleigh scattering [1].' },
])

describe('filter', () => {
  it('keeps only the named types, in order, with narrowed types', async () => {
    const picked = await collect(filter(scriptedRun(run), 'query', 'fact'))
    expectTypeOf(picked).toEqualTypeOf<EventOf<'query' | 'fact'>[]>()
    expect(picked.map((e) => e.type)).toEqual(['query', 'fact'])
    expect(picked[0]).toBe(run[2])
  })

  it('stopping early stops the source', async () => {
    const source = scriptedRun(run)
    for await (const _event of filter(source, 'query')) break
    expect(source.state.returned).toBe(true)
    expect(source.state.pulled).toBe(3)
  })
})

describe('coalesceTokens', () => {
  it('merges tokens that arrive together, keeps order and the joined text, carries the last seq', async () => {
    const out = await collect(coalesceTokens(scriptedRun(run), 10_000))
    const tokens = out.filter((e) => e.type === 'answer-token')
    expect(tokens).toEqual([{ ...run[11], text: 'Rayleigh scattering [1].' }])
    expect(out.map((e) => e.type)).toEqual(run.filter((e) => e.seq <= 9 || e.seq >= 12).map((e) => e.type))
  })

  it('sends a batch when its window closes, before the next token arrives', async () => {
    const batchSent = gate()
    const source = scriptedRun(run, { 11: batchSent.promise })
    const texts: string[] = []
    for await (const event of coalesceTokens(source, 5)) {
      if (event.type !== 'answer-token') continue
      texts.push(event.text)
      batchSent.open()
    }
    expect(texts).toEqual(['Rayleigh scattering', ' [1].'])
  })

  it('never changes the non-token events or the answer text, whatever the run', async () => {
    await fc.assert(
      fc.asyncProperty(researchRun, async (events) => {
        const out = await collect(coalesceTokens(scriptedRun(events), 1_000))
        const text = (list: ResearchEvent[]) => list.flatMap((e) => (e.type === 'answer-token' ? [e.text] : [])).join('')
        expect(text(out)).toBe(text(events))
        expect(out.filter((e) => e.type !== 'answer-token')).toEqual(events.filter((e) => e.type !== 'answer-token'))
        const seqs = out.map((e) => e.seq)
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      }),
      { numRuns: 50 },
    )
  })

  it('aborts the source when the consumer stops', async () => {
    const source = scriptedRun(run)
    for await (const event of coalesceTokens(source, 1)) if (event.type === 'plan') break
    expect(source.state.aborted).toBe(true)
  })
})

describe('logEvents', () => {
  it('writes one structured line per meaningful event, tokens summarised, credentials removed', async () => {
    const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = []
    const at = (level: string) => (fields: Record<string, unknown>, message: string) => lines.push({ level, fields, message })
    await logEvents(scriptedRun(run), { info: at('info'), warn: at('warn'), debug: at('debug') })

    expect(lines.map((l) => l.fields.event)).toEqual([
      'run-start',
      'plan',
      'query',
      'result',
      'page',
      'fact',
      'knowledge-update',
      'llm-call',
      'answer',
      'warning',
      'run-end',
    ])
    expect(lines.every((l) => l.fields.runId === 'run-1' && typeof l.fields.seq === 'number')).toBe(true)
    expect(lines.find((l) => l.fields.event === 'answer')?.fields).toMatchObject({ tokens: 3, citations: 1 })
    expect(lines.find((l) => l.fields.event === 'warning')).toMatchObject({ level: 'warn', message: 'a search failed' })
    expect(lines.find((l) => l.fields.event === 'run-end')?.fields).toMatchObject({ dollars: 0.025, llmCalls: 2 })
    const text = JSON.stringify(lines)
    expect(text).not.toContain('SECRET123')
    expect(text).not.toContain('user:pw')
    expect(text).not.toContain('Blue light scatters') // knowledge is logged by size only
  })

  it('falls back to info for levels a logger lacks, and logs errors at error', async () => {
    const levels: string[] = []
    const failed = stamp([
      { type: 'run-start', question: 'q', strategy: 's' },
      { type: 'warning', message: 'w', code: 'c' },
      { type: 'run-end', reason: 'error', cost: zeroCost(), error: { message: 'boom', code: 'strategy' } },
    ])
    await logEvents(scriptedRun(failed), { info: () => levels.push('info'), error: () => levels.push('error') })
    expect(levels).toEqual(['info', 'info', 'error'])
  })
})

describe('collectMetrics', () => {
  it('counts, times the first token and fills the latency histograms', async () => {
    const metrics = await collectMetrics(scriptedRun(run))
    expect(metrics.cost).toEqual(cost)
    expect(metrics).toMatchObject({ events: run.length, queries: 1, facts: 1, pages: 1, warnings: 1, answerTokens: 3, reason: 'answered' })
    // The stamp helper spaces events 7 ms apart: run-start is seq 0, the first token seq 9.
    expect(metrics.timeToFirstTokenMs).toBe(63)
    expect(metrics.durationMs).toBe(7 * (run.length - 1))
    expect(metrics.searchLatencyMs).toMatchObject({ count: 1, sum: 7, min: 7, max: 7 })
    expect(metrics.llmLatencyMs).toMatchObject({ count: 1, sum: 120 })
    const bucket = (bound: number) => metrics.llmLatencyMs.counts[metrics.llmLatencyMs.bounds.indexOf(bound)]
    expect([bucket(100), bucket(250), bucket(60_000)]).toEqual([0, 1, 1])
    expect(metrics.supportRate).toBeUndefined()
  })

  it('counts claims by verdict and their support rate, leaving uncited ones out of it', async () => {
    const claim = (index: number, verdict: ClaimVerdict, citations: number[] = [1]) => ({
      type: 'claim' as const,
      index,
      text: `S${index} [1].`,
      citations,
      verdict,
      score: 0.5,
    })
    const verified = stamp([
      { type: 'run-start', question: 'q', strategy: 's' },
      claim(0, 'supported'),
      claim(1, 'unsupported'),
      { ...claim(2, 'uncited', []), text: 'S2.' },
      claim(3, 'supported'),
      { type: 'run-end', reason: 'answered', cost: zeroCost() },
    ])
    const metrics = await collectMetrics(scriptedRun(verified))
    expect(metrics.claims).toEqual({ supported: 2, partial: 0, unsupported: 1, uncited: 1, unverifiable: 0 })
    expect(metrics.supportRate).toBeCloseTo(2 / 3)
  })
})
