// The benchmarks' pure helpers, on small inputs. Timings are measured by `npm run bench`, never here.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../bench/evidence.js'
import { findSentences, holds, sourceBlocks } from '../../bench/evidence-oracle.js'
import { takeSSEData } from '../../bench/fanout.js'
import { openaiFrame, tokenIds, tokenText } from '../../bench/first-token.js'
import { buildReactPrompt, growthRatio, resultsFor } from '../../bench/flat-prompts.js'
import { floodStrategy } from '../../bench/overhead.js'
import { commonPrefixLength, prefixReuse, shareBeforeResults } from '../../bench/prefix-reuse.js'
import { closeTimes, slotBound, streamingBound, tokens } from '../../bench/pipelining.js'
import { ndcg, parseQrels } from '../../bench/scifact.js'
import { growth } from '../../bench/soak.js'
import { labelledSet } from '../../bench/verification.js'
import { max, mean, median, percentile, targetLines } from '../../bench/stats.js'
import { createAgent } from '../../src/index.js'
import { eventFrame } from '../streams/helpers.js'
import { assertEventInvariants, scriptedLLM } from '../../src/testing/index.js'
import type { ResearchEvent } from '../../src/index.js'

describe('percentile (nearest rank)', () => {
  it('picks samples by rank, whatever their order', () => {
    const samples = [5, 1, 4, 2, 3]
    expect(percentile(samples, 0)).toBe(1)
    expect(percentile(samples, 20)).toBe(1)
    expect(percentile(samples, 50)).toBe(3)
    expect(percentile(samples, 99)).toBe(5)
    expect(percentile(samples, 100)).toBe(5)
    expect(median([10, 30, 20, 40])).toBe(20)
  })

  it('gives the 99th of 100 samples as p99, and NaN for none', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(percentile(hundred, 99)).toBe(99)
    expect(percentile([], 50)).toBeNaN()
  })

  it('always returns one of the samples, monotonically in p', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true }), { minLength: 1 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), (xs, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        expect(xs).toContain(percentile(xs, lo))
        expect(percentile(xs, lo)).toBeLessThanOrEqual(percentile(xs, hi))
      }),
    )
  })

  it('max and mean handle lists too long to spread', () => {
    const long = Array.from({ length: 200_000 }, (_, i) => i % 1000)
    expect(max(long)).toBe(999)
    expect(mean([1, 2, 3, 6])).toBe(3)
    expect(max([])).toBeNaN()
  })
})

describe('flat prompts', () => {
  it('the ReAct prompt appends every earlier step with all its results', () => {
    const empty = buildReactPrompt('Q?', [])
    const one = buildReactPrompt('Q?', [{ query: 'alpha', results: resultsFor('alpha') }])
    const two = buildReactPrompt('Q?', [
      { query: 'alpha', results: resultsFor('alpha') },
      { query: 'beta', results: resultsFor('beta') },
    ])
    expect(empty).toContain('(no steps yet)')
    expect(one).toContain('Query: alpha')
    expect(two).toContain('Query: alpha')
    expect(two).toContain('Query: beta')
    for (const r of resultsFor('beta')) expect(two).toContain(r.snippet)
    expect(two.length).toBeGreaterThan(one.length + resultsFor('beta').reduce((n, r) => n + r.snippet.length, 0))
  })

  it('growthRatio is largest over smallest', () => {
    expect(growthRatio([200, 100, 150])).toBe(2)
    expect(growthRatio([7])).toBe(1)
    expect(growthRatio([])).toBeNaN()
  })

  it('search results differ by query and keep five results', () => {
    expect(resultsFor('a')).toHaveLength(5)
    expect(resultsFor('a')[0]?.snippet).not.toBe(resultsFor('b')[0]?.snippet)
  })
})

