import { expect, it } from 'vitest'
import { createAgent, memoryCheckpoints, type CheckpointStore, type LLMRequest, type ResearchEvent } from '../../src/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { roleOf } from '../support/roles.js'

const results = [
  { title: 'Rayleigh', url: 'https://physics.example/rayleigh', snippet: 'Short wavelengths scatter more.' },
  { title: 'Sunsets', url: 'https://physics.example/sunset', snippet: 'Longer paths redden the light.' },
  { title: 'Oceans', url: 'https://sea.example/blue', snippet: 'The sea reflects the sky.' },
  { title: 'Mars', url: 'https://mars.example/sky', snippet: 'The Martian sky is butterscotch.' },
  { title: 'Eyes', url: 'https://eyes.example/cones', snippet: 'Our cones respond less to violet.' },
]

/** The number a prompt shows `words` under: a `[n]` header above the text holding them. */
function numberAbove(prompt: string, words: string): string | undefined {
  const at = prompt.indexOf(words)
  if (at < 0) return undefined
  return [...prompt.slice(0, at).matchAll(/^\[(\d+)\]/gm)].at(-1)?.[1]
}

/**
 * A scratchpad model that does what its prompts ask: the planner searches once, then answers;
 * the synthesizer keeps the one relevant fact with the number its result is shown under; the
 * finalizer answers with it, citing the number the notes give it.
 */
function obedientModel(synthesized?: (req: LLMRequest) => string) {
  return scriptedLLM({
    replies: (req) => {
      if (roleOf(req.system) === 'scratchpad planner') return req.prompt.includes('(none yet)') ? 'Action: Search\nQuery: sky' : 'Action: Answer'
      if (roleOf(req.system) === 'scratchpad synthesizer')
        return synthesized?.(req) ?? `Short wavelengths scatter more [${numberAbove(req.prompt, 'Short wavelengths')}].`
      if (roleOf(req.system) === 'scratchpad finalizer') {
        const n = /scatter more\.? \[(\d+)\]/.exec(req.prompt)?.[1]
        return n ? `Blue light scatters most [${n}].` : 'Blue light scatters most.'
      }
      throw new Error(`unexpected prompt: ${req.system}`)
    },
  })
}

async function collect(run: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

it('scratchpad cites [n] and lists only the source its answer cites, numbered after the conversation so far', async () => {
  const llm = obedientModel()
  const agent = createAgent({ llm, search: mockSearch({ results: () => results }) })
  const previous = [{ index: 1, url: 'https://earlier.example/' }]
  const run = agent.research('Why is the sky blue?', { citations: previous })
  const events = await collect(run)
  const result = await run.result
  expect(result.answer).toBe('Blue light scatters most [2].')
  expect(result.citations).toEqual([{ index: 2, url: 'https://physics.example/rayleigh', title: 'Rayleigh' }])
  expect(events.find((e) => e.type === 'answer')).toMatchObject({ citations: result.citations })
  // The finalizer saw the notes citing [1] and that source with its snippet, not the four it did not use.
  const final = llm.calls.find((c) => roleOf(c.system) === 'scratchpad finalizer')!.prompt
  expect(final).toContain('Short wavelengths scatter more [1].')
  expect(final).toContain('[1] Rayleigh — https://physics.example/rayleigh\nShort wavelengths scatter more.')
  expect(final).not.toContain('physics.example/sunset')
  // The knowledge the caller sees names its sources by URL: run-local numbers mean nothing outside the run.
  expect(result.knowledge).toBe('Short wavelengths scatter more (https://physics.example/rayleigh).')
})

/** A model that searches "sky", then "sea", and checks the numbers the second search is shown under. */
function twoSearchModel() {
  const planner = (req: LLMRequest) =>
    /\(none yet\)/.test(req.prompt) ? 'Action: Search\nQuery: sky' : /- sea/.test(req.prompt) ? 'Action: Answer' : 'Action: Search\nQuery: sea'
  return scriptedLLM({
    replies: (req) => {
      if (roleOf(req.system) === 'scratchpad planner') return planner(req)
      if (roleOf(req.system) === 'scratchpad synthesizer') {
        // The second search shows the sea as [3] and Rayleigh, seen before, as [1] again.
        if (!/New results for "sea"/.test(req.prompt)) return 'Short wavelengths scatter more [1].'
        const numbered = req.prompt.includes('[3] Oceans') && req.prompt.includes('[1] Rayleigh')
        return `${numbered ? 'Short wavelengths scatter more [1]. The sea reflects the sky [3].' : 'Wrong numbers.'} Made up [9].`
      }
      return 'The sky scatters blue [1] and the sea mirrors it [3]; also [9].'
    },
  })
}

function twoSearches() {
  let searches = 0
  return mockSearch({ results: () => (searches++ === 0 ? results.slice(0, 2) : [results[2]!, results[0]!]) })
}

it('numbers a source by when the run first read it, across searches, and drops numbers that name no source', async () => {
  const result = await createAgent({ llm: twoSearchModel(), search: twoSearches() }).research('Why is the sky blue?').result
  expect(result.answer).toBe('The sky scatters blue [1] and the sea mirrors it [2]; also.')
  expect(result.citations.map((c) => c.url)).toEqual(['https://physics.example/rayleigh', 'https://sea.example/blue'])
  expect(result.knowledge).toBe(
    'Short wavelengths scatter more (https://physics.example/rayleigh). The sea reflects the sky (https://sea.example/blue). Made up.',
  )
})

it('a run resumed after its first search numbers its sources as the run it continues did', async () => {
  const store = memoryCheckpoints()
  const controller = new AbortController()
  const crashing: CheckpointStore = {
    ...store,
    async save(checkpoint) {
      await store.save(checkpoint)
      if (checkpoint.status === 'running') controller.abort()
    },
  }
  const search = twoSearches()
  const first = createAgent({ llm: twoSearchModel(), search }).research('Why is the sky blue?', { checkpoints: crashing, signal: controller.signal })
  expect((await first.result).reason).toBe('aborted')
  const resumed = await createAgent({ llm: twoSearchModel(), search }).resume(first.runId, { checkpoints: store }).result
  expect(resumed.answer).toBe('The sky scatters blue [1] and the sea mirrors it [2]; also.')
  expect(resumed.citations.map((c) => c.url)).toEqual(['https://physics.example/rayleigh', 'https://sea.example/blue'])
})

it('shows the finalizer every source read when the notes cite none (a synthesizer that dropped its markers)', async () => {
  const llm = obedientModel(() => 'Short wavelengths scatter more.')
  const result = await createAgent({ llm, search: mockSearch({ results: () => results.slice(0, 2) }) }).research('Why is the sky blue?').result
  const final = llm.calls.find((c) => roleOf(c.system) === 'scratchpad finalizer')!.prompt
  expect(final).toContain('[1] Rayleigh — https://physics.example/rayleigh\nShort wavelengths scatter more.')
  expect(final).toContain('[2] Sunsets — https://physics.example/sunset\nLonger paths redden the light.')
  expect(result.citations).toEqual([])
})

it('a search that taught nothing adds no source', async () => {
  const llm = scriptedLLM({
    replies: (req, n) => (req.system?.startsWith('You are the planner') ? (n === 0 ? 'Action: Search\nQuery: sky' : 'Action: Answer') : ''),
  })
  const result = await createAgent({ llm, search: mockSearch({ results: () => results }) }).research('Why is the sky blue?').result
  expect(result.citations).toEqual([])
  expect(result.answer).toBe('')
})
