/**
 * Claim verification's checks, met through react runs with `verify`: the model reads the cited
 * pages, then answers; each sentence's `claim` event says what the words settled, and what they
 * left to the judge (the `verifier` role, which says `partial` unless told otherwise) is what the
 * judge was asked. The sentence splitter's own properties (its scan bound, any chunking) are
 * checked on it directly: a run shows them only through timing.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type EventOf, type LLMRequest, type ResearchEvent } from '../../../src/index.js'
import { OPEN_TAIL, sentenceStream, splitSentences } from '../../../src/strategies/shared/sentences.js'
import { assertEventInvariants, mockFetch, scriptedLLM } from '../../../src/testing/index.js'
import { roleOf } from '../../support/roles.js'

// Real text: the first page of the Bitcoin paper (test/fixtures/documents/pdf/issue13201.pdf).
const SOURCE =
  'A purely peer-to-peer version of electronic cash would allow online payments to be sent directly from one party to another ' +
  'without going through a financial institution. Digital signatures provide part of the solution, but the main benefits are lost ' +
  'if a trusted third party is still required to prevent double-spending. We propose a solution to the double-spending problem ' +
  'using a peer-to-peer network. The network timestamps transactions by hashing them into an ongoing chain of hash-based ' +
  'proof-of-work, forming a record that cannot be changed without redoing the proof-of-work. Messages are broadcast on a best ' +
  'effort basis, and nodes can leave and rejoin the network at will. The paper was written by Satoshi Nakamoto in 2008.'

/** The sentences a judge request asks about, as the judge was shown them. */
const asked = (req: LLMRequest) => [...req.prompt.matchAll(/^Sentence \d+: (.*)$/gm)].map((m) => m[1]!)

/**
 * A react run that reads `pages` (source [1], [2], … in order), then answers `answer`, verified;
 * the judge replies `judge` (else `partial` to every sentence). Its claims, and the judge's requests.
 */
async function verified(answer: string, pages: readonly string[], judge?: (req: LLMRequest) => string) {
  const url = (i: number) => `https://page${i + 1}.example/`
  const llm = scriptedLLM({
    replies: (req, n) => {
      if (roleOf(req.system) === 'claim judge') return judge?.(req) ?? JSON.stringify({ verdicts: asked(req).map(() => 'partial') })
      const read = (req.turns ?? []).filter((t) => t.role === 'tool').length
      return read < pages.length ? { text: '', toolCalls: [{ id: `c${n}`, name: 'read_page', args: { url: url(read) } }] } : answer
    },
  })
  const fetch = mockFetch({ pages: Object.fromEntries(pages.map((text, i) => [url(i), { title: `Page ${i + 1}`, text }])) })
  const agent = createAgent({ llm, fetch, strategy: 'react', verify: 'annotate', react: { finalAnswer: () => true, maxSteps: pages.length + 2 } })
  const events: ResearchEvent[] = []
  for await (const event of agent.research('What does the source say?')) events.push(event)
  assertEventInvariants(events)
  expect(events.at(-1)).toMatchObject({ type: 'run-end' })
  expect((events.at(-1) as { reason: string }).reason).not.toBe('error')
  const claims = events.filter((e): e is EventOf<'claim'> => e.type === 'claim')
  const judged = llm.calls.filter((req) => roleOf(req.system) === 'claim judge')
  return { claims: claims.sort((a, b) => a.index - b.index), judged }
}

/**
 * What the words made of `claim` (one sentence, citing [1]) against `sources`: its verdict, or
 * undefined when they left it to the judge (which was then asked about it); its score and evidence.
 */
async function wordsOn(claim: string, sources: readonly string[] = [SOURCE]) {
  const { claims, judged } = await verified(claim, sources)
  expect(claims).toHaveLength(1)
  const [found] = claims
  const toJudge = judged.flatMap(asked).length > 0
  // Left to the judge, the verdict is the judge's; settled, no judge was asked.
  if (toJudge) expect(found!.verdict).toBe('partial')
  return { verdict: toJudge ? undefined : found!.verdict, score: found!.score, evidence: found!.evidence }
}
const check = (claim: string) => wordsOn(claim)