describe('token latency helpers', () => {
  it('reads back the ids of tokens, also when several arrive in one piece', () => {
    expect(tokenIds(tokenText(7))).toEqual([7])
    expect(tokenIds(tokenText(1) + tokenText(22) + tokenText(333))).toEqual([1, 22, 333])
    expect(tokenIds('no ids here')).toEqual([])
  })

  it('frames a token the way an OpenAI-compatible server does', () => {
    const frame = openaiFrame('w3 ')
    expect(frame.startsWith('data: ')).toBe(true)
    expect(frame.endsWith('\n\n')).toBe(true)
    expect(JSON.parse(frame.slice(6))).toMatchObject({ choices: [{ delta: { content: 'w3 ' } }] })
  })
})

describe('fan-out SSE reader', () => {
  const events: ResearchEvent[] = [
    { type: 'run-start', question: 'q', strategy: 's', runId: 'r', seq: 0, time: 1 },
    { type: 'answer-token', text: 'a\nb', runId: 'r', seq: 1, time: 2 },
  ]
  const wire = `retry: 3000\n\n${events.map(eventFrame).join('')}event: end\ndata: [DONE]\n\n`

  it('gets every data payload of toSSE output, however the text is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(wire.length), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b)
        const data: string[] = []
        let buffer = ''
        let last = 0
        for (const point of [...points, wire.length]) {
          const taken = takeSSEData(buffer + wire.slice(last, point))
          data.push(...taken.data)
          buffer = taken.rest
          last = point
        }
        expect(buffer).toBe('')
        expect(data).toEqual([...events.map((e) => JSON.stringify(e)), '[DONE]'])
      }),
    )
  })

  it('keeps an unfinished frame for later', () => {
    expect(takeSSEData('data: 1\n\ndata: 2\n')).toEqual({ data: ['1'], rest: 'data: 2\n' })
  })
})

describe('overhead and soak helpers', () => {
  it('the flood strategy yields exactly the asked number of events through a valid run', async () => {
    const run = createAgent({ llm: scriptedLLM({ replies: [] }), strategy: floodStrategy(5) }).research('q')
    const seen: ResearchEvent[] = []
    for await (const event of run) seen.push(event)
    assertEventInvariants(seen)
    expect(seen.filter((e) => e.type === 'answer-token')).toHaveLength(5)
    expect((await run.result).answer).toBe('xxxxx')
  })

  it('growth is relative to the start', () => {
    expect(growth(100, 110)).toBeCloseTo(0.1)
    expect(growth(100, 90)).toBeCloseTo(-0.1)
  })
})

describe('prefix reuse', () => {
  it('measures the share of each prompt that equals a prefix of the one before', () => {
    expect(commonPrefixLength('abcd', 'abxy')).toBe(2)
    expect(prefixReuse(['Q: x\nold', 'Q: x\nnew'])).toEqual([5 / 8])
    expect(prefixReuse(['same', 'same', 'other'])).toEqual([1, 0])
  })

  it('measures the share of each extraction prompt before its results, after the first', () => {
    expect(shareBeforeResults(['first', 'Q: x\n\nResults for the search "a":', 'no results'])).toEqual([4 / 33, 0])
  })

  it('stays between 0 and 1, and is 1 exactly when the previous prompt starts with the whole of this one', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (a, b) => {
        const [share] = prefixReuse([a, b])
        expect(share).toBeGreaterThanOrEqual(0)
        expect(share).toBeLessThanOrEqual(1)
        expect(share === 1).toBe(a.startsWith(b))
      }),
    )
  })
})

