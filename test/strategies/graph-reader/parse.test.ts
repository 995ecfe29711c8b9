import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkSource, parseExtraction, parseNodeCheck, parsePlan } from '../../../src/strategies/graph-reader/parse.js'

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

describe('graph-reader parsers are total', () => {
  it('never throw, on any string or non-string', () => {
    fc.assert(
      fc.property(fc.oneof(anyReply, fc.anything()), (reply) => {
        const plan = parsePlan(reply)
        if (plan) {
          expect(plan.queries.length).toBeGreaterThan(0)
          expect(plan.queries.length).toBeLessThanOrEqual(5)
        }
        const extraction = parseExtraction(reply)
        for (const fact of extraction.facts) expect(fact.text.trim()).not.toBe('')
        const check = parseNodeCheck(reply)
        expect(check.queries.length).toBeLessThanOrEqual(4)
        if (!check.readable) expect(check).toMatchObject({ answerable: false, queries: [] })
      }),
      { numRuns: 500 },
    )
  })

  it('checkSource never throws and only returns URLs it was given', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double(), fc.string(), fc.webUrl()), fc.array(fc.webUrl(), { maxLength: 5 }), (ref, seen) => {
        const check = checkSource(ref, seen, seen)
        if (check.kind !== 'dropped') expect(seen).toContain(check.url)
      }),
    )
  })
})

describe('parsePlan', () => {
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
  ])('reads %s', (_name, reply, queries) => {
    expect(parsePlan(reply)?.queries).toEqual(queries)
  })

  it('reads goal, steps and key elements', () => {
    expect(parsePlan('{"goal": "G", "steps": ["s1"], "keyElements": ["Baker", "2024"], "queries": ["q"]}')).toEqual({
      goal: 'G',
      steps: ['s1'],
      keyElements: ['Baker', '2024'],
      queries: ['q'],
    })
  })

  it.each(['', 'I cannot help.', '{"goal": "no queries"}', '[1], [2]', '{"queries": ["<query>", "..."]}'])('gives up on %j', (reply) => {
    expect(parsePlan(reply)).toBeUndefined()
  })
})

describe('parseExtraction', () => {
  it.each([
    ['JSON in fences', '```json\n{"facts": [{"text": "A", "source": 1}]}\n```', [{ text: 'A', sources: [1] }]],
    [
      'JSON after Step prose',
      'Step 1: read [1].\nStep 2: extract.\n{"facts": [{"fact": "B", "url": "https://x.example/b"}]}',
      [{ text: 'B', sources: ['https://x.example/b'] }],
    ],
    ['think blocks', '<think>{"facts": [{"text": "no"}]}</think>{"facts": [{"text": "yes", "source": "[2]"}]}', [{ text: 'yes', sources: [2] }]],
    ['trailing commas', '{"facts": [{"text": "C", "sources": [1, 2,],},],}', [{ text: 'C', sources: [1, 2] }]],
    ['single quotes', "{'facts': [{'text': 'D', 'source': 3}]}", [{ text: 'D', sources: [3] }]],
    [
      'a top-level array of strings',
      '["E [1]", "F (source: https://f.example/x)"]',
      [
        { text: 'E', sources: [1] },
        { text: 'F', sources: ['https://f.example/x'] },
      ],
    ],
    [
      'a bare list',
      'Facts:\n- G happened in 2024 [1][2]\n- H is true — https://h.example/page.\n* I',
      [
        { text: 'G happened in 2024', sources: [1, 2] },
        { text: 'H is true', sources: ['https://h.example/page'] },
        { text: 'I', sources: [] },
      ],
    ],
  ])('reads %s', (_name, reply, facts) => {
    expect(parseExtraction(reply)).toEqual({ facts, readable: true })
  })

  it('reads an explicit "no facts" as readable and empty, and noise as unreadable', () => {
    expect(parseExtraction('{"facts": []}')).toEqual({ facts: [], readable: true })
    expect(parseExtraction('None.')).toEqual({ facts: [], readable: true })
    expect(parseExtraction('No relevant facts in these results.')).toEqual({ facts: [], readable: true })
    expect(parseExtraction('The results talk about several things.')).toEqual({ facts: [], readable: false })
  })
})

describe('parseNodeCheck', () => {
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
  ])('reads %s', (_name, reply, check) => {
    expect(parseNodeCheck(reply)).toEqual(check)
  })

  it('falls back to exploring on when nothing can be read', () => {
    expect(parseNodeCheck('I think we are getting there.')).toEqual({ answerable: false, queries: [], readable: false })
  })
})

describe('checkSource', () => {
  const seen = ['https://a.example/one', 'https://b.example/x/1', 'https://b.example/y/2']
  it.each([
    [1, { kind: 'seen', url: 'https://a.example/one' }],
    [4, { kind: 'dropped', from: '[4]' }],
    ['https://www.a.example/one/', { kind: 'seen', url: 'https://a.example/one' }],
    ['https://a.example/made-up', { kind: 'corrected', url: 'https://a.example/one', from: 'https://a.example/made-up' }],
    ['https://b.example/x', { kind: 'corrected', url: 'https://b.example/x/1', from: 'https://b.example/x' }],
    ['https://b.example/z', { kind: 'dropped', from: 'https://b.example/z' }],
    ['https://c.example/', { kind: 'dropped', from: 'https://c.example/' }],
    ['Wikipedia', { kind: 'dropped', from: 'Wikipedia' }],
  ])('%j', (ref, expected) => {
    expect(checkSource(ref, seen, seen)).toEqual(expected)
  })
})