describe('lexicalSupport', () => {
  it('supports a sentence the source holds, cited and reworded a little', async () => {
    expect((await check('We propose a solution to the double-spending problem using a peer-to-peer network [1].'))?.verdict).toBe('supported')
    expect(await check('Nodes can leave and rejoin the network at will [1].')).toMatchObject({ verdict: 'supported', score: 1 })
  })

  it('flags a changed number, a changed name and a flipped negation', async () => {
    expect(await check('The paper was written by Satoshi Nakamoto in 2009 [1].')).toMatchObject({ verdict: 'unsupported' })
    expect(await check('The paper was written by Hal Finney in 2008 [1].')).toMatchObject({ verdict: 'unsupported' })
    expect(await check('Digital signatures do not provide part of the solution [1].')).toMatchObject({ verdict: 'unsupported' })
    expect(
      await check(
        'The network timestamps transactions by hashing them into an ongoing chain of hash-based proof-of-work, forming a record that can be changed by redoing the proof-of-work [1].',
      ),
    ).toMatchObject({
      verdict: 'unsupported',
    })
  })

  it('leaves a reworded sentence with a name the passage lacks to the judge: only close wording settles a mismatch', async () => {
    // A paraphrase: "Bitcoin" is not in the passage, and the rest is worded loosely too.
    expect((await check('In 2008 the Bitcoin paper appeared under the name of Nakamoto [1].'))?.verdict).toBeUndefined()
    // The source's sentence with its name changed: the rest is the source's, so no judge is asked.
    expect((await check('The paper was written by Hal Finney in 2008 [1].'))?.verdict).toBe('unsupported')
  })

  it('calls a sentence the source says nothing of unsupported, and leaves a loose paraphrase to the judge', async () => {
    expect((await check('Ethereum runs smart contracts on a virtual machine [1].'))?.verdict).toBe('unsupported')
    expect((await check('Electronic payments between parties usually need banks as intermediaries [1].'))?.verdict).toBeUndefined()
  })

  it('checks a sentence citing two sources against both: each may hold part of it', async () => {
    const baker = 'David Baker was honoured for computational protein design.'
    const alphafold = 'Demis Hassabis and John Jumper were honoured for protein structure prediction with AlphaFold.'
    const claim = 'Baker was honoured for computational protein design [1], and Hassabis and Jumper for predicting protein structures with AlphaFold [2].'
    expect((await wordsOn(claim.replace(' [2]', ' [1]'), [baker]))?.verdict).not.toBe('supported')
    const both = await wordsOn(claim, [baker, alphafold])
    expect(both?.verdict).toBe('supported')
    expect(both?.evidence).toContain('Baker')
    expect(both?.evidence).toContain('AlphaFold')
  })

  it('looks for a negation where the claim stands in the source, not in what the source goes on to say', async () => {
    // "capability" is a term of the claim too (capable): the "not" right after it is the source's next thought.
    const source = 'The return shows that the systems are capable of supporting missions beyond low Earth orbit, a capability not seen since Apollo.'
    expect((await wordsOn('The return shows that the systems are capable of supporting missions beyond low Earth orbit [1].', [source]))?.verdict).toBe(
      'supported',
    )
    expect((await wordsOn('The return shows that the systems are not capable of supporting missions beyond low Earth orbit [1].', [source]))?.verdict).toBe(
      'unsupported',
    )
  })

  it('reports the passage it matched as evidence', async () => {
    expect((await check('Written by Satoshi Nakamoto in 2009 [1].'))?.evidence).toContain('Satoshi Nakamoto in 2008')
  })

  it('has nothing to say without source text or terms: no verdict of its own, and no judge either', async () => {
    // A cited source the model was shown nothing of: nothing to check against.
    const { claims, judged } = await verified('Anything at all [1].', [''])
    expect(claims.map((c) => c.verdict)).toEqual(['unverifiable'])
    expect(judged).toEqual([])
    // A sentence of nothing but its marker has no terms: the words settle nothing, and no judge is asked about it.
    const bare = await verified('[1].', [SOURCE])
    expect(bare.claims.map((c) => [c.text, c.verdict])).toEqual([['[1].', 'unverifiable']])
    expect(bare.judged).toEqual([])
  })

  it('never throws and scores within [0, 1] on any text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.string({ maxLength: 600 }), async (claim, source) => {
        const { claims } = await verified(`${claim} [1].`, [source])
        for (const found of claims) {
          expect(found.score).toBeGreaterThanOrEqual(0)
          expect(found.score).toBeLessThanOrEqual(1)
        }
      }),
    )
  })

  // Sentences of real words (the source above), each of its own words so no two hold the same
  // terms; one number each, a "not" on some, capitals on some (names).
  const VOCABULARY = [...new Set(SOURCE.toLowerCase().match(/[a-z]{4,}/g))]
  const sentenceOf = (words: readonly string[], capital: readonly boolean[], number: number, negated: boolean) => {
    const written = words.map((word, at) => (capital[at] ? word.charAt(0).toUpperCase() + word.slice(1) : word))
    if (negated) written.splice(1, 0, 'not')
    return `The ${written.slice(0, 2).join(' ')} ${number} ${written.slice(2).join(' ')}.`
  }
  const sourceSentences = fc
    .array(
      fc.record({
        capital: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        number: fc.integer({ min: 0, max: 99_999 }),
        negated: fc.boolean(),
      }),
      { minLength: 1, maxLength: 6 },
    )
    .map((specs) => specs.map((spec, i) => ({ ...spec, words: VOCABULARY.slice(i * 5, i * 5 + 5) })))
  const cite = (sentence: string) => sentence.replace(/\.$/, ' [1].')

  it('supports a claim that is a sentence of its source, whatever else the source says', async () => {
    await fc.assert(
      fc.asyncProperty(sourceSentences, fc.nat(), async (specs, pick) => {
        const sentences = specs.map((spec) => sentenceOf(spec.words, spec.capital, spec.number, spec.negated))
        const claim = sentences[pick % sentences.length] as string
        expect((await wordsOn(cite(claim), [sentences.join(' ')]))?.verdict).toBe('supported')
      }),
    )
  })

  it('flags that claim with its number changed, without a judge', async () => {
    await fc.assert(
      fc.asyncProperty(sourceSentences, fc.nat(), fc.integer({ min: 1, max: 9 }), async (specs, pick, step) => {
        const sentences = specs.map((spec) => sentenceOf(spec.words, spec.capital, spec.number, spec.negated))
        const spec = specs[pick % specs.length] as (typeof specs)[number]
        // A changed number that another sentence of the source gives is not a change the words can see.
        fc.pre(specs.every((other) => other.number !== spec.number + step))
        const changed = sentenceOf(spec.words, spec.capital, spec.number + step, spec.negated)
        expect((await wordsOn(cite(changed), [sentences.join(' ')]))?.verdict).toBe('unsupported')
      }),
    )
  })
})