describe('the run summary', () => {
  it('gives one line per row and reading with a target, met or missed, labelled by its text columns', () => {
    const rows = [
      { loop: 'planner', ratio: 1.4, target: '≤ 1.3', met: false, metFromIteration2: true },
      { path: 'bare', nsPerEvent: 180 },
      { path: 'run', target: '≤ 1000 ns', met: true },
      { role: 'finalizer', target: '', met: '' },
    ]
    expect(targetLines('demo', rows)).toEqual([
      'MISS  demo (planner): target ≤ 1.3',
      'met   demo (planner) [metFromIteration2]: target ≤ 1.3',
      'met   demo (run): target ≤ 1000 ns',
    ])
  })

  it('counts a row that states its target in other columns as a miss, so it cannot pass unseen', () => {
    expect(targetLines('notebook', [{ method: 'indexed', ms: 150, targetMs: 200, pass: true }])).toEqual([
      'MISS  notebook (indexed): the row gives its target as targetMs and pass; name them target and met',
    ])
  })
})

describe('pipelining bounds', () => {
  it('reads when each query closes in a reply streamed evenly over the call', () => {
    // 40 characters: 10 tokens of 4; "a" closes in the 4th token, "b" in the 5th.
    const reply = '{"queries": ["a", "b"], "goal": "gggggg"}'
    expect(tokens(reply)).toHaveLength(Math.ceil(reply.length / 4))
    const closes = closeTimes(reply, 1000)
    expect([...closes.keys()]).toEqual(['a', 'b'])
    const at = (query: string) => Math.ceil((reply.indexOf(`"${query}"`) + query.length + 2) / 4) * (1000 / tokens(reply).length)
    expect(closes.get('a')).toBeCloseTo(at('a'))
    expect(closes.get('b')).toBeCloseTo(at('b'))
  })

  it('puts a child’s search at its parent check’s start plus the moment its query closes', () => {
    const plan = '{"queries": ["r"]}'
    const check = (query: string) => (query === 'r' ? '{"queries": ["c"]}' : '{"queries": []}')
    const root = closeTimes(plan, 100).get('r')!
    const child = closeTimes(check('r'), 100).get('c')!
    const bound = streamingBound({ plan, check, children: (q) => (q === 'r' ? ['c'] : []), modelMs: 100, searchMs: 30 })
    // root search, extractor, then the child from the moment it closes: search, extractor, check; then the answer.
    expect(bound).toBeCloseTo(root + 30 + 100 + child + 30 + 100 + 100 + 100)
    expect(slotBound({ plan, nodes: 2, concurrency: 2, modelMs: 100, searchMs: 30 })).toBeCloseTo(root + 30 + 200 + 100)
  })
})

describe('the verification bench’s labelled set', () => {
  const text =
    'The committee met in Geneva on 14 March 2019 to review the treaty draft. ' +
    'Delegates from Norway argued that the fishing quotas were too generous for the northern fleets. ' +
    'The final text does not include the clause on seabed mining that France had proposed earlier.'
  const other = 'Researchers at Stanford University measured the effect on Lisbon harbour over several long summers of work.'
  const docs = [
    { name: 'a', text },
    { name: 'b', text: other },
  ]

  it('is the same every run, and each change alters only what it names', () => {
    const set = labelledSet(docs)
    expect(labelledSet(docs)).toEqual(set)
    const ofKind = (kind: string) => set.filter((c) => c.document === 'a' && c.kind === kind)
    const written = ofKind('as written').map((c) => c.sentence)
    expect(written).toContain('The committee met in Geneva on 14 March 2019 to review the treaty draft.')
    for (const claim of ofKind('number'))
      expect(claim.sentence.match(/\d+/g)).not.toEqual(written.find((w) => w.split(' ').length === claim.sentence.split(' ').length)?.match(/\d+/g))
    // A name comes from the other document and is nowhere in the passage.
    for (const claim of ofKind('name')) expect(claim.sentence).toMatch(/Researchers|Stanford|University|Lisbon/)
    expect(ofKind('negation').map((c) => c.sentence)).toContain('The final text does include the clause on seabed mining that France had proposed earlier.')
    // Every claim cites the passage around its sentence as written.
    for (const claim of set) expect(claim.passage.length).toBeGreaterThan(claim.sentence.length / 2)
  })
})

