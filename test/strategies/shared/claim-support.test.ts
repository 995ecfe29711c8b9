import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JUDGE_BATCH, judgeRequest, parseVerdicts } from '../../../src/strategies/shared/claim-judge.js'
import { lexicalSupport, prepareSource } from '../../../src/strategies/shared/claim-support.js'
import { OPEN_TAIL, sentenceStream, splitSentences } from '../../../src/strategies/shared/sentences.js'

// Real text: the first page of the Bitcoin paper (test/fixtures/documents/pdf/issue13201.pdf).
const SOURCE =
  'A purely peer-to-peer version of electronic cash would allow online payments to be sent directly from one party to another ' +
  'without going through a financial institution. Digital signatures provide part of the solution, but the main benefits are lost ' +
  'if a trusted third party is still required to prevent double-spending. We propose a solution to the double-spending problem ' +
  'using a peer-to-peer network. The network timestamps transactions by hashing them into an ongoing chain of hash-based ' +
  'proof-of-work, forming a record that cannot be changed without redoing the proof-of-work. Messages are broadcast on a best ' +
  'effort basis, and nodes can leave and rejoin the network at will. The paper was written by Satoshi Nakamoto in 2008.'

const check = (claim: string) => lexicalSupport(claim, [prepareSource(SOURCE)])

