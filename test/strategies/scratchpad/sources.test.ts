import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SearchResult } from '../../../src/index.js'
import { KnowledgeSources } from '../../../src/strategies/scratchpad/sources.js'
import { citationNumbers } from '../../../src/strategies/shared/citations.js'

/** Results over a few hosts and paths, so URLs repeat (also as variants `normalizeUrl` makes equal). */
const result = fc
  .record({ host: fc.constantFrom('a', 'b', 'c'), path: fc.constantFrom('', 'x', 'y'), slash: fc.boolean(), snippet: fc.string({ maxLength: 400 }) })
  .map(
    ({ host, path, slash, snippet }): SearchResult => ({
      title: `T ${host}${path}`,
      url: `https://${host}.example/${path}${slash && path ? '/' : ''}`,
      snippet,
    }),
  )
const searches = fc.array(fc.array(result, { maxLength: 6 }), { maxLength: 5 })

describe('KnowledgeSources', () => {
  it('numbers the results as the synthesizer is shown them and as they are added: a URL keeps its first number', () => {
    fc.assert(
      fc.property(searches, (batches) => {
        const sources = new KnowledgeSources()
        for (const batch of batches) {
          const shown = sources.numbersFor(batch)
          expect(sources.add(batch)).toEqual(shown)
        }
        const list = sources.list()
        expect(list.map((s) => s.url)).toEqual([...new Set(list.map((s) => s.url))])
        // A checkpoint's list numbers them the same.
        const restored = new KnowledgeSources(list)
        for (const batch of batches) expect(restored.numbersFor(batch)).toEqual(sources.numbersFor(batch))
      }),
    )
  })

  it("keeps a source's snippets bounded, and shows the finalizer the sources the notes cite within its budget", () => {
    fc.assert(
      fc.property(searches, fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 8 }), (batches, cited) => {
        const sources = new KnowledgeSources()
        for (const batch of batches) sources.add(batch)
        for (const source of sources.list()) expect(source.text?.length ?? 0).toBeLessThanOrEqual(600)
        const notes = cited.map((n) => `Fact ${n} [${n}].`).join(' ')
        const shown = sources.shownWith(notes)
        const known = citationNumbers(notes).filter((n) => sources.has(n))
        // The sources the notes cite; when they cite none, the sources read, first first.
        if (known.length) for (const s of shown) expect(known).toContain(s.n)
        else expect(shown.map((s) => s.n)).toEqual(shown.map((_, i) => i + 1))
        if (sources.list().length) expect(shown.length).toBeGreaterThan(0)
        // Shown in number order, each under its own number.
        expect(shown.map((s) => s.n)).toEqual([...shown.map((s) => s.n)].sort((a, b) => a - b))
        for (const s of shown) expect(s.url).toBe(sources.list()[s.n - 1]!.url)
        // The notes written for readers outside the run name no number, only URLs.
        expect(citationNumbers(sources.withUrls(notes))).toEqual([])
      }),
    )
  })

  it("adopts an earlier turn's knowledge: its source URLs become this run's numbered sources, and write back as they were", () => {
    fc.assert(
      fc.property(searches, fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 8 }), (batches, cited) => {
        const earlier = new KnowledgeSources()
        for (const batch of batches) earlier.add(batch)
        const outside = earlier.withUrls(cited.map((n) => `Fact ${n} [${n}].`).join(' '))
        const next = new KnowledgeSources()
        const notes = next.adopt(outside, () => undefined)
        expect(notes).not.toMatch(/https?:/)
        expect(next.withUrls(notes)).toBe(outside)
        // Each adopted source's evidence is the sentence that named it (without its URLs).
        const said = outside.replace(/ \([^)]*\)/g, '')
        for (const source of next.list()) expect(said).toContain(source.text!.split('\n')[0]!)
      }),
    )
  })
})
