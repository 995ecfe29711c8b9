import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalizeText, normalizeUrl } from '../../../src/strategy.js'
import { Notebook } from '../../../src/strategy.js'

/** What adding a fact to a notebook did. */
type AddOutcome = ReturnType<Notebook['add']>

/** Facts from a small vocabulary, so equal, contained and overlapping texts are common. */
const WORDS = ['the', '2024', 'Nobel', 'prize', 'went', 'to', 'Baker', 'in', 'Chemistry', 'x']
const text = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 })
  .chain((words) => fc.tuple(fc.constant(words), fc.constantFrom(' ', '  ', ', ', '! '), fc.boolean()))
  .map(([words, sep, upper]) => {
    const t = words.join(sep)
    return upper ? t.toUpperCase() : t
  })
const source = fc.constantFrom('https://a.example/1', 'https://www.a.example/1/', 'https://b.example/2', 'https://c.example/3')
const fact = fc.record({
  text: fc.oneof({ weight: 9, arbitrary: text }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }),
  sources: fc.array(source, { maxLength: 2 }),
})
const facts = fc.array(fact, { maxLength: 30 })

const key = (t: string) => normalizeText(t)
const contains = (outer: string, inner: string) => ` ${key(outer)} `.includes(` ${key(inner)} `)

/**
 * The notebook's rules written the slow, obvious way: a list of stored facts scanned whole. A
 * fact equal to or inside a stored one (whole words, normalised) is a duplicate whose sources
 * join it; otherwise it is stored, replacing every stored fact it contains and taking their
 * sources. Where several stored facts cover a text the notebook may pick any of them, so the
 * model checks the pick is one of them and follows it.
 */
class ReferenceNotebook {
  readonly stored: { id: string; text: string; key: string; sources: Set<string> }[] = []
  private ids = 0

  add(text: string, sources: readonly string[], outcome: AddOutcome): void {
    const k = key(text)
    if (!k) {
      expect(outcome).toEqual({ kind: 'empty' })
      return
    }
    const urls = sources.map(normalizeUrl)
    const covering = this.stored.filter((s) => ` ${s.key} `.includes(` ${k} `))
    if (covering.length > 0) {
      expect(outcome.kind).toBe('duplicate')
      if (outcome.kind !== 'duplicate') return
      const chosen = covering.find((s) => s.id === outcome.fact.id)
      expect(chosen, `"${text}" went to ${outcome.fact.id}, not a fact covering it`).toBeDefined()
      if (!chosen) return
      expect(outcome.sourcesAdded).toBe(urls.some((u) => !chosen.sources.has(u)))
      for (const u of urls) chosen.sources.add(u)
      return
    }
    const contained = this.stored.filter((s) => ` ${k} `.includes(` ${s.key} `))
    const id = `f${++this.ids}`
    expect(outcome.kind).toBe('added')
    if (outcome.kind !== 'added') return
    expect(outcome.fact.id).toBe(id)
    expect([...outcome.supersedes].sort()).toEqual(contained.map((s) => s.id).sort())
    const merged = new Set([...urls, ...contained.flatMap((s) => [...s.sources])])
    for (const s of contained) this.stored.splice(this.stored.indexOf(s), 1)
    this.stored.push({ id, text: text.trim(), key: k, sources: merged })
  }
}

/** A chain A ⊂ B ⊂ C (whole words, each spelled its own way), added in order, then A again. */
const spelled = (words: readonly string[]) =>
  fc.tuple(fc.constantFrom(' ', '  ', ', ', '! '), fc.boolean()).map(([sep, upper]) => {
    const t = words.join(sep)
    return upper ? t.toUpperCase() : t
  })
const withSources = (t: fc.Arbitrary<string>) => fc.record({ text: t, sources: fc.array(source, { maxLength: 2 }) })
const chainWords = fc.array(fc.constantFrom(...WORDS), { maxLength: 2 })
const supersedeChain = fc
  .tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 2 }), chainWords, chainWords, chainWords, chainWords)
  .chain(([a, before, after, outerBefore, outerAfter]) => {
    const b = [...before, ...a, ...after]
    const c = [...outerBefore, ...b, ...outerAfter]
    return fc.tuple(withSources(spelled(a)), withSources(spelled(b)), withSources(spelled(c)), withSources(spelled(a)))
  })
const chainedFacts = fc
  .array(
    fc.oneof(
      fact.map((f) => [f]),
      supersedeChain,
    ),
    { maxLength: 10 },
  )
  .map((groups) => groups.flat())

function fill(list: readonly { text: string; sources: string[] }[]): Notebook {
  const notebook = new Notebook()
  for (const f of list) notebook.add(f.text, f.sources)
  return notebook
}