describe('lexicalSupport', () => {
  it('supports a sentence the source holds, cited and reworded a little', () => {
    expect(check('We propose a solution to the double-spending problem using a peer-to-peer network [1].')?.verdict).toBe('supported')
    expect(check('Nodes can leave and rejoin the network at will [1].')).toMatchObject({ verdict: 'supported', score: 1 })
  })

  it('flags a changed number, a changed name and a flipped negation', () => {
    expect(check('The paper was written by Satoshi Nakamoto in 2009 [1].')).toMatchObject({ verdict: 'unsupported' })
    expect(check('The paper was written by Hal Finney in 2008 [1].')).toMatchObject({ verdict: 'unsupported' })
    expect(check('Digital signatures do not provide part of the solution [1].')).toMatchObject({ verdict: 'unsupported' })
    expect(
      check(
        'The network timestamps transactions by hashing them into an ongoing chain of hash-based proof-of-work, forming a record that can be changed by redoing the proof-of-work [1].',
      ),
    ).toMatchObject({
      verdict: 'unsupported',
    })
  })

  it('leaves a reworded sentence with a name the passage lacks to the judge: only close wording settles a mismatch', () => {
    // A paraphrase: "Bitcoin" is not in the passage, and the rest is worded loosely too.
    expect(check('In 2008 the Bitcoin paper appeared under the name of Nakamoto [1].')?.verdict).toBeUndefined()
    // The source's sentence with its name changed: the rest is the source's, so no judge is asked.
    expect(check('The paper was written by Hal Finney in 2008 [1].')?.verdict).toBe('unsupported')
  })

  it('calls a sentence the source says nothing of unsupported, and leaves a loose paraphrase to the judge', () => {
    expect(check('Ethereum runs smart contracts on a virtual machine [1].')?.verdict).toBe('unsupported')
    expect(check('Electronic payments between parties usually need banks as intermediaries [1].')?.verdict).toBeUndefined()
  })

  it('checks a sentence citing two sources against both: each may hold part of it', () => {
    const baker = prepareSource('David Baker was honoured for computational protein design.')
    const alphafold = prepareSource('Demis Hassabis and John Jumper were honoured for protein structure prediction with AlphaFold.')
    const claim = 'Baker was honoured for computational protein design [1], and Hassabis and Jumper for predicting protein structures with AlphaFold [2].'
    expect(lexicalSupport(claim, [baker])?.verdict).not.toBe('supported')
    const both = lexicalSupport(claim, [baker, alphafold])
    expect(both?.verdict).toBe('supported')
    expect(both?.evidence).toContain('Baker')
    expect(both?.evidence).toContain('AlphaFold')
  })

  it('looks for a negation where the claim stands in the source, not in what the source goes on to say', () => {
    // "capability" is a term of the claim too (capable): the "not" right after it is the source's next thought.
    const source = prepareSource(
      'The return shows that the systems are capable of supporting missions beyond low Earth orbit, a capability not seen since Apollo.',
    )
    expect(lexicalSupport('The return shows that the systems are capable of supporting missions beyond low Earth orbit [1].', [source])?.verdict).toBe(
      'supported',
    )
    expect(lexicalSupport('The return shows that the systems are not capable of supporting missions beyond low Earth orbit [1].', [source])?.verdict).toBe(
      'unsupported',
    )
  })

  it('reports the passage it matched as evidence', () => {
    expect(check('Written by Satoshi Nakamoto in 2009 [1].')?.evidence).toContain('Satoshi Nakamoto in 2008')
  })

  it('has nothing to say without source text or terms', () => {
    expect(lexicalSupport('Anything at all [1].', [])).toBeUndefined()
    expect(lexicalSupport('[1].', [prepareSource(SOURCE)])).toBeUndefined()
  })

  it('never throws and scores within [0, 1] on any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 600 }), (claim, source) => {
        const found = lexicalSupport(claim, [prepareSource(source)])
        if (found) expect(found.score).toBeGreaterThanOrEqual(0)
        if (found) expect(found.score).toBeLessThanOrEqual(1)
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

  it('supports a claim that is a sentence of its source, whatever else the source says', () => {
    fc.assert(
      fc.property(sourceSentences, fc.nat(), (specs, pick) => {
        const sentences = specs.map((spec) => sentenceOf(spec.words, spec.capital, spec.number, spec.negated))
        const claim = sentences[pick % sentences.length] as string
        expect(lexicalSupport(cite(claim), [prepareSource(sentences.join(' '))])?.verdict).toBe('supported')
      }),
    )
  })

  it('flags that claim with its number changed, without a judge', () => {
    fc.assert(
      fc.property(sourceSentences, fc.nat(), fc.integer({ min: 1, max: 9 }), (specs, pick, step) => {
        const sentences = specs.map((spec) => sentenceOf(spec.words, spec.capital, spec.number, spec.negated))
        const spec = specs[pick % specs.length] as (typeof specs)[number]
        // A changed number that another sentence of the source gives is not a change the words can see.
        fc.pre(specs.every((other) => other.number !== spec.number + step))
        const changed = sentenceOf(spec.words, spec.capital, spec.number + step, spec.negated)
        expect(lexicalSupport(cite(changed), [prepareSource(sentences.join(' '))])?.verdict).toBe('unsupported')
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

describe('parseVerdicts', () => {
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
  ])('one sentence: %j → %s', (reply, verdict) => {
    expect(parseVerdicts(reply, 1)).toEqual([verdict])
  })

  it.each([
    ['{"verdicts": ["supported", "unsupported", "partial"]}', ['supported', 'unsupported', 'partial']],
    ['[{"verdict": "unsupported"}, {"verdict": "supported"}, "partially supported"]', ['unsupported', 'supported', 'partial']],
    ['{"verdicts": ["supported"]}', ['supported', undefined, undefined]],
    ['{"verdicts": ["supported", "maybe", "no"]}', ['supported', undefined, undefined]],
    ['1. supported\n2. not supported\n3. partial', ['supported', 'unsupported', 'partial']],
    ['{"verdict": "supported"}', ['supported', undefined, undefined]],
    ['yes', [undefined, undefined, undefined]],
  ])('three sentences: %j → %j', (reply, verdicts) => {
    expect(parseVerdicts(reply, 3)).toEqual(verdicts)
  })

  it('is total: any input gives one verdict or undefined per sentence', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.anything()), fc.integer({ min: -2, max: 8 }), (reply, count) => {
        const verdicts = parseVerdicts(reply, count)
        expect(verdicts).toHaveLength(Math.max(0, count))
        for (const verdict of verdicts) expect([undefined, 'supported', 'partial', 'unsupported']).toContain(verdict)
      }),
    )
  })
})

describe('judgeRequest', () => {
  it('numbers each sentence with its own source text, and asks for no more than a batch', () => {
    const items = Array.from({ length: JUDGE_BATCH + 1 }, (_, i) => ({ sentence: `Claim ${i}.`, source: `Source ${i} says so.` }))
    const { prompt } = judgeRequest(items)
    expect(prompt.match(/^Sentence \d+: /gm)).toHaveLength(JUDGE_BATCH)
    for (let i = 0; i < JUDGE_BATCH; i++) {
      expect(prompt).toContain(`Sentence ${i + 1}: Claim ${i}.\nSource text ${i + 1}:\n"""\nSource ${i} says so.\n"""`)
    }
    expect(prompt).not.toContain(`Claim ${JUDGE_BATCH}.`)
  })
})