describe('evidence bench helpers', () => {
  it('seeded draws are the same for the same seed and within [0, 1)', () => {
    const a = seeded(34)
    const b = seeded(34)
    const draws = Array.from({ length: 50 }, () => a())
    expect(draws).toEqual(Array.from({ length: 50 }, () => b()))
    expect(draws.every((d) => d >= 0 && d < 1)).toBe(true)
    expect(new Set(draws).size).toBe(50)
  })

  it('the oracle finds a sentence that holds every word, whole, and cites its numbered source', () => {
    const prompt =
      'Question: q\n\nResults:\n[1] A\nhttps://a.example/\nLlamas hum. They graze.\n\n[2] B\nhttps://b.example/x.pdf#page=2\nThe llama hums softly when anxious. Another sentence.'
    expect(sourceBlocks(prompt).map((b) => [b.n, b.url])).toEqual([
      [1, 'https://a.example/'],
      [2, 'https://b.example/x.pdf#page=2'],
    ])
    expect(findSentences(prompt, ['llama', 'anxious'])).toEqual([{ n: 2, sentence: 'The llama hums softly when anxious.' }])
    expect(holds('Llamas hum.', ['llama'])).toBe(false)
  })
})

describe('nDCG@10 (the SciFact benchmark)', () => {
  const judged = new Map([
    ['a', 2],
    ['b', 1],
  ])

  it('is 1 for the ideal order, 0 with nothing relevant found, and discounts by log2 of the rank', () => {
    expect(ndcg(['a', 'b', 'x'], judged)).toBeCloseTo(1)
    expect(ndcg(['x', 'y'], judged)).toBe(0)
    expect(ndcg([], judged)).toBe(0)
    const ideal = 2 + 1 / Math.log2(3)
    expect(ndcg(['b', 'a'], judged)).toBeCloseTo((1 + 2 / Math.log2(3)) / ideal)
    expect(ndcg(['x', 'a'], judged)).toBeCloseTo(2 / Math.log2(3) / ideal)
    // Only the first k ranks count; a repeated id counts once.
    expect(ndcg(['x', 'y', 'a'], judged, 2)).toBe(0)
    expect(ndcg(['a', 'a', 'b'], judged)).toBeCloseTo(1)
    expect(ndcg(['a'], new Map([['a', 0]]))).toBe(0)
  })

  it('stays within 0 and 1, and never falls when a relevant document moves up', () => {
    const ids = fc.constantFrom<string>('a', 'b', 'c', 'd', 'e')
    fc.assert(
      fc.property(fc.array(ids, { maxLength: 8 }), fc.dictionary(ids, fc.integer({ min: 0, max: 3 })), (ranked, relevance) => {
        const map = new Map(Object.entries(relevance))
        const value = ndcg(ranked, map)
        expect(value).toBeGreaterThanOrEqual(0)
        expect(value).toBeLessThanOrEqual(1 + 1e-12)
        const at = ranked.findIndex((id, i) => i > 0 && (map.get(id) ?? 0) > (map.get(ranked[i - 1] as string) ?? 0) && !ranked.slice(0, i).includes(id))
        if (at > 0 && !ranked.slice(0, at - 1).includes(ranked[at - 1] as string)) {
          const swapped = [...ranked]
          ;[swapped[at - 1], swapped[at]] = [swapped[at] as string, swapped[at - 1] as string]
          expect(ndcg(swapped, map)).toBeGreaterThanOrEqual(value - 1e-12)
        }
      }),
    )
  })

  it('reads BEIR qrels, skipping the header and blank lines', () => {
    const judgements = parseQrels('query-id\tcorpus-id\tscore\n1\t31715818\t1\n3\t14717500\t1\n3\t99\t2\n\n')
    expect([...judgements.keys()]).toEqual(['1', '3'])
    expect(judgements.get('3')).toEqual(
      new Map([
        ['14717500', 1],
        ['99', 2],
      ]),
    )
  })
})