describe('sentences', () => {
  it('streams a hostile reply in time linear in its length: runs of end marks or markers are not rescanned', () => {
    // Counted, not timed: the regular expression's scans cover each piece and a bounded tail only.
    for (const unit of ['.', '. [1]', '...!', '[1]', 'e.g. ']) {
      const text = unit.repeat(Math.ceil(20_000 / unit.length))
      const stream = sentenceStream()
      let scanned = 0
      const exec = RegExp.prototype.exec
      RegExp.prototype.exec = function (this: RegExp, input: string) {
        if (this.global) scanned += Math.max(0, input.length - this.lastIndex)
        return exec.call(this, input)
      }
      try {
        for (let i = 0; i < text.length; i += 4) stream.push(text.slice(i, i + 4))
        stream.flush()
      } finally {
        RegExp.prototype.exec = exec
      }
      expect(scanned, unit).toBeLessThan(text.length * (OPEN_TAIL + 8))
    }
  })

  it('ends a sentence after its citation markers, not at an abbreviation or a decimal', () => {
    expect(splitSentences('It rose 3.5% [1]. Dr. Smith, e.g. in Fig. 2, disagrees [2][3]. Next line\n- a bullet [4]')).toEqual([
      'It rose 3.5% [1].',
      'Dr. Smith, e.g. in Fig. 2, disagrees [2][3].',
      'Next line',
      '- a bullet [4]',
    ])
  })

  it('splits the same whatever the chunks (sentence ends shorter than OPEN_TAIL)', () => {
    fc.assert(
      fc.property(
        // At most 30 pieces of at most 7 characters: no run of end marks and markers reaches OPEN_TAIL.
        fc.array(fc.constantFrom('A claim', ' [1]', '.', ' ', 'Next', '\n', 'e.g.', ' 3.5', '!', '[2, 3]', '”'), { maxLength: 30 }),
        fc.array(fc.nat({ max: 6 }), { maxLength: 10 }),
        (parts, cuts) => {
          const text = parts.join('')
          const stream = sentenceStream()
          const got: string[] = []
          let at = 0
          for (const cut of cuts) {
            got.push(...stream.push(text.slice(at, at + cut)))
            at += cut
          }
          got.push(...stream.push(text.slice(at)), ...stream.flush())
          expect(got).toEqual(splitSentences(text))
        },
      ),
    )
  })
})

