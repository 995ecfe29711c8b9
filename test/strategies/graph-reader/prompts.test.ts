// The graph-reader's prompts keep what stays the same across calls of a role first, so a
// provider's prompt cache can reuse it: a later prompt with more facts extends the earlier one's
// text up to the end of its facts (up to the end of the notebook's head once the view moved), and
// the results (extraction) or the last search (node check), which change every call, come last.
// Checked on the prompts graph-reader runs send, and on the view of the public Notebook.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type LLMRequest } from '../../../src/index.js'
import { graphReader, Notebook } from '../../../src/strategy.js'
import { mockSearch } from '../../../src/testing/index.js'
import { calls, graphModel, queryOf, result } from './helpers.js'

/** The notebook view's size in characters, as docs/strategies.md states it (each fact listed as `- fact`). */
const VIEW_CHARS = 3000

const commonPrefix = (a: string, b: string) => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
/** A fact of 1 to 300 characters (what exploration files), long ones often enough to fill the view. */
const fact = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.string({ minLength: 1, maxLength: 12 }))
  .map(([length, seed]) => `${seed.replace(/\s+/g, ' ')}.`.repeat(length).slice(0, length).trim() || 'x')

/** The notebook a prompt lists: its head, how many it leaves out, its tail; where the listing starts and ends, and where its head ends. */
interface Listed {
  head: string[]
  hidden: number
  tail: string[]
  start: number
  end: number
  headEnd: number
}
function listedIn(prompt: string, opening: string, closing: string): Listed | undefined {
  const at = prompt.indexOf(opening)
  if (at < 0) return undefined
  const start = at + opening.length
  const end = prompt.indexOf(closing, start)
  const head: string[] = []
  const tail: string[] = []
  let hidden = 0
  let headEnd = start
  let offset = start
  for (const line of prompt.slice(start, end).split('\n')) {
    const folded = /^\((\d+) facts not shown\)$/.exec(line)
    if (folded) hidden = Number(folded[1])
    else if (line === '(empty)') break
    else (hidden ? tail : head).push(line.replace(/^- /, ''))
    offset += line.length + 1
    if (!hidden && !folded) headEnd = offset - 1
  }
  return { head, hidden, tail, start, end, headEnd }
}
const inExtraction = (prompt: string) => listedIn(prompt, 'Already in the notebook (do not extract these again):\n', '\n\nResults for the search')
const inCheck = (prompt: string) => listedIn(prompt, '\nNotebook:\n', '\n\nSearches already run:')

/**
 * A later prompt of a role repeats an earlier one up to the end of the earlier one's facts when
 * the view only grew (the same number hidden), and as far as its own head reaches (within them)
 * when the view moved on; with no facts before, up to where they would start (`from`).
 */
function expectShared(earlierPrompt: string, laterPrompt: string, earlier: Listed | undefined, later: Listed | undefined, from: number) {
  const shared = commonPrefix(earlierPrompt, laterPrompt)
  if (!earlier) expect(shared).toBeGreaterThanOrEqual(from)
  else if (earlier.hidden === (later?.hidden ?? 0)) expect(shared).toBeGreaterThanOrEqual(earlier.end)
  else expect(shared).toBeGreaterThanOrEqual(Math.min(earlier.end, later!.headEnd))
}

/** The facts a view lists, or counts as hidden: every fact of `facts`, in order, the newest shown, within the view's size. */
function expectView(view: { head: readonly string[]; hidden: number; tail: readonly string[] }, facts: readonly string[]) {
  expect([...view.head, ...facts.slice(view.head.length, view.head.length + view.hidden), ...view.tail]).toEqual(facts)
  if (facts.length) expect(view.tail.at(-1) ?? view.head.at(-1)).toBe(facts.at(-1))
  const chars = [...view.head, ...view.tail].reduce((sum, text) => sum + text.length + 3, 0)
  expect(chars).toBeLessThanOrEqual(VIEW_CHARS)
  if (view.hidden) expect(view.head.length).toBeGreaterThan(0)
}

/**
 * A graph-reader run of one node per entry of `nodes`, one after another: node i searches `q{i}`,
 * its extractor files `nodes[i]` (each told apart by a number of its own, so none contains
 * another), and its check asks for the next. The extractor and check prompts, and the notebook as
 * each saw it.
 */
