/**
 * How deep reads its model, met through deep runs: the planner's next step (the `plan` that names
 * the next sub-question or calls the research complete, or the warning that rejects it), a
 * sub-answer (its `fact`s, the finding's answer and confidence in the `knowledge-update`, its
 * follow-up searches), and the report (the answer's `report`).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../../src/index.js'
import { mockSearch } from '../../../src/testing/index.js'
import { ofType, runReplying, warningCodes, type Replies } from '../replying.js'

const anyReply = fc.oneof(
  fc.string(),
  fc.json(),
  fc.anything().map((v) => JSON.stringify(v) ?? ''),
)

/** Four results for any query, so sources 1 to 4 exist for every sub-question. */
const search = mockSearch({
  results: (query) =>
    [1, 2, 3, 4].map((i) => ({ title: `${query} ${i}`, url: `https://s${i}.example/${encodeURIComponent(query)}`, snippet: `About ${query}, ${i}.` })),
})
const FIRST = 'What does X cost?'
const first = JSON.stringify({ is_complete: false, next_question: FIRST })

async function deepRun(replies: Replies, maxSteps = 2): Promise<ResearchEvent[]> {
  const { events } = await runReplying('deep', replies, { search, deep: { maxSteps, readPages: 0 } })
  const end = events.at(-1)
  expect(end).toMatchObject({ type: 'run-end' })
  expect(['answered', 'max-iterations']).toContain((end as { reason: string }).reason)
  return events
}

type Decision = { kind: 'complete'; reasoning: string } | { kind: 'next'; question: string; reasoning?: string } | { kind: 'unclear' }

/** What deep did with its planner's second reply `reply`, once one sub-question is answered. */
async function decisionOf(reply: string): Promise<Decision> {
  const events = await deepRun({ 'deep planner': (_req, n) => (n === 0 ? first : n === 1 ? reply : '{"is_complete": true}') }, 3)
  const after = events.slice(events.findIndex((e) => e.type === 'knowledge-update') + 1)
  for (const event of after) {
    if (event.type === 'warning' && event.code === 'unparseable-output') return { kind: 'unclear' }
    if (event.type === 'warning' && event.code === 'empty-question') return { kind: 'next', question: '' }
    if (event.type === 'plan') {
      if (event.text === 'Complete.') return { kind: 'complete', reasoning: '' }
      if (event.text.startsWith('Complete: ')) return { kind: 'complete', reasoning: event.text.slice('Complete: '.length) }
      const question = event.queries![0]!
      expect(event.text.startsWith(`Next: ${question}`)).toBe(true)
      const rest = event.text.slice(`Next: ${question}`.length)
      return { kind: 'next', question, reasoning: rest ? /^ \((.*)\)$/s.exec(rest)![1]! : '' }
    }
  }
  throw new Error('the planner decided nothing')
}

describe("the planner's next step", () => {
  it.each([
    ['{"is_complete": true, "reasoning": "done"}', { kind: 'complete', reasoning: 'done' }],
    [
      '```json\n{"is_complete": false, "next_question": "When did X launch?", "reasoning": "price"}\n```',
      { kind: 'next', question: 'When did X launch?', reasoning: 'price' },
    ],
    ["{is_complete: 'no', nextQuestion: '\"Who founded X?\"'}", { kind: 'next', question: 'Who founded X?', reasoning: '' }],
    // No question: rejected as empty (its reasoning is not shown).
    ['{"is_complete": false}', { kind: 'next', question: '' }],
    ['**Next question:** When was X released?', { kind: 'next', question: 'When was X released?', reasoning: '' }],
    ['Complete: yes', { kind: 'complete', reasoning: '' }],
    ['<think>{"is_complete": true}</think>I am not sure.', { kind: 'unclear' }],
  ])('reads %j', async (reply, expected) => {
    expect(await decisionOf(reply)).toEqual(expected)
  })

  it('never throws on any string', async () => {
    await fc.assert(
      fc.asyncProperty(anyReply, async (reply) => {
        const decision = await decisionOf(reply)
        if (decision.kind === 'next') expect(decision.question.length).toBeLessThanOrEqual(300)
      }),
    )
  })
})

/** What deep made of the sub-answer `reply` to its one sub-question. */
async function subAnswerOf(reply: string) {
  const events = await deepRun({ 'deep planner': (_req, n) => (n === 0 ? first : '{"is_complete": true}'), 'deep sub-answer': reply })
  const [update] = ofType(events, 'knowledge-update')
  const [, answer, confidence] = /^Q: .*\nA: ([\s\S]*) \(confidence ([\d.]+)\)$/.exec(update!.knowledge)!
  const searched = ofType(events, 'query').map((q) => q.query)
  return { events, answer, confidence: Number(confidence), facts: ofType(events, 'fact').map((f) => f.fact), searched, warnings: warningCodes(events) }
}

