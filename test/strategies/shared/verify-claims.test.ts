import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type LLMRequest, type ResearchEvent, type ResearchOptions, type AgentOptions } from '../../../src/index.js'
import { citedAnswer, type CitedSource, type StrategyContext } from '../../../src/strategy.js'
import { assertEventInvariants, scriptedLLM } from '../../../src/testing/index.js'

type Script = Parameters<typeof scriptedLLM>[0]['replies']

/** The documented limits of claim verification: sentences a judge call reads (docs/prompts.md), sentences of an answer judged (docs/strategies.md). */
const JUDGE_BATCH = 4
const MAX_JUDGED = 24

type VerifyMode = NonNullable<AgentOptions['verify']>

// Real text: the first page of the Bitcoin paper (test/fixtures/documents/pdf/issue13201.pdf).
const BITCOIN =
  'A purely peer-to-peer version of electronic cash would allow online payments to be sent directly from one party to another ' +
  'without going through a financial institution. Digital signatures provide part of the solution, but the main benefits are lost ' +
  'if a trusted third party is still required to prevent double-spending. We propose a solution to the double-spending problem ' +
  'using a peer-to-peer network. The longest chain not only serves as proof of the sequence of events witnessed, but proof that it ' +
  'came from the largest pool of CPU power.'
const SOURCES: CitedSource[] = [
  { url: 'https://bitcoin.example/paper.pdf', title: 'Bitcoin', text: BITCOIN },
  { url: 'https://other.example/', title: 'Other' },
]

const SUPPORTED = 'We propose a solution to the double-spending problem using a peer-to-peer network [1].'
const ALTERED = 'Digital signatures provide part of the solution, but the main benefits are lost if 3 trusted third parties are still required [1].'
const PARAPHRASE = 'Payments could go straight between two parties instead of through banks [1].'
const UNCITED = 'This design has attracted wide attention since then.'
const NO_TEXT = 'The other source says something else entirely [2].'
const ANSWER = [SUPPORTED, ALTERED, PARAPHRASE, UNCITED, NO_TEXT].join(' ')

/** A judge that gives `verdict` to every sentence of its prompt. */
const everyVerdict = (verdict: string) => (req: LLMRequest) => JSON.stringify({ verdicts: Array.from(req.prompt.matchAll(/^Sentence \d+: /gm), () => verdict) })

interface Setup {
  answer?: string
  judge?: Script
  revision?: string
  verify?: VerifyMode
  runVerify?: VerifyMode
  /** The run's limit (`Strategy.concurrency`). */
  concurrency?: number
  options?: ResearchOptions
}

function agentFor(setup: Setup) {
  const finalizer = scriptedLLM({ replies: [setup.answer ?? ANSWER, setup.revision ?? ''], cost: 0.01 })
  const verifier = scriptedLLM({ replies: setup.judge ?? everyVerdict('partial'), cost: 0.001 })
  const agent = createAgent({
    models: { finalizer, verifier },
    ...(setup.verify !== undefined ? { verify: setup.verify } : {}),
    strategy: {
      name: 'ending',
      ...(setup.concurrency ? { concurrency: setup.concurrency } : {}),
      async *run(_question, ctx: StrategyContext) {
        yield* citedAnswer(ctx, {
          from: { request: { prompt: 'answer' } },
          source: (n) => SOURCES[n - 1],
          empty: {},
        })
        return { reason: 'answered' }
      },
    },
  })
  return { agent, finalizer, verifier }
}

async function run(setup: Setup) {
  const { agent, finalizer, verifier } = agentFor(setup)
  const events: ResearchEvent[] = []
  const handle = agent.research('q', { ...setup.options, ...(setup.runVerify !== undefined ? { verify: setup.runVerify } : {}) })
  for await (const event of handle) events.push(event)
  return { events: assertEventInvariants(events), result: await handle.result, finalizer, verifier }
}

const claimsOf = (events: readonly ResearchEvent[]) => events.filter((e) => e.type === 'claim')
const warnings = (events: readonly ResearchEvent[]) => events.filter((e) => e.type === 'warning').map((e) => e.code)

