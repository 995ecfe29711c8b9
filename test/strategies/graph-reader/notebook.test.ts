import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalizeText, normalizeUrl } from '../../../src/core/index.js'
import { Notebook } from '../../../src/strategies/graph-reader/notebook.js'

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

function fill(list: readonly { text: string; sources: string[] }[]): Notebook {
  const notebook = new Notebook()
  for (const f of list) notebook.add(f.text, f.sources)
  return notebook
}

describe('Notebook', () => {
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
