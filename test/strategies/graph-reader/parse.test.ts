/**
 * How graph-reader reads its model, met through graph-reader runs: the rational plan (the first
 * `plan`: its goal, steps, key elements and queries), an extraction (the `fact`s filed, each
 * source checked against the URLs the node saw), and the answer check (the `plan` after a node:
 * what is missing and the next queries, or the notebook answering). A reply nothing can be read
 * from is an `unparseable-output` warning.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent, SearchResult } from '../../../src/index.js'
import { mockSearch } from '../../../src/testing/index.js'
import { ofType, runReplying, warningCodes, type Replies } from '../replying.js'

const anyReply = fc.oneof(
  fc.string(),
  fc.json(),
  fc.anything().map((v) => JSON.stringify(v) ?? ''),
  fc
    .array(
      fc.oneof(
        fc.constantFrom('{', '}', '[', ']', '"', "'", ',', ':', '```', '<think>', '</think>', '- ', '\n', 'facts', 'queries', 'answerable', 'true', '1.'),
        fc.string({ maxLength: 5 }),
      ),
      { maxLength: 30 },
    )
    .map((parts) => parts.join('')),
)

const QUESTION = 'Who won the 2024 Nobel Prize in Chemistry?'
const result = (url: string): SearchResult => ({ title: `Title of ${url}`, url, snippet: `About ${url}.` })

/** A graph-reader run that searches one query, `alpha`, whose results are `results` (one node, unless the check asks for more). */
async function graphRun(replies: Replies, results: readonly SearchResult[] = []): Promise<ResearchEvent[]> {
  const { events } = await runReplying(
    'graph-reader',
    {
      'graph-reader planner': '{"queries": ["alpha"]}',
      'graph-reader neighbor': '{"answerable": false, "queries": []}',
      'graph-reader finalizer': 'The answer [1].',
      ...replies,
    },
    { search: mockSearch({ results: () => [...results] }), graphReader: { maxPagesPerNode: 0 } },
    QUESTION,
  )
  expect(events.at(-1)).toMatchObject({ type: 'run-end' })
  expect((events.at(-1) as { reason: string }).reason).not.toBe('error')
  return events
}

describe('graph-reader reads any reply without failing the run', () => {
  it('the plan, the facts and the checks stay within their bounds, whatever every role says', async () => {
    await fc.assert(
      fc.asyncProperty(anyReply, async (reply) => {
        const events = await graphRun({ 'graph-reader planner': reply, 'graph-reader extractor': reply, 'graph-reader neighbor': reply }, [
          result('https://a.example/1'),
        ])
        const [plan, ...after] = ofType(events, 'plan')
        expect(plan!.queries!.length).toBeGreaterThan(0)
        expect(plan!.queries!.length).toBeLessThanOrEqual(5)
        for (const { fact } of ofType(events, 'fact')) expect(fact.text.trim()).not.toBe('')
        const unread = ofType(events, 'warning').flatMap((w) => /could not read the answer check after "(.*)"; exploring on$/s.exec(w.message)?.[1] ?? [])
        for (const check of after) {
          expect(check.queries?.length ?? 0).toBeLessThanOrEqual(4)
          const query = /^After "(.*)":/s.exec(check.text)?.[1]
          if (query !== undefined && unread.includes(query)) expect(check.queries).toBeUndefined()
        }
      }),
      { numRuns: 500 },
    )
  })

  it('a fact only ever names URLs the node was given', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer(), fc.double(), fc.string(), fc.webUrl()), fc.array(fc.webUrl(), { maxLength: 5 }), async (ref, seen) => {
        const events = await graphRun({ 'graph-reader extractor': JSON.stringify({ facts: [{ text: 'A fact.', source: ref }] }) }, seen.map(result))
        for (const { fact } of ofType(events, 'fact')) for (const url of fact.sources) expect(seen).toContain(url)
      }),
    )
  })
})

/** The rational plan graph-reader read from `reply`; undefined when it read none (and searched the question). */
async function planOf(reply: string) {
  const events = await graphRun({ 'graph-reader planner': reply })
  const [plan] = ofType(events, 'plan')
  if (warningCodes(events).includes('unparseable-output')) {
    expect(plan!.queries).toEqual([QUESTION])
    return undefined
  }
  return { text: plan!.text, keyElements: plan!.keyElements ?? [], queries: plan!.queries }
}