const url = (i: number, query = FIRST) => `https://s${i}.example/${encodeURIComponent(query)}`

describe('a sub-answer', () => {
  it('reads the answer, confidence, facts with source numbers and follow-up queries', async () => {
    const read = await subAnswerOf(
      '{"answer": "X costs $5 [2].", "confidence": "85%", "facts": [{"text": "X costs $5", "sources": [2, "[3]", "x"]}, "bare fact", {"sources": [1]}], "need_more": "yes", "queries": ["x price 2024"]}',
    )
    // The finding's answer, without its markers.
    expect(read.answer).toBe('X costs $5.')
    expect(read.confidence).toBe(0.85)
    expect(read.facts.map((f) => ({ text: f.text, sources: f.sources }))).toEqual([{ text: 'X costs $5', sources: [url(2), url(3)] }])
    // "bare fact" was read, with no source: dropped as ungrounded; the fact without text was not a fact.
    expect(ofType(read.events, 'warning').find((w) => w.code === 'ungrounded-facts')?.message).toMatch(/^1 fact\(s\)/)
    expect(read.searched).toEqual([FIRST, 'x price 2024'])
    expect(read.warnings).not.toContain('unparseable-output')
  })

  it('keeps prose as an unreadable answer, and drops a broken JSON attempt', async () => {
    const prose = await subAnswerOf('X costs five dollars.')
    expect(prose).toMatchObject({ answer: 'X costs five dollars.', facts: [] })
    expect(prose.warnings).toContain('unparseable-output')
    const broken = await subAnswerOf('{"confidence": 1}')
    expect(broken.answer).toBe('The sources did not answer this sub-question.')
  })

  it('never throws, and confidence stays within 0 to 1', async () => {
    await fc.assert(
      fc.asyncProperty(anyReply, async (reply) => {
        const read = await subAnswerOf(reply)
        expect(read.confidence).toBeGreaterThanOrEqual(0)
        expect(read.confidence).toBeLessThanOrEqual(1)
        // Every fact kept names sources the sub-question's search found.
        const found = ofType(read.events, 'result').flatMap((r) => r.results.map((x) => x.url))
        for (const fact of read.facts) for (const source of fact.sources) expect(found).toContain(source)
      }),
    )
  })
})

describe("a sub-answer's confidence", () => {
  const confidenceOf = async (value: unknown) => (await subAnswerOf(JSON.stringify({ answer: 'X costs $5 [1].', confidence: value }))).confidence
  // A value it does not read leaves the default of a readable answer, 0.5.
  it.each([
    [0.7, 0.7],
    ['0.25', 0.25],
    ['80%', 0.8],
    [90, 0.9],
    [1e9, 1],
    [-1, 0.5],
    ['high', 0.5],
    ['NaN', 0.5],
  ])('reads %j', async (value, expected) => {
    expect(await confidenceOf(value)).toBe(expected)
  })

  it('is within 0 to 1 for any value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const c = await confidenceOf(value)
        expect(c >= 0 && c <= 1).toBe(true)
      }),
    )
  })
})

describe('the report', () => {
  const reportOf = async (reply: string) => {
    const events = await deepRun({ 'deep planner': (_req, n) => (n === 0 ? first : '{"is_complete": true}'), 'deep report': reply })
    const [answer] = ofType(events, 'answer')
    return { report: answer!.report!, summary: answer!.text, warnings: warningCodes(events) }
  }

  it('reads the report fields in snake or camel case', async () => {
    const { report, summary, warnings } = await reportOf('{"title": "T", "mainFindings": ["a", 3], "conclusions": ["c"], "sources_summary": "s"}')
    expect(report).toEqual({
      title: 'T',
      executiveSummary: summary,
      mainFindings: ['a'],
      conclusions: ['c'],
      limitations: [],
      recommendations: [],
      sourcesSummary: 's',
    })
    expect(warnings).not.toContain('unparseable-output')
  })

  it('reads no report without a title or findings', async () => {
    for (const reply of ['{"conclusions": ["c"]}', 'no report']) {
      const { report, warnings } = await reportOf(reply)
      expect(warnings).toContain('unparseable-output')
      // The report lists the findings instead.
      expect(report.limitations).toEqual(['The report could not be structured; the findings are the answers to each sub-question.'])
    }
  })

  it('never throws on any string', async () => {
    await fc.assert(
      fc.asyncProperty(anyReply, async (reply) => {
        const { report } = await reportOf(reply)
        expect(Array.isArray(report.mainFindings)).toBe(true)
      }),
    )
  })
})
