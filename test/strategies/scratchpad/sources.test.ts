/**
 * The sources behind scratchpad's notes, met through scratchpad runs: the numbers the synthesizer
 * is shown the results under, the sources the finalizer is shown, the notes written out for the
 * next turn (with URLs, no numbers), and an earlier turn's notes taken in. What the run keeps of
 * each source is read from its checkpoint; a crash and a resume show a checkpoint numbers them the same.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, memoryCheckpoints, type LLMRequest, type ResearchEvent, type ResearchOptions, type SearchResult } from '../../../src/index.js'
import { normalizeUrl } from '../../../src/strategy.js'
import { mockSearch, scriptedLLM } from '../../../src/testing/index.js'
import { roleOf } from '../../support/roles.js'

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

interface Kept {
  url: string
  title?: string
  text?: string
}

/**
 * A scratchpad run that searches `q0`, `q1`, … (one a step) finding `batches`, its synthesizer
 * writing `notes` (or what `notes` makes of its prompt); its synthesizer fails once at `crashAt`
 * (the run then ends in error and is resumed from its checkpoint). The requests, events, and the
 * sources the final checkpoint keeps.
 */
async function scratchpad(
  batches: readonly (readonly SearchResult[])[],
  notes: string | ((prompt: string) => string),
  options: { crashAt?: number; research?: ResearchOptions } = {},
) {
  let crashed = false
  const llm = scriptedLLM({
    replies: (req) => {
      const role = roleOf(req.system)
      if (role === 'scratchpad planner') {
        const step = Number(/^Step (\d+) of/m.exec(req.prompt)![1]) - 1
        return step < batches.length ? `Action: Search\nQuery: q${step}` : 'Action: Answer'
      }
      if (role === 'scratchpad synthesizer') {
        if (!crashed && req.prompt.includes(`New results for "q${options.crashAt}"`)) {
          crashed = true
          return { text: '', error: new Error('the synthesizer crashed') }
        }
        return typeof notes === 'string' ? notes : notes(req.prompt)
      }
      return 'The answer [1].'
    },
  })
  const search = mockSearch({ results: (query) => [...(batches[Number(/^q(\d+)$/.exec(query)?.[1] ?? -1)] ?? [])] })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm, search, strategy: 'scratchpad', scratchpad: { maxSteps: batches.length + 2 } })
  const events: ResearchEvent[] = []
  const first = agent.research('What is known?', { checkpoints, ...options.research })
  for await (const event of first) events.push(event)
  if ((await first.result).reason === 'error') {
    expect(crashed).toBe(true)
    for await (const event of agent.resume(first.runId, { checkpoints })) events.push(event)
  }
  expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
  const state = (await checkpoints.load(first.runId))?.state as unknown as { sources: Kept[] }
  return { requests: llm.calls, events, sources: state.sources }
}

const prompts = (requests: readonly LLMRequest[], role: 'scratchpad synthesizer' | 'scratchpad finalizer') =>
  requests.filter((req) => roleOf(req.system) === role).map((req) => req.prompt)

/** The results a synthesizer prompt lists: each URL under its number. */
const numbered = (prompt: string) => [...prompt.matchAll(/^\[(\d+)\] T \w+\n(https:\/\/\S+)$/gm)].map((m) => ({ n: Number(m[1]), url: m[2]! }))

/** The sources a finalizer prompt lists, each under its number. */
const listed = (prompt: string) => {
  const block = /\nSources:\n([\s\S]*)\n\nAnswer:$/.exec(prompt)?.[1] ?? ''
  return [...block.matchAll(/^\[(\d+)\] (?:(.*?) — )?(https?:\/\/\S+)$/gm)].map((m) => ({ n: Number(m[1]), url: m[3]!, at: m.index! }))
}