describe('the rational plan', () => {
  it.each([
    ['JSON in fences', '```json\n{"goal": "g", "steps": ["a", "b"], "key_elements": ["x"], "queries": ["q1", "q2", "q3"]}\n```', ['q1', 'q2', 'q3']],
    [
      'JSON after Step 1 … Step 2 prose',
      'Step 1 [1]: find the winner.\nStep 2 [2]: find the year.\n{"queries": ["nobel 2024 winner", "nobel 2024 year"]}',
      ['nobel 2024 winner', 'nobel 2024 year'],
    ],
    ['think blocks', '<think>{"queries": ["wrong"]}</think>{"queries": ["right"]}', ['right']],
    ['trailing commas', '{"queries": ["a", "b",],}', ['a', 'b']],
    ['single quotes', "{'queries': ['a b', 'c d']}", ['a b', 'c d']],
    ['a bare list', 'Here are my searches:\n1. first search\n2. "second search"\n- third search', ['first search', 'second search', 'third search']],
    ['objects as queries and repeats', '{"queries": [{"query": "x y"}, {"query": "X  y!"}, {"query": "z"}]}', ['x y', 'z']],
    ['more than five', '{"queries": ["1a", "2a", "3a", "4a", "5a", "6a"]}', ['1a', '2a', '3a', '4a', '5a']],
  ])('reads %s', async (_name, reply, queries) => {
    expect((await planOf(reply))?.queries).toEqual(queries)
  })

  it('reads goal, steps and key elements', async () => {
    expect(await planOf('{"goal": "G", "steps": ["s1"], "keyElements": ["Baker", "2024"], "queries": ["q"]}')).toEqual({
      text: 'Goal: G. Steps: s1.',
      keyElements: ['Baker', '2024'],
      queries: ['q'],
    })
  })

  it.each(['', 'I cannot help.', '{"goal": "no queries"}', '[1], [2]', '{"queries": ["<query>", "..."]}'])('gives up on %j', async (reply) => {
    expect(await planOf(reply)).toBeUndefined()
  })
})

/** The node's results: sources [1] to [3], the pages the cases cite by URL too. */
const NODE_RESULTS = ['https://x.example/b', 'https://f.example/x', 'https://h.example/page'].map(result)
const n = (i: number) => NODE_RESULTS[i - 1]!.url

/** The facts graph-reader filed from the extraction `reply`, and whether it could read it. */
async function extractionOf(reply: string) {
  const events = await graphRun({ 'graph-reader extractor': reply }, NODE_RESULTS)
  const facts = ofType(events, 'fact').map(({ fact }) => ({ text: fact.text, sources: fact.sources }))
  return { facts, readable: !warningCodes(events).includes('unparseable-output') }
}

describe('an extraction', () => {
  it.each([
    ['JSON in fences', '```json\n{"facts": [{"text": "A", "source": 1}]}\n```', [{ text: 'A', sources: [n(1)] }]],
    [
      'JSON after Step prose',
      'Step 1: read [1].\nStep 2: extract.\n{"facts": [{"fact": "B", "url": "https://x.example/b"}]}',
      [{ text: 'B', sources: ['https://x.example/b'] }],
    ],
    ['think blocks', '<think>{"facts": [{"text": "no"}]}</think>{"facts": [{"text": "yes", "source": "[2]"}]}', [{ text: 'yes', sources: [n(2)] }]],
    ['trailing commas', '{"facts": [{"text": "C", "sources": [1, 2,],},],}', [{ text: 'C', sources: [n(1), n(2)] }]],
    ['single quotes', "{'facts': [{'text': 'D', 'source': 3}]}", [{ text: 'D', sources: [n(3)] }]],
    [
      'a top-level array of strings',
      '["E [1]", "F (source: https://f.example/x)"]',
      [
        { text: 'E', sources: [n(1)] },
        { text: 'F', sources: ['https://f.example/x'] },
      ],
    ],
    [
      'a bare list',
      'Facts:\n- G happened in 2024 [1][2]\n- H is true — https://h.example/page.\n* I',
      [
        { text: 'G happened in 2024', sources: [n(1), n(2)] },
        { text: 'H is true', sources: ['https://h.example/page'] },
        { text: 'I', sources: [] },
      ],
    ],
  ])('reads %s', async (_name, reply, facts) => {
    expect(await extractionOf(reply)).toEqual({ facts, readable: true })
  })

  it('reads an explicit "no facts" as readable and empty, and noise as unreadable', async () => {
    expect(await extractionOf('{"facts": []}')).toEqual({ facts: [], readable: true })
    expect(await extractionOf('None.')).toEqual({ facts: [], readable: true })
    expect(await extractionOf('No relevant facts in these results.')).toEqual({ facts: [], readable: true })
    expect(await extractionOf('The results talk about several things.')).toEqual({ facts: [], readable: false })
  })
})