describe('claim verification', () => {
  it('annotate: settles what the words settle, asks the judge the rest, and folds claims and supportRate into the result', async () => {
    const { events, result, verifier } = await run({ verify: 'annotate' })
    const verdicts = Object.fromEntries(claimsOf(events).map((c) => [c.text, c.verdict]))
    expect(verdicts).toEqual({
      [SUPPORTED]: 'supported',
      [ALTERED]: 'unsupported',
      [PARAPHRASE]: 'partial',
      [UNCITED]: 'uncited',
      [NO_TEXT]: 'unverifiable',
    })
    // Only the paraphrase needed the model: one call for five sentences.
    expect(verifier.calls).toHaveLength(1)
    expect(verifier.calls[0]?.prompt).toContain('Payments could go straight between two parties')
    expect(result.claims?.map((c) => c.index)).toEqual([0, 1, 2, 3, 4])
    expect(result.claims?.[1]).toMatchObject({ verdict: 'unsupported', citations: [1], evidence: expect.stringContaining('the number 3') })
    expect(result.supportRate).toBeCloseTo(1 / 4)
    // The judge's call is the run's: an llm-call of role verifier, and its dollars in the cost.
    expect(
      events
        .filter((e) => e.type === 'llm-call')
        .map((e) => e.role)
        .sort(),
    ).toEqual(['finalizer', 'verifier'])
    expect(result.cost.llm).toBeCloseTo(0.011)
    expect(result.cost.llmCalls).toBe(2)
    expect(result.answer).toBe(ANSWER)
    expect(result.draft).toBeUndefined()
  })

  it('streams a claim as soon as its sentence is complete, before the answer ends', async () => {
    const { events } = await run({ verify: true })
    const firstClaim = events.findIndex((e) => e.type === 'claim')
    const lastToken = events.findLastIndex((e) => e.type === 'answer-token')
    expect(firstClaim).toBeGreaterThan(-1)
    expect(firstClaim).toBeLessThan(lastToken)
  })

  it('is off by default, and a run’s own verify wins over the agent’s', async () => {
    const off = await run({})
    expect(claimsOf(off.events)).toEqual([])
    expect(off.verifier.calls).toHaveLength(0)
    expect(off.result.claims).toBeUndefined()
    const overridden = await run({ verify: 'annotate', runVerify: false })
    expect(claimsOf(overridden.events)).toEqual([])
    const onForTheRun = await run({ runVerify: 'annotate' })
    expect(claimsOf(onForTheRun.events)).toHaveLength(5)
  })

  it('refuses a verify value it does not know, when the agent or the run is made', () => {
    expect(() => agentFor({ verify: 'strict' as VerifyMode })).toThrow(/`verify` must be/)
    const { agent } = agentFor({})
    expect(() => agent.research('q', { verify: 'yes' as VerifyMode })).toThrow(/`verify` must be/)
  })

  it.each([
    ['throws', { text: '', error: new Error('judge backend down') }, 'verifier-failed'],
    ['replies garbage', 'I would rather talk about the weather', 'unparseable-output'],
  ] as const)('a judge that %s leaves the claim unverifiable with a warning, and the run answers', async (_what, reply, code) => {
    const { events, result } = await run({ verify: 'annotate', judge: [reply] })
    expect(claimsOf(events).find((c) => c.text === PARAPHRASE)).toMatchObject({ verdict: 'unverifiable' })
    expect(warnings(events)).toContain(code)
    expect(result.reason).toBe('answered')
    expect(result.answer).toBe(ANSWER)
  })

  it('judges at most MAX_JUDGED sentences of an answer: the rest are unverifiable, with one warning', async () => {
    const answer = Array.from({ length: MAX_JUDGED + 3 }, () => PARAPHRASE).join(' ')
    const { events, verifier } = await run({ verify: 'annotate', answer })
    expect(verifier.calls).toHaveLength(Math.ceil(MAX_JUDGED / JUDGE_BATCH))
    const claims = claimsOf(events)
    expect(claims.filter((c) => c.verdict === 'partial')).toHaveLength(MAX_JUDGED)
    expect(claims.filter((c) => c.verdict === 'unverifiable')).toHaveLength(3)
    expect(warnings(events).filter((code) => code === 'verifier-limit')).toHaveLength(1)
  })

  it('counts a judge call that failed after it streamed', async () => {
    const { result } = await run({ verify: 'annotate', judge: [{ text: '{"verdict": "sup', error: new Error('cut') }] })
    expect(result.cost.llmCalls).toBe(2)
  })

  it('revise: rewrites the answer once without its unsupported claims, streamed as a revised answer; the first stays as the draft', async () => {
    const revision = `${SUPPORTED} ${PARAPHRASE} Invented [7].`
    const { events, result, finalizer } = await run({ verify: 'revise', revision })
    expect(finalizer.calls).toHaveLength(2)
    expect(finalizer.calls[1]?.prompt).toContain(ALTERED)
    expect(finalizer.calls[1]?.prompt).not.toContain(`- ${SUPPORTED}`)
    const revised = events.filter((e) => e.type === 'answer-token' && e.revised)
    expect(revised.length).toBeGreaterThan(1)
    // A number the draft never cited is dropped from the rewrite.
    const expected = `${SUPPORTED} ${PARAPHRASE} Invented.`
    expect(events.find((e) => e.type === 'answer' && e.revised)).toMatchObject({ text: expected, citations: [{ index: 1 }] })
    expect(result.answer).toBe(expected)
    expect(result.draft).toBe(ANSWER)
    expect(result.claims).toHaveLength(5)
  })

  it('revise: no rewrite when nothing is unsupported', async () => {
    const { events, finalizer } = await run({ verify: 'revise', answer: `${SUPPORTED} ${PARAPHRASE}` })
    expect(finalizer.calls).toHaveLength(1)
    expect(events.some((e) => e.type === 'answer' && e.revised)).toBe(false)
  })

  it('revise: a rewrite that fails leaves the first answer, with a warning', async () => {
    const finalizer = scriptedLLM({ replies: [ANSWER, { text: 'We propose', error: new Error('down') }] })
    const failing = createAgent({
      models: { finalizer, verifier: scriptedLLM({ replies: () => 'partial' }) },
      verify: 'revise',
      strategy: {
        name: 'ending',
        async *run(_q, ctx) {
          yield* citedAnswer(ctx, { from: { request: { prompt: 'answer' } }, source: (n) => SOURCES[n - 1], empty: {} })
        },
      },
    })
    const events: ResearchEvent[] = []
    const handle = failing.research('q')
    for await (const event of handle) events.push(event)
    assertEventInvariants(events)
    expect(warnings(events)).toContain('revision-failed')
    const result = await handle.result
    expect(result.answer).toBe(ANSWER)
    expect(result.draft).toBeUndefined()
  })

  it('cancelling the run stops the judge’s calls: the one in flight is aborted, the queued ones never start', async () => {
    // Two batches' worth of sentences the words cannot settle: the first batch is sent while the
    // answer streams, the second waits behind it (one judge at a time).
    const paraphrases = Array.from({ length: 2 * JUDGE_BATCH }, (_, i) => `Payments could go straight between two parties, case ${i + 1} [1].`)
    const signals: AbortSignal[] = []
    const judge = (req: LLMRequest) => {
      signals.push(req.signal as AbortSignal)
      // Never answers: only the abort ends it.
      return new Promise<string>(() => undefined)
    }
    const { agent, verifier } = agentFor({ verify: 'annotate', answer: paraphrases.join(' '), judge, concurrency: 1 })
    const handle = agent.research('q')
    for await (const event of handle) {
      if (event.type === 'answer' && signals.length === 1) break
    }
    expect(verifier.calls).toHaveLength(1)
    expect(signals[0]?.aborted).toBe(true)
    expect((await handle.result).reason).toBe('aborted')
  })

  it('sends the sentences the words cannot settle to the judge a batch at a time, each verdict to its own claim', async () => {
    const paraphrases = Array.from({ length: JUDGE_BATCH + 2 }, (_, i) => `Payments could go straight between two parties, case ${i + 1} [1].`)
    // The judge calls every second sentence of its prompt unsupported.
    const judge = (req: LLMRequest) =>
      JSON.stringify({ verdicts: Array.from(req.prompt.matchAll(/^Sentence \d+: /gm), (_, i) => (i % 2 ? 'unsupported' : 'supported')) })
    const { events, verifier, result } = await run({ verify: 'annotate', answer: paraphrases.join(' '), judge })
    expect(verifier.calls).toHaveLength(2)
    expect(verifier.calls.map((call) => call.prompt.match(/^Sentence \d+: /gm)?.length)).toEqual([JUDGE_BATCH, 2])
    const verdicts = claimsOf(events)
      .sort((a, b) => a.index - b.index)
      .map((c) => c.verdict)
    expect(verdicts).toEqual(['supported', 'unsupported', 'supported', 'unsupported', 'supported', 'unsupported'])
    expect(result.claims?.map((c) => c.verdict)).toEqual(verdicts)
  })

  it('a batch reply that names fewer verdicts than sentences leaves the rest unverifiable, with a warning', async () => {
    const paraphrases = Array.from({ length: 3 }, (_, i) => `Payments could go straight between two parties, case ${i + 1} [1].`)
    const { events } = await run({ verify: 'annotate', answer: paraphrases.join(' '), judge: ['{"verdicts": ["supported"]}'] })
    expect(claimsOf(events).map((c) => c.verdict)).toEqual(['supported', 'unverifiable', 'unverifiable'])
    expect(warnings(events)).toContain('unparseable-output')
  })

  it('holds the event invariants whatever the answer and whatever the judge replies', async () => {
    const sentence = fc.constantFrom(
      SUPPORTED,
      ALTERED,
      PARAPHRASE,
      UNCITED,
      NO_TEXT,
      'Short [1].',
      '## Heading',
      'Invented [9].',
      '- A bullet that cites [1]\n',
      'e.g. 3.5% [1, 2].',
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(sentence, { maxLength: 6 }),
        fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('{"verdict":"supported"}', 'unsupported', 'partial')), { minLength: 1, maxLength: 4 }),
        fc.constantFrom<VerifyMode>('annotate', 'revise'),
        async (sentences, replies, verify) => {
          const { result, events } = await run({
            verify,
            answer: sentences.join(' '),
            judge: (_req, i) => replies[i % replies.length] as string,
            revision: 'Rewritten [1].',
          })
          expect(result.reason).toBe('answered')
          for (const claim of claimsOf(events)) expect(claim.citations.every((n) => n === 1 || n === 2)).toBe(true)
        },
      ),
      { numRuns: 40 },
    )
  })
})
