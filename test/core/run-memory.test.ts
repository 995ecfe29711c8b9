import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type EventOf, type MemoryStore } from '../../src/index.js'
import { normalizeText, normalizeUrl, type Strategy, type StrategyEvent } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'

type MemoryEntry = Parameters<MemoryStore['remember']>[0]

const finding = fc.record(
  {
    text: fc.oneof(fc.constantFrom('Paris is in France.', 'paris is in FRANCE', 'Lyon.', ''), fc.string({ maxLength: 300 })),
    url: fc.constantFrom('https://a.example/', 'https://a.example', 'https://b.example/x', ''),
    title: fc.string({ maxLength: 10 }),
    question: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['text', 'url'] },
)
const anything = fc.oneof(finding, fc.anything())

/** A run that does nothing but end. */
const quiet: Strategy = {
  name: 'quiet',
  async *run() {
    yield { type: 'answer', text: 'Done.', citations: [] }
  },
}

/** The findings a run recalls when its memory store's recall gives `found`: what the run and its strategy are given. */
async function recalled(found: unknown, recall: number, recallChars: number): Promise<EventOf<'recall'>['findings']> {
  const store: MemoryStore = { recall: async () => found as never, remember: async () => {} }
  const run = createAgent({ llm: scriptedLLM({ replies: [] }), strategy: quiet, memory: { store, recall, recallChars, writePolicy: false } }).research('q?')
  let findings: EventOf<'recall'>['findings'] | undefined
  for await (const event of run) {
    if (event.type === 'recall') findings = event.findings
    if (event.type === 'warning' && event.code === 'recall-failed') throw new Error(event.message)
  }
  return findings ?? []
}

/** What a run that yields `events` writes to long-term memory: the facts of its entry, or undefined when it writes none. */
async function remembered(events: StrategyEvent[]): Promise<MemoryEntry['facts'] | undefined> {
  const written: MemoryEntry[] = []
  const store: MemoryStore = { recall: async () => [], remember: async (entry) => void written.push(entry) }
  const strategy: Strategy = {
    name: 'scripted',
    async *run() {
      yield* events
    },
  }
  const agent = createAgent({ llm: scriptedLLM({ replies: [] }), strategy, memory: { store, recall: 0, writePolicy: { minAnswerChars: 0, minFindings: 1 } } })
  const result = await agent.research('q?').result
  expect(result.reason).toBe('answered')
  // The write starts once the run's end has reached its reader, in a later turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve))
  expect(written.length).toBeLessThanOrEqual(1)
  return written[0]?.facts
}

describe("the findings a run recalls from its memory store's reply", () => {
  it('never gives more than the limit, nor more characters than allowed, nor the same fact twice, and never throws', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anything, { maxLength: 30 }), fc.nat({ max: 8 }), fc.integer({ min: 200, max: 1000 }), async (found, limit, chars) => {
        const kept = await recalled(found, limit, chars)
        expect(kept.length).toBeLessThanOrEqual(limit)
        expect(kept.reduce((sum, f) => sum + f.text.length, 0)).toBeLessThanOrEqual(chars)
        const keys = kept.map((f) => `${normalizeText(f.text)}\n${normalizeUrl(f.url)}`)
        expect(new Set(keys).size).toBe(keys.length)
        for (const f of kept) expect(f.text.trim() && f.url.trim()).toBeTruthy()
      }),
    )
  })

  it('reads anything a store returns without throwing', async () => {
    expect(await recalled(undefined, 5, 500)).toEqual([])
    expect(await recalled('text', 5, 500)).toEqual([])
    expect(await recalled([null, 3, { text: 1, url: 'x' }], 5, 500)).toEqual([])
  })
})

describe('the findings a finished run leaves in memory', () => {
  const citations = [
    { index: 1, url: 'https://a.example/', title: 'A' },
    { index: 2, url: 'https://b.example/' },
  ]

  it("keeps a run's facts, one per source, titled from its citations", async () => {
    const facts = [
      { id: 'f1', text: 'Paris is the capital.', sources: ['https://a.example/', 'https://b.example/'] },
      { id: 'f2', text: 'Unsourced.', sources: [] },
    ]
    const events: StrategyEvent[] = [...facts.map((fact) => ({ type: 'fact' as const, fact })), { type: 'answer', text: 'ignored [1].', citations }]
    expect(await remembered(events)).toEqual([
      { text: 'Paris is the capital.', url: 'https://a.example/', title: 'A' },
      { text: 'Paris is the capital.', url: 'https://b.example/' },
    ])
  })

  it("takes a factless run's cited sentences, without markers, bullets or uncited sentences", async () => {
    const answer = '## Paris\n- Paris is the capital [1]. It is large [1, 2]. Nobody knows why.\nInvented [9].'
    expect(await remembered([{ type: 'answer', text: answer, citations }])).toEqual([
      { text: 'Paris is the capital.', url: 'https://a.example/', title: 'A' },
      { text: 'It is large.', url: 'https://a.example/', title: 'A' },
      { text: 'It is large.', url: 'https://b.example/' },
    ])
    // Nothing cited, nothing found: nothing written.
    expect(await remembered([{ type: 'answer', text: 'Nobody knows why.', citations }])).toBeUndefined()
  })
})
