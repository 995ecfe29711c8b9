/**
 * A resumed run keeps the `language` and `sources` its first run was given (saved in its
 * checkpoint), not the agent's: the run paused for plan review, then resumed by an agent that
 * sets neither.
 */
import { expect, it } from 'vitest'
import { createAgent, memoryCheckpoints, type LLMRequest, type ResearchEvent, type ResearchRun } from '../../src/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { roleOf } from '../support/roles.js'

/** The line a run in `language` tells every model call (after its system prompt), by the language's English name. */
const toldLanguage = (name: string) => new RegExp(`\\n\\nLanguage: write everything meant for the reader [^\\n]* in ${name} \\(`)

const corpus = [
  { title: 'Lyon', url: 'https://lyon.example/city', snippet: 'Lyon is the third city of France.' },
  { title: 'Lyon gossip', url: 'https://gossip.example/lyon', snippet: 'Lyon is the first city of France.' },
]

async function read(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return events
}

/** A scratchpad world: the planner searches once, then answers; every other call writes a line. */
function agentOf(options: { language?: string } = {}) {
  const llm = scriptedLLM({
    replies: (req: LLMRequest) => {
      if (roleOf(req.system) !== 'scratchpad planner') return 'Lyon is the third city of France [1].'
      return req.prompt?.includes('lyon size') ? 'Action: Answer' : 'Action: Search\nQuery: lyon size'
    },
  })
  const search = mockSearch({ corpus })
  return { llm, search, agent: createAgent({ llm, search, strategy: 'scratchpad', ...options }) }
}

it("a resumed run keeps its own language and sources (saved in the checkpoint), not the resuming agent's", async () => {
  const checkpoints = memoryCheckpoints()
  const first = agentOf()
  const run = first.agent.research('How big is Lyon?', { checkpoints, review: { plan: true }, language: 'de', sources: { deny: ['gossip.example'] } })
  const paused = await read(run)
  expect((await run.result).reason).toBe('paused')
  expect(first.search.calls).toEqual([])

  // Resumed by an agent with no language and no sources of its own.
  const second = agentOf()
  const resumed = second.agent.resume(run.runId, { checkpoints, decision: { action: 'approve' } })
  const rest = await read(resumed)
  assertEventInvariants([...paused, ...rest])
  expect(second.search.calls.length).toBeGreaterThan(0)
  expect(second.llm.calls.length).toBeGreaterThan(0)
  for (const req of second.llm.calls) expect(req.system).toMatch(toldLanguage('German'))
  const results = rest.filter((event) => event.type === 'result')
  expect(results.flatMap((event) => event.results.map((r) => r.url))).toEqual(['https://lyon.example/city'])
  expect(results.map((event) => event.sourcesFiltered)).toContain(1)
  expect(JSON.stringify(await resumed.result)).not.toContain('gossip.example')
})

it("the resuming agent's own language and sources do not replace the run's", async () => {
  const checkpoints = memoryCheckpoints()
  const run = agentOf().agent.research('How big is Lyon?', { checkpoints, review: { plan: true }, language: 'de', sources: { deny: ['gossip.example'] } })
  await read(run)
  const second = agentOf({ language: 'fr' })
  await read(second.agent.resume(run.runId, { checkpoints }))
  expect(second.llm.calls.length).toBeGreaterThan(0)
  for (const req of second.llm.calls) {
    expect(req.system).toMatch(toldLanguage('German'))
    expect(req.system).not.toMatch(toldLanguage('French'))
  }
})

it('a run with neither keeps the agent language on resume, as before', async () => {
  const checkpoints = memoryCheckpoints()
  const run = agentOf().agent.research('How big is Lyon?', { checkpoints, review: { plan: true } })
  await read(run)
  const second = agentOf({ language: 'fr' })
  await read(second.agent.resume(run.runId, { checkpoints }))
  expect(second.llm.calls.length).toBeGreaterThan(0)
  for (const req of second.llm.calls) expect(req.system).toMatch(toldLanguage('French'))
})

it('a checkpoint whose saved sources or language are malformed is refused with a config error, the checkpoint untouched', async () => {
  const checkpoints = memoryCheckpoints()
  const run = agentOf().agent.research('How big is Lyon?', { checkpoints, review: { plan: true }, language: 'de' })
  await read(run)
  const saved = (await checkpoints.load(run.runId))!
  for (const input of [
    { ...saved.input, sources: { deny: 'gossip.example' } },
    { ...saved.input, language: 'not a language!' },
  ]) {
    const corrupt = { ...saved, input }
    await checkpoints.save(corrupt as typeof saved)
    const second = agentOf()
    await expect(read(second.agent.resume(run.runId, { checkpoints }))).rejects.toMatchObject({ code: 'config' })
    expect(second.llm.calls).toEqual([])
    expect(await checkpoints.load(run.runId)).toEqual(corrupt)
  }
})