async function explore(nodes: readonly (readonly string[])[], keyElements: readonly string[] = ['a', 'b']) {
  const texts = nodes.map((list, i) => list.map((text, j) => `F${i}n${j} ${text}`.slice(0, 300)))
  const llm = graphModel({
    plan: JSON.stringify({ key_elements: keyElements, queries: ['q0'] }),
    extract: (req) => {
      const i = Number(queryOf(req).slice(1))
      return JSON.stringify({ facts: texts[i]!.map((text) => ({ text, source: 1 })) })
    },
    check: (req) => {
      const i = Number(queryOf(req).slice(1))
      return JSON.stringify({ answerable: false, queries: i + 1 < nodes.length ? [`q${i + 1}`] : [] })
    },
  })
  const search = mockSearch({ results: (q) => [result(`https://x.example/${q}`, `Snippet about ${q}.`)] })
  const agent = createAgent({ llm, search, strategy: graphReader({ concurrency: 1, maxPagesPerNode: 0, maxSteps: nodes.length, condenseAbove: 1000 }) })
  const events = []
  for await (const event of agent.research('Q?')) events.push(event)
  expect(events.at(-1)).toMatchObject({ type: 'run-end' })
  // The notebook, fact by fact, as the run filed them (each as the notebook keeps it: trimmed, cut at 300 characters).
  const filed = events.flatMap((e) => (e.type === 'fact' ? [e.fact.text] : []))
  expect(filed.map((text) => text.split(' ')[0])).toEqual(texts.flat().map((text) => text.split(' ')[0]))
  const filedBefore = (i: number) => filed.slice(0, texts.slice(0, i).flat().length)
  const extractions = calls(llm, 'extractor').map((req: LLMRequest) => req.prompt)
  const checks = calls(llm, 'neighbor').map((req: LLMRequest) => req.prompt)
  expect(extractions).toHaveLength(nodes.length)
  expect(checks).toHaveLength(nodes.length)
  return { extractions, checks, filedBefore }
}

/** Facts for a few nodes, each listing at most 12 (what a node files). */
const nodeFacts = fc.array(fc.array(fact, { maxLength: 12 }), { minLength: 1, maxLength: 8 })

describe('graph-reader prompts, cache-friendly order', () => {
  it('node checks: the earlier prompt up to its last fact (its head, once the view moved) is a prefix of a later one with more facts', async () => {
    await fc.assert(
      fc.asyncProperty(nodeFacts, async (nodes) => {
        const { checks, filedBefore } = await explore(nodes)
        for (let i = 0; i < checks.length; i++) {
          const view = inCheck(checks[i]!)!
          expectView(view, filedBefore(i + 1))
          if (i === 0) continue
          const earlier = inCheck(checks[i - 1]!)!
          expectShared(checks[i - 1]!, checks[i]!, earlier.head.length ? earlier : undefined, view, earlier.start)
        }
      }),
    )
  })

  it('extraction: the question, key elements and known facts come before the results; a later prompt repeats the earlier one up to its notebook, up to the head when the view moved', async () => {
    await fc.assert(
      fc.asyncProperty(nodeFacts, async (nodes) => {
        const { extractions, filedBefore } = await explore(nodes, ['a'])
        for (let i = 0; i < extractions.length; i++) {
          const prompt = extractions[i]!
          expect(prompt.startsWith('Question: Q?\nKey elements: a')).toBe(true)
          const resultsAt = prompt.indexOf('\n\nResults for the search')
          const view = inExtraction(prompt)
          if (filedBefore(i).length) {
            expect(view).toBeDefined()
            expect(view!.end).toBe(resultsAt)
            expectView(view!, filedBefore(i))
          } else expect(view).toBeUndefined()
          if (i === 0) continue
          const earlierResults = extractions[i - 1]!.indexOf('\n\nResults for the search')
          expectShared(extractions[i - 1]!, prompt, inExtraction(extractions[i - 1]!), view, earlierResults)
          // Only the search and its results changed: all before them is shared.
          if (filedBefore(i).length === filedBefore(i - 1).length) expect(commonPrefix(extractions[i - 1]!, prompt)).toBeGreaterThanOrEqual(earlierResults)
        }
      }),
    )
  })

  it('the notebook view: within its size, newest fact always shown, the oldest kept at its head, every fact shown or counted as hidden', () => {
    fc.assert(
      fc.property(fc.array(fact, { minLength: 1, maxLength: 80, size: 'max' }), (texts) => {
        const notebook = new Notebook()
        for (const [i, text] of texts.entries()) notebook.add(`F${i} ${text}`)
        const view = notebook.view()
        expectView(
          view,
          notebook.facts().map((f) => f.text),
        )
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