/** What graph-reader did with the answer check `reply` after its first node (whose extraction filed one fact). */
async function checkOf(reply: string) {
  const events = await graphRun(
    {
      'graph-reader extractor': (_req, i) => (i === 0 ? '{"facts": [{"text": "Baker won the prize.", "source": 1}]}' : '{"facts": []}'),
      'graph-reader neighbor': (_req, i) => (i === 0 ? reply : '{"answerable": false, "queries": []}'),
    },
    [result('https://a.example/1')],
  )
  const readable = !warningCodes(events).includes('unparseable-output')
  const check = ofType(events, 'plan').find((p) => p.text.includes('(after "alpha")') || p.text.startsWith('After "alpha":'))!
  if (check.text.startsWith('The notebook answers the question')) return { answerable: true, queries: [], readable }
  const missing = /^After "alpha": Missing: (.*)\. (?:Next|No new)/s.exec(check.text)?.[1]
  return { answerable: false, ...(missing !== undefined ? { missing } : {}), queries: check.queries ?? [], readable }
}

describe('the answer check', () => {
  it.each([
    [
      'JSON in fences',
      '```json\n{"answerable": false, "missing": "the year", "queries": ["nobel year"]}\n```',
      { answerable: false, missing: 'the year', queries: ['nobel year'], readable: true },
    ],
    ['a yes string', '{"answerable": "yes"}', { answerable: true, queries: [], readable: true }],
    [
      'JSON after Step prose',
      'Step 1: check [1].\nStep 2: plan.\n{"sufficient": false, "next_queries": ["a b", "A B"]}',
      { answerable: false, queries: ['a b'], readable: true },
    ],
    ['think blocks', '<think>{"answerable": true}</think>{"answerable": false, "queries": ["x"]}', { answerable: false, queries: ['x'], readable: true }],
    ['trailing commas and single quotes', "{'answerable': False, 'queries': ['p', 'q',],}", { answerable: false, queries: ['p', 'q'], readable: true }],
    [
      'labelled lines and a bare list',
      'Answerable: No\nNext queries:\n1. first gap\n2. second gap',
      { answerable: false, queries: ['first gap', 'second gap'], readable: true },
    ],
    ['a bold yes line', '**Answerable:** yes', { answerable: true, queries: [], readable: true }],
  ])('reads %s', async (_name, reply, check) => {
    expect(await checkOf(reply)).toEqual(check)
  })

  it('falls back to exploring on when nothing can be read', async () => {
    expect(await checkOf('I think we are getting there.')).toEqual({ answerable: false, queries: [], readable: false })
  })
})

describe("a fact's source, checked against the URLs the node saw", () => {
  const seen = ['https://a.example/one', 'https://b.example/x/1', 'https://b.example/y/2']
  it.each([
    [1, { kind: 'seen', url: 'https://a.example/one' }],
    [4, { kind: 'dropped' }],
    ['https://www.a.example/one/', { kind: 'seen', url: 'https://a.example/one' }],
    ['https://a.example/made-up', { kind: 'corrected', url: 'https://a.example/one' }],
    ['https://b.example/x', { kind: 'corrected', url: 'https://b.example/x/1' }],
    ['https://b.example/z', { kind: 'dropped' }],
    ['https://c.example/', { kind: 'dropped' }],
    ['Wikipedia', { kind: 'dropped' }],
  ])('%j', async (ref, expected) => {
    const events = await graphRun({ 'graph-reader extractor': JSON.stringify({ facts: [{ text: 'A fact.', source: ref }] }) }, seen.map(result))
    const [fact] = ofType(events, 'fact')
    const invented = ofType(events, 'warning').find((w) => w.code === 'invented-source')?.message
    const kind = invented === undefined ? 'seen' : /1 corrected/.test(invented) ? 'corrected' : /1 dropped/.test(invented) ? 'dropped' : 'unknown'
    expect({ kind, ...(fact!.fact.sources.length ? { url: fact!.fact.sources[0] } : {}) }).toEqual(expected)
    expect(fact!.fact.sources.length).toBeLessThanOrEqual(1)
  })
})