describe("scratchpad's sources", () => {
  it('numbers the results as the synthesizer is shown them and as they are kept: a URL keeps its first number, through a resume', async () => {
    await fc.assert(
      fc.asyncProperty(searches, fc.integer({ min: 1, max: 5 }), async (batches, crashAt) => {
        const { requests, sources } = await scratchpad(batches, 'Noted [1].', { crashAt })
        expect(sources.map((s) => s.url)).toEqual([...new Set(sources.map((s) => s.url))])
        // Every result shown under the number its URL is kept under, and every URL shown kept.
        const shown = prompts(requests, 'scratchpad synthesizer').flatMap(numbered)
        for (const { n, url } of shown) expect(normalizeUrl(sources[n - 1]!.url)).toBe(normalizeUrl(url))
        expect(new Set(sources.map((s) => normalizeUrl(s.url)))).toEqual(new Set(shown.map((s) => normalizeUrl(s.url))))
      }),
    )
  })

  it("keeps a source's snippets bounded, and shows the finalizer the sources the notes cite within its budget", async () => {
    await fc.assert(
      fc.asyncProperty(searches, fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 8 }), async (batches, cited) => {
        const notes = cited.map((n) => `Fact ${n} [${n}].`).join(' ')
        const { requests, events, sources } = await scratchpad(batches, notes || 'Nothing cited.')
        for (const source of sources) expect(source.text?.length ?? 0).toBeLessThanOrEqual(600)
        const [finalizer] = prompts(requests, 'scratchpad finalizer')
        const shown = listed(finalizer!)
        const known = cited.filter((n) => n >= 1 && n <= sources.length)
        // The sources the notes cite; when they cite none, the sources read, first first.
        if (known.length) for (const s of shown) expect(known).toContain(s.n)
        else expect(shown.map((s) => s.n)).toEqual(shown.map((_, i) => i + 1))
        if (sources.length) expect(shown.length).toBeGreaterThan(0)
        // Shown in number order, each under its own number.
        expect(shown.map((s) => s.n)).toEqual([...shown.map((s) => s.n)].sort((a, b) => a - b))
        for (const s of shown) expect(s.url).toBe(sources[s.n - 1]!.url)
        // The notes written for readers outside the run name no number, only URLs.
        for (const update of events) if (update.type === 'knowledge-update') expect(update.knowledge).not.toMatch(/\[\d{1,4}(?:\s*,\s*\d{1,4})*\]/)
      }),
    )
  })

  it("adopts an earlier turn's knowledge: its source URLs become this run's numbered sources, and write back as they were", async () => {
    await fc.assert(
      fc.asyncProperty(searches, fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 8 }), async (batches, cited) => {
        // The earlier turn: its notes, written out with URLs.
        const earlier = await scratchpad(batches, cited.map((n) => `Fact ${n} [${n}].`).join(' ') || 'Nothing cited.')
        const outside = earlier.events.flatMap((e) => (e.type === 'knowledge-update' ? [e.knowledge] : [])).at(-1) ?? ''
        fc.pre(outside.includes('http'))
        // This turn searches once more; its synthesizer keeps the notes as they are.
        const fresh = { title: 'T new', url: 'https://new.example/', snippet: 'Something new.' }
        const next = await scratchpad([[fresh]], (prompt) => /\nCurrent notes:\n([\s\S]*?)\n\nNew results for/.exec(prompt)![1]!, {
          research: { knowledge: outside },
        })
        const [planner] = next.requests.filter((req) => roleOf(req.system) === 'scratchpad planner')
        const notes = /\nKnowledge so far:\n([\s\S]*?)\n\nSearches already run/.exec(planner!.prompt)![1]!
        expect(notes).not.toMatch(/https?:/)
        // Each adopted source's evidence is the sentence that named it (without its URLs).
        const said = outside.replace(/ \([^)]*\)/g, '')
        const adopted = next.sources.filter((source) => source.url !== fresh.url)
        for (const source of adopted) expect(said).toContain(source.text!.split('\n')[0]!)
        expect(adopted.length).toBeGreaterThan(0)
        // Written back, the notes are the earlier turn's.
        const updates = next.events.flatMap((e) => (e.type === 'knowledge-update' ? [e.knowledge] : []))
        expect(updates).toEqual([outside])
      }),
    )
  })
})
