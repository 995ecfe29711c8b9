import fc from 'fast-check'
import type { Cost, EventOf, EventType, ResearchEvent } from '../../src/index.js'

/** What an event of type `T` carries besides its type and stamp (run, position, time). */
type Payload<T extends EventType> = Omit<EventOf<T>, 'type' | 'runId' | 'seq' | 'time'>

/** Text that stresses the SSE and NDJSON framings: line breaks, CR, field lookalikes, unicode. */
export const trickyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', '\r', '\n', '\r\n', '\n\n', 'a\rb\nc\r\nd', 'data: x\n\nid: 9\n', ': not a comment', '\u2028\u2029', '😀 café 中文', '\0'),
)

// Divided integers: JSON-plain numbers (no -0, NaN or Infinity, which JSON cannot carry).
const money = fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 1_000_000)
const count = fc.nat({ max: 100_000 })

const cost: fc.Arbitrary<Cost> = fc.record({
  llm: money,
  search: money,
  embedding: money,
  total: money,
  inputTokens: count,
  outputTokens: count,
  llmCalls: count,
  unpricedCalls: count,
  embeddingTokens: count,
  searches: count,
  fetches: count,
})

const id = fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme-ascii' })

const payloads: { [T in EventType]: fc.Arbitrary<Payload<T>> } = {
  'run-start': fc.record({ question: trickyText, strategy: trickyText }),
  plan: fc.record(
    { text: trickyText, keyElements: fc.array(trickyText, { maxLength: 3 }), queries: fc.array(trickyText, { maxLength: 3 }) },
    { requiredKeys: ['text'] },
  ),
  query: fc.record({ queryId: id, query: trickyText, parentId: id, depth: fc.nat({ max: 5 }) }, { requiredKeys: ['queryId', 'query'] }),
  result: fc.record(
    {
      queryId: id,
      results: fc.array(fc.record({ title: trickyText, url: fc.webUrl(), snippet: trickyText, score: money }, { requiredKeys: ['title', 'url', 'snippet'] }), {
        maxLength: 3,
      }),
      cached: fc.boolean(),
    },
    { requiredKeys: ['queryId', 'results'] },
  ),
  page: fc.record({ url: fc.webUrl(), queryId: id, chars: count, title: trickyText }, { requiredKeys: ['url', 'chars'] }),
  fact: fc.record(
    {
      fact: fc.record({ id, text: trickyText, sources: fc.array(fc.webUrl(), { maxLength: 2 }), queryId: id }, { requiredKeys: ['id', 'text', 'sources'] }),
      supersedes: fc.array(id, { maxLength: 2 }),
    },
    { requiredKeys: ['fact'] },
  ),
  recall: fc.record({
    findings: fc.array(
      fc.record({ text: trickyText, url: fc.webUrl(), title: trickyText, question: trickyText }, { requiredKeys: ['text', 'url', 'question'] }),
      {
        maxLength: 3,
      },
    ),
  }),
  'knowledge-update': fc.record({ knowledge: trickyText, iteration: fc.nat({ max: 10 }) }),
  'llm-call': fc.record(
    { role: trickyText, model: trickyText, latencyMs: count, inputTokens: count, outputTokens: count },
    { requiredKeys: ['role', 'latencyMs', 'inputTokens', 'outputTokens'] },
  ),
  cost: fc.record({ delta: cost, total: cost }),
  'reasoning-token': fc.record({ role: trickyText, text: trickyText }),
  'tool-call': fc.record({ callId: id, name: trickyText, args: fc.dictionary(trickyText, fc.oneof(trickyText, fc.nat()), { maxKeys: 3 }) }),
  'tool-result': fc.record({ callId: id, ok: fc.boolean(), summary: trickyText, chars: count }),
  'answer-token': fc.record({ text: trickyText, section: fc.nat({ max: 9 }) }, { requiredKeys: ['text'] }),
  outline: fc.record({
    outline: fc.record({
      title: trickyText,
      sections: fc.array(fc.record({ title: trickyText, goal: trickyText, questions: fc.array(trickyText, { maxLength: 2 }) }), { maxLength: 3 }),
    }),
  }),
  'section-start': fc.record({ index: fc.nat({ max: 9 }), title: trickyText }),
  'section-end': fc.record({ index: fc.nat({ max: 9 }) }),
  answer: fc.record(
    {
      text: trickyText,
      citations: fc.array(fc.record({ index: fc.nat({ max: 20 }), url: fc.webUrl(), title: trickyText }, { requiredKeys: ['index', 'url'] }), {
        maxLength: 3,
      }),
      confidence: money,
    },
    { requiredKeys: ['text', 'citations'] },
  ),
  claim: fc.record(
    {
      index: fc.nat({ max: 50 }),
      text: trickyText,
      citations: fc.array(fc.nat({ max: 20 }), { maxLength: 3 }),
      verdict: fc.constantFrom('supported', 'partial', 'unsupported', 'uncited', 'unverifiable'),
      evidence: trickyText,
      score: money,
    },
    { requiredKeys: ['index', 'text', 'citations', 'verdict', 'score'] },
  ),
  warning: fc.record({ message: trickyText, code: trickyText }),
  'run-end': fc.record(
    {
      reason: fc.constantFrom('answered', 'max-iterations', 'aborted', 'error'),
      answer: trickyText,
      cost,
      error: fc.record({ message: trickyText, code: trickyText }),
    },
    { requiredKeys: ['reason', 'cost'] },
  ),
}

type Unstamped = { [T in EventType]: { type: T } & Payload<T> }[EventType]

const middleEvent: fc.Arbitrary<Unstamped> = fc.oneof(
  ...(Object.keys(payloads) as EventType[])
    .filter((type) => type !== 'run-start' && type !== 'run-end')
    .map((type) => payloads[type].map((payload) => ({ type, ...payload }) as Unstamped)),
)

/** Stamp events as a run would: one runId, seq 0, 1, 2, ... and non-decreasing times. */
export function stamp(events: readonly Unstamped[], runId = 'run-1', startTime = 1_700_000_000_000): ResearchEvent[] {
  return events.map((event, seq) => ({ ...event, runId, seq, time: startTime + seq * 7 }) as ResearchEvent)
}

/** A whole run: `run-start`, any events, `run-end`, stamped. */
export const researchRun: fc.Arbitrary<ResearchEvent[]> = fc
  .tuple(payloads['run-start'], fc.array(middleEvent, { maxLength: 25 }), payloads['run-end'], fc.string({ minLength: 1, maxLength: 12 }))
  .map(([start, middle, end, runId]) => stamp([{ type: 'run-start', ...start }, ...middle, { type: 'run-end', ...end }], runId))

/** Any events at all, stamped but with no run-start/run-end framing. */
export const eventSequence: fc.Arbitrary<ResearchEvent[]> = fc.array(middleEvent, { maxLength: 25 }).map((events) => stamp(events))

/** Cut text, as bytes, at arbitrary points (also inside multi-byte UTF-8 sequences). */
export function chunkBytes(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    if (point > from) chunks.push(bytes.slice(from, point))
    from = Math.max(from, point)
  }
  return chunks
}

export const cuts: fc.Arbitrary<number[]> = fc.array(fc.nat(), { maxLength: 40 })