/** Paraphrases of the source the words leave to the judge, each its own sentence. */
const PARAPHRASES = [
  'Electronic payments between parties usually need banks as intermediaries [1].',
  'In 2008 the Bitcoin paper appeared under the name of Nakamoto [1].',
  'Payments could go straight between two parties instead of through banks [1].',
  'Electronic payments between parties usually need banks as intermediaries, case 4 [1].',
  'Electronic payments between parties usually need banks as intermediaries, case 5 [1].',
]

/** The verdicts of `count` paraphrases judged in one call whose reply is `reply`. */
async function judgedAs(reply: string, count: number) {
  const { claims, judged } = await verified(PARAPHRASES.slice(0, count).join(' '), [SOURCE], () => reply)
  expect(judged.map((req) => asked(req).length)).toEqual([count])
  // A sentence the judge gave no verdict for is unverifiable.
  return claims.map((c) => (c.verdict === 'unverifiable' ? undefined : c.verdict))
}

describe('the judge reply', () => {
  it.each([
    ['{"verdict": "supported"}', 'supported'],
    ['{"verdicts": ["partial"]}', 'partial'],
    ['```json\n{"verdicts": ["unsupported"]}\n```', 'unsupported'],
    ['Not supported: the source says 2008.', 'unsupported'],
    ['The claim is partially supported.', 'partial'],
    ['Yes.', 'supported'],
    ['no', 'unsupported'],
    ['I have no idea what you mean', undefined],
    ['{"verdict": "maybe"}', undefined],
    ['', undefined],
  ])('one sentence: %j → %s', async (reply, verdict) => {
    expect(await judgedAs(reply, 1)).toEqual([verdict])
  })

  it.each([
    ['{"verdicts": ["supported", "unsupported", "partial"]}', ['supported', 'unsupported', 'partial']],
    ['[{"verdict": "unsupported"}, {"verdict": "supported"}, "partially supported"]', ['unsupported', 'supported', 'partial']],
    ['{"verdicts": ["supported"]}', ['supported', undefined, undefined]],
    ['{"verdicts": ["supported", "maybe", "no"]}', ['supported', undefined, undefined]],
    ['1. supported\n2. not supported\n3. partial', ['supported', 'unsupported', 'partial']],
    ['{"verdict": "supported"}', ['supported', undefined, undefined]],
    ['yes', [undefined, undefined, undefined]],
  ])('three sentences: %j → %j', async (reply, verdicts) => {
    expect(await judgedAs(reply, 3)).toEqual(verdicts)
  })

  it('is total: any reply gives one verdict, or none, per sentence', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          fc.anything().map((v) => JSON.stringify(v) ?? ''),
        ),
        fc.integer({ min: 1, max: 4 }),
        async (reply, count) => {
          const verdicts = await judgedAs(reply, count)
          expect(verdicts).toHaveLength(count)
          for (const verdict of verdicts) expect([undefined, 'supported', 'partial', 'unsupported']).toContain(verdict)
        },
      ),
    )
  })
})

describe('the judge request', () => {
  it('numbers each sentence with its own source text, and asks for no more than a batch', async () => {
    // The documented batch (docs/prompts.md): 4 sentences a call.
    const batch = 4
    // Loose paraphrases of their sources: the words leave each to the judge.
    const pages = Array.from(
      { length: batch + 1 },
      (_, i) =>
        `Electronic cash would allow online payments in region ${i} to be sent directly from one party to another without going through a financial institution.`,
    )
    const claim = (i: number) => `Payments in region ${i} could go straight between two parties instead of through banks.`
    // Each cites its source mid-sentence: the judge is shown the sentence without its marker.
    const answer = pages.map((_, i) => claim(i).replace(` ${i} `, ` ${i} [${i + 1}] `)).join(' ')
    const { judged } = await verified(answer, pages)
    const [first] = judged
    expect(first!.prompt.match(/^Sentence \d+: /gm)).toHaveLength(batch)
    for (let i = 0; i < batch; i++) {
      expect(first!.prompt).toContain(`Sentence ${i + 1}: ${claim(i)}\nSource text ${i + 1}:\n"""\n${pages[i]}\n"""`)
    }
    expect(first!.prompt).not.toContain(claim(batch))
    // The fifth went to a call of its own.
    expect(judged.map((req) => asked(req).length)).toEqual([batch, 1])
  })
})
