// The graph-reader's prompts keep what stays the same across calls of a role first, so a
// provider's prompt cache can reuse it: a later prompt with more facts extends the earlier one's
// text up to the end of its facts, and the results (extraction) or the last search (node check),
// which change every call, come last.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../../../src/index.js'
import { graphReader } from '../../../src/strategy.js'
import { NOTEBOOK_VIEW_CHARS, notebookView } from '../../../src/strategies/graph-reader/notebook.js'
import { extractorPrompt, neighborPrompt, type NotebookView } from '../../../src/strategies/graph-reader/prompts.js'
import { mockSearch } from '../../../src/testing/index.js'
import { calls, graphModel, queryOf, result } from './helpers.js'

const commonPrefix = (a: string, b: string) => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
const line = fc.string({ minLength: 1, maxLength: 40 }).map((s) => s.replace(/\s+/g, ' ').trim() || 'x')
const facts = fc.array(line, { minLength: 1, maxLength: 8 })
const whole = (facts: readonly string[]): NotebookView => ({ head: facts, hidden: 0, tail: [] })
/** A fact of 1 to 300 characters (what exploration files), long ones often enough to fill the view. */
const fact = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.string({ minLength: 1, maxLength: 12 }))
  .map(([length, seed]) => `${seed.replace(/\s+/g, ' ')}.`.repeat(length).slice(0, length).trim() || 'x')
/** Where `lines`, listed as the prompt lists facts, end in `prompt` (searched from `from`). */
const endOf = (prompt: string, lines: readonly string[], from: number) => {
  const text = lines.map((f) => `- ${f}`).join('\n')
  const at = prompt.indexOf(text, from)
  if (from < 0 || at < 0) throw new Error(`the facts are not listed in the prompt:\n${prompt}`)
  return at + text.length
}

/** Every search listed. */
const listed = (recent: string[]) => ({ folded: 0, topics: [], recent })

describe('graph-reader prompts, cache-friendly order', () => {
  it('node checks: the earlier prompt up to its last fact is a prefix of a later one with more facts, whatever else changed', () => {
    fc.assert(
      fc.property(facts, facts, line, line, fc.array(line), fc.array(line), (older, newer, q1, q2, s1, s2) => {
        const base = { question: 'Q?', keyElements: ['a', 'b'], canSearchMore: true }
        const first = neighborPrompt({ ...base, notebook: whole(older), query: q1, searched: listed(s1) })
        const second = neighborPrompt({ ...base, notebook: whole([...older, ...newer]), query: q2, searched: listed([...s1, ...s2]) })
        expect(commonPrefix(first, second)).toBeGreaterThanOrEqual(endOf(first, older, first.indexOf('Notebook:')))
      }),
    )
  })

  it('extraction: the question, key elements and known facts come before the results, which alone differ', () => {
    fc.assert(
      fc.property(facts, facts, line, line, (head, tail, q1, q2) => {
        const base = { question: 'Q?', keyElements: ['a'], notebook: { head, hidden: 2, tail } }
        const first = extractorPrompt({ ...base, query: q1, sources: [{ title: q1, url: 'https://a.example/', snippet: q1 }] })
        const second = extractorPrompt({ ...base, query: q2, sources: [{ title: q2, url: 'https://b.example/', snippet: q2 }] })
        expect(commonPrefix(first, second)).toBeGreaterThanOrEqual(first.indexOf('Results for the search'))
        expect(first).toContain(`${head.map((f) => `- ${f}`).join('\n')}\n(2 facts not shown)\n${tail.map((f) => `- ${f}`).join('\n')}`)
      }),
    )
  })

  it('extraction: a later prompt with more facts repeats the earlier one up to its notebook, up to the head when the view moved', () => {
    fc.assert(
      fc.property(fc.array(fact, { maxLength: 60, size: 'max' }), fc.array(fact, { minLength: 1, maxLength: 6 }), line, line, (older, added, q1, q2) => {
        const before = notebookView(older.map((text) => ({ text })))
        const after = notebookView([...older, ...added].map((text) => ({ text })))
        const base = { question: 'Q?', keyElements: ['a'] }
        const first = extractorPrompt({ ...base, notebook: before, query: q1, sources: [{ title: q1, url: 'https://a.example/', snippet: q1 }] })
        const second = extractorPrompt({ ...base, notebook: after, query: q2, sources: [{ title: q2, url: 'https://b.example/', snippet: q2 }] })
        const notebookAt = first.indexOf('Already in the notebook')
        const resultsAt = first.indexOf('\n\nResults for the search')
        const shared = commonPrefix(first, second)
        if (older.length) expect(notebookAt).toBeLessThan(resultsAt)
        if (before.hidden === after.hidden) expect(shared).toBeGreaterThanOrEqual(resultsAt)
        // The view moved on: the head stays.
        else expect(shared).toBeGreaterThanOrEqual(endOf(first, after.head, notebookAt))
      }),
    )
  })

  it('the notebook view: within its size, newest fact always shown, the oldest kept at its head, every fact shown or counted as hidden', () => {
    fc.assert(
      fc.property(fc.array(fact, { minLength: 1, maxLength: 80, size: 'max' }), (texts) => {
        const view = notebookView(texts.map((text) => ({ text })))
        expect([...view.head, ...texts.slice(view.head.length, view.head.length + view.hidden), ...view.tail]).toEqual(texts)
        expect(view.tail.at(-1) ?? view.head.at(-1)).toBe(texts.at(-1))
        const chars = [...view.head, ...view.tail].reduce((sum, text) => sum + text.length + 3, 0)
        expect(chars).toBeLessThanOrEqual(NOTEBOOK_VIEW_CHARS)
        if (view.hidden) expect(view.head.length).toBeGreaterThan(0)
      }),
    )
  })

  it('in a run, each extraction prompt repeats the one before up to the end of its notebook: only the search and its results change', async () => {
    const llm = graphModel({
      plan: '{"key_elements": ["k"], "queries": ["alpha", "beta", "gamma"]}',
      extract: (req) =>
        `{"facts": [{"text": "A fact found by the search ${queryOf(req)}", "source": 1}, {"text": "Another from ${queryOf(req)}", "source": 1}]}`,
      check: (_, n) => (n < 3 ? `{"queries": ["follow-up ${n}"]}` : '{"queries": []}'),
    })
    const search = mockSearch({ results: (q) => [result(`https://x.example/${encodeURIComponent(q)}`, `Snippet about ${q}.`)] })
    await createAgent({ llm, search, strategy: graphReader({ concurrency: 1, maxPagesPerNode: 0 }) }).answer('Which?')
    const prompts = calls(llm, 'extractor').map((req) => req.prompt)
    expect(prompts).toHaveLength(6)
    for (let i = 2; i < prompts.length; i++) {
      const earlier = prompts[i - 1]!
      const notebookEnd = earlier.indexOf('\n\nResults for the search')
      expect(earlier.slice(0, notebookEnd)).toContain('- Another from')
      expect(commonPrefix(earlier, prompts[i]!)).toBeGreaterThanOrEqual(notebookEnd)
    }
  })
})