describe('Notebook', () => {
  it('shows prompts the view of its facts as they stand after every add, however it was read before', () => {
    fc.assert(
      fc.property(facts, fc.array(fc.boolean(), { maxLength: 30 }), (list, reads) => {
        const notebook = new Notebook()
        for (const [i, f] of list.entries()) {
          if (reads[i]) notebook.view()
          notebook.add(f.text.repeat(1 + (i % 40)), f.sources)
          // The view of a notebook never read before, holding the same facts: computed afresh.
          const fresh = fill(notebook.facts())
          expect(fresh.facts().map((fact) => fact.text)).toEqual(notebook.facts().map((fact) => fact.text))
          expect(notebook.view()).toEqual(fresh.view())
        }
      }),
    )
  })

  it('is idempotent: adding the same facts again changes nothing', () => {
    fc.assert(
      fc.property(facts, (list) => {
        const notebook = fill(list)
        const before = notebook.facts()
        for (const f of list) expect(notebook.add(f.text, f.sources).kind).not.toBe('added')
        expect(notebook.facts()).toEqual(before)
      }),
    )
  })

  it('never stores a fact whose normalised text contains another stored one', () => {
    fc.assert(
      fc.property(facts, (list) => {
        const stored = fill(list).facts()
        for (const a of stored) for (const b of stored) if (a !== b) expect(contains(a.text, b.text)).toBe(false)
      }),
    )
  })

  it('covers every fact ever added, and keeps each of its sources on a covering fact', () => {
    fc.assert(
      fc.property(facts, (list) => {
        const stored = fill(list).facts()
        for (const f of list) {
          if (!key(f.text)) continue
          const covering = stored.filter((s) => contains(s.text, f.text))
          expect(covering.length).toBeGreaterThan(0)
          const keys = covering.map((s) => new Set(s.sources.map(normalizeUrl)))
          // One covering fact holds every source of this fact.
          expect(keys.some((k) => f.sources.every((src) => k.has(normalizeUrl(src))))).toBe(true)
        }
      }),
    )
  })

  it('stores the same texts whatever the insertion order', () => {
    fc.assert(
      fc.property(
        facts.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }))),
        ([list, shuffled]) => {
          const a = fill(list)
            .facts()
            .map((f) => key(f.text))
            .sort()
          const b = fill(shuffled)
            .facts()
            .map((f) => key(f.text))
            .sort()
          expect(b).toEqual(a)
        },
      ),
    )
  })

  it('agrees with a naive reference at every step, through supersede chains A ⊂ B ⊂ C then A again', () => {
    fc.assert(
      fc.property(chainedFacts, (list) => {
        const notebook = new Notebook()
        const reference = new ReferenceNotebook()
        for (const f of list) {
          reference.add(f.text, f.sources, notebook.add(f.text, f.sources))
          const actual = notebook.facts().map((s) => ({ id: s.id, text: s.text, sources: s.sources.map(normalizeUrl).sort() }))
          const expected = reference.stored.map((s) => ({ id: s.id, text: s.text, sources: [...s.sources].sort() }))
          expect(actual).toEqual(expected)
        }
      }),
    )
  })

  it('reports what happened: added, duplicate (merging sources), superseding', () => {
    const notebook = new Notebook()
    const first = notebook.add('2024', ['https://a.example/1'], 'q1')
    expect(first).toEqual({ kind: 'added', fact: { id: 'f1', text: '2024', sources: ['https://a.example/1'], queryId: 'q1' }, supersedes: [] })
    const longer = notebook.add('The 2024 Nobel Prize went to Baker.', ['https://b.example/2'], 'q2')
    expect(longer).toEqual({
      kind: 'added',
      fact: { id: 'f2', text: 'The 2024 Nobel Prize went to Baker.', sources: ['https://b.example/2', 'https://a.example/1'], queryId: 'q2' },
      supersedes: ['f1'],
    })
    expect(notebook.add('nobel PRIZE went', ['https://www.b.example/2/'])).toMatchObject({ kind: 'duplicate', sourcesAdded: false, fact: { id: 'f2' } })
    expect(notebook.add('Nobel prize', ['https://c.example/3'])).toMatchObject({
      kind: 'duplicate',
      sourcesAdded: true,
      fact: { id: 'f2', sources: ['https://b.example/2', 'https://a.example/1', 'https://c.example/3'] },
    })
    expect(notebook.add('?!', [])).toEqual({ kind: 'empty' })
    // Containment is by whole words: "2024" does not contain "202".
    expect(notebook.add('202').kind).toBe('added')
    expect(notebook.size).toBe(2)
  })
})
