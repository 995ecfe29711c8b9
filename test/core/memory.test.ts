import { describe, expect, it } from 'vitest'
import { createAgent, type LaconicError, memoryCheckpoints, type AgentOptions, type MemoryStore, type ResearchEvent } from '../../src/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'

type MemoryEntry = Parameters<MemoryStore['remember']>[0]
type RecalledFinding = Awaited<ReturnType<MemoryStore['recall']>>[number]

/**
 * A memory that recalls every finding it was given, newest run first, and lets a test wait for
 * each write (`written(n)`: the n-th remember call, from 1) instead of sleeping.
 */
function recordingMemory(options: { recall?: MemoryStore['recall'] } = {}) {
  const entries: MemoryEntry[] = []
  const recalls: { question: string; limit?: number; signal?: AbortSignal }[] = []
  const waiting = new Map<number, (entry: MemoryEntry) => void>()
  const store: MemoryStore = {
    async remember(entry) {
      entries.push(entry)
      waiting.get(entries.length)?.(entry)
    },
    async recall(question, opts = {}) {
      recalls.push({ question, ...opts })
      if (options.recall) return options.recall(question, opts)
      return [...entries].reverse().flatMap((e) => e.facts.map((f) => ({ ...f, question: e.question })))
    },
  }
  const written = (n: number) => new Promise<MemoryEntry>((resolve) => (entries.length >= n ? resolve(entries[n - 1]!) : waiting.set(n, resolve)))
  return { store, entries, recalls, written }
}

const france = { title: 'France', url: 'https://fr.example/', snippet: 'The capital of France is Paris.' }

/** A scratchpad agent (the default strategy) whose first run searches once and answers citing it. */
function firstRunModels() {
  const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] })
  const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France [1].', 'Paris is the capital and largest city of France [1].'] })
  return { planner, synthesizer }
}

async function eventsOf(run: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

describe('long-term memory in a run', () => {
  it("gives a second run the first run's findings as prior knowledge, and its answer cites their original source", async () => {
    const memory = recordingMemory()
    const search = mockSearch({ corpus: [france] })
    const first = createAgent({ models: firstRunModels(), search, memory: { store: memory.store } })
    const firstEvents = await eventsOf(first.research('What is the capital of France?'))
    expect(firstEvents.find((e) => e.type === 'recall')).toMatchObject({ findings: [] })
    const entry = await memory.written(1)
    expect(entry).toMatchObject({
      question: 'What is the capital of France?',
      facts: [{ text: 'Paris is the capital and largest city of France.', url: 'https://fr.example/', title: 'France' }],
    })

    const planner = scriptedLLM({ replies: ['Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Paris is the largest city of France [1].'] })
    const second = createAgent({ models: { planner, synthesizer }, search, memory: { store: memory.store } })
    const events = await eventsOf(second.research('How big is Paris?'))
    // Recalled right after run-start, before the planner: the finding, its source and the question it answered.
    expect(events[1]).toMatchObject({
      type: 'recall',
      findings: [{ text: 'Paris is the capital and largest city of France.', url: 'https://fr.example/', question: 'What is the capital of France?' }],
    })
    expect(memory.recalls.at(-1)).toMatchObject({ question: 'How big is Paris?', limit: 5 })
    expect(planner.calls[0]?.prompt).toContain('Paris is the capital and largest city of France. [1]')
    // Prior knowledge, not new evidence: no fact, no search of this run.
    expect(events.filter((e) => e.type === 'fact' || e.type === 'query')).toEqual([])
    const end = events.at(-1)
    expect(end).toMatchObject({ type: 'run-end', reason: 'answered' })
    const answer = events.find((e) => e.type === 'answer')
    expect(answer).toMatchObject({ text: 'Paris is the largest city of France [1].', citations: [{ index: 1, url: 'https://fr.example/', title: 'France' }] })
  })

  it('does not write a run that failed, nor one whose answer is trivially short', async () => {
    const memory = recordingMemory()
    const search = mockSearch({ corpus: [france] })
    const failing = scriptedLLM({ replies: [{ text: '', error: new Error('the model is down') }] })
    const broken = createAgent({ llm: failing, search, memory: { store: memory.store } })
    expect((await broken.answer('What is the capital of France?')).reason).toBe('error')

    const terse = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] }),
        synthesizer: scriptedLLM({ replies: ['Paris [1].', 'Paris [1].'] }),
      },
      search,
      memory: { store: memory.store },
    })
    expect((await terse.answer('What is the capital of France?')).reason).toBe('answered')

    // Writes start in the order runs end: once a later good run is written, the earlier ones had their turn.
    const good = createAgent({ models: firstRunModels(), search, memory: { store: memory.store } })
    await good.answer('What is the capital of France?')
    await memory.written(1)
    expect(memory.entries.map((e) => e.answer)).toEqual(['Paris is the capital and largest city of France [1].'])
  })

  it('writes nothing with writePolicy false, and still recalls', async () => {
    const memory = recordingMemory()
    const search = mockSearch({ corpus: [france] })
    const agent = createAgent({ models: firstRunModels(), search, memory: { store: memory.store, writePolicy: false } })
    await agent.answer('What is the capital of France?')
    const control = createAgent({ models: firstRunModels(), search, memory: { store: memory.store } })
    await control.answer('What is the capital of France?')
    await memory.written(1)
    expect(memory.entries).toHaveLength(1)
    expect(memory.recalls).toHaveLength(2)
  })

  it('reports a failed write to onWriteError, not to the run', async () => {
    const reported: string[] = []
    let told!: () => void
    const toldPromise = new Promise<void>((resolve) => (told = resolve))
    const store: MemoryStore = {
      remember: async () => {
        throw new Error('disk full')
      },
      recall: async () => [],
    }
    const agent = createAgent({
      models: firstRunModels(),
      search: mockSearch({ corpus: [france] }),
      memory: {
        store,
        onWriteError: (error, runId) => {
          reported.push(`${runId}: ${(error as Error).message}`)
          told()
        },
      },
    })
    const run = agent.research('What is the capital of France?')
    const result = await run.result
    expect(result.reason).toBe('answered')
    await toldPromise
    expect(reported).toEqual([`${run.runId}: disk full`])
  })

  it('never holds up the end of a run: a write that never settles leaves run-end and the result on time', async () => {
    let writing!: () => void
    const writeStarted = new Promise<void>((resolve) => (writing = resolve))
    const store: MemoryStore = {
      remember: () => {
        writing()
        return new Promise<never>(() => undefined)
      },
      recall: async () => [],
    }
    const agent = createAgent({ models: firstRunModels(), search: mockSearch({ corpus: [france] }), memory: { store } })
    const events = await eventsOf(agent.research('What is the capital of France?'))
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    await writeStarted
  })

  it('does not write a finished run again when it is resumed from its final checkpoint', async () => {
    const memory = recordingMemory()
    const checkpoints = memoryCheckpoints()
    const options: AgentOptions = { models: firstRunModels(), search: mockSearch({ corpus: [france] }), memory: { store: memory.store } }
    const run = createAgent(options).research('What is the capital of France?', { checkpoints })
    await run.result
    await memory.written(1)
    const replayed = await createAgent(options).resume(run.runId, { checkpoints }).result
    expect(replayed.answer).toBe('Paris is the capital and largest city of France [1].')
    // A later run's write comes after any the replay could have started.
    const control = createAgent({ models: firstRunModels(), search: mockSearch({ corpus: [france] }), memory: { store: memory.store } })
    await control.answer('What is the capital of France?')
    await memory.written(2)
    expect(memory.entries.map((e) => e.runId)).toEqual([run.runId, expect.not.stringMatching(run.runId)])
  })

  it('goes on without earlier findings, with a recall-failed warning, when recall fails', async () => {
    const memory = recordingMemory({
      recall: async () => {
        throw new Error('the vector store is unreachable')
      },
    })
    const agent = createAgent({ models: firstRunModels(), search: mockSearch({ corpus: [france] }), memory: { store: memory.store } })
    const events = await eventsOf(agent.research('What is the capital of France?'))
    expect(events[1]).toMatchObject({ type: 'warning', code: 'recall-failed', message: expect.stringContaining('the vector store is unreachable') })
    expect(events.some((e) => e.type === 'recall')).toBe(false)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
  })

  it('keeps what a store recalls within the limit and the characters, each fact once, dropping malformed ones', async () => {
    const long = 'A finding that goes on. '.repeat(20).trim()
    const junk = [
      { text: 'Paris is in France.', url: 'https://a.example/', question: 'q' },
      { text: 'paris is in france', url: 'https://a.example', question: 'q' },
      { text: '', url: 'https://b.example/', question: 'q' },
      { nothing: true },
      { text: long, url: 'https://c.example/', question: 'q' },
      { text: 'Lyon is in France.', url: 'https://d.example/', question: 'q' },
      { text: 'Nice is in France.', url: 'https://e.example/', question: 'q' },
    ] as unknown as RecalledFinding[]
    const memory = recordingMemory({ recall: async () => junk })
    const planner = scriptedLLM({ replies: ['Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Paris is in France [1].'] })
    const agent = createAgent({
      models: { planner, synthesizer },
      search: mockSearch({ corpus: [] }),
      memory: { store: memory.store, recall: 2, recallChars: 200 },
    })
    const events = await eventsOf(agent.research('Where is Paris?'))
    const recall = events.find((e) => e.type === 'recall')
    // The long one does not fit in what is left of 200 characters: the next that fits comes instead.
    expect(recall).toMatchObject({ findings: [{ text: 'Paris is in France.' }, { text: 'Lyon is in France.' }] })
    expect(memory.recalls[0]?.limit).toBe(2)
  })

  it('is off by default: no recall event, nothing asked of a store', async () => {
    const memory = recordingMemory()
    const agent = createAgent({ models: firstRunModels(), search: mockSearch({ corpus: [france] }) })
    const events = await eventsOf(agent.research('What is the capital of France?'))
    expect(events.some((e) => e.type === 'recall' || (e.type === 'warning' && e.code === 'recall-failed'))).toBe(false)
    expect(memory.recalls).toEqual([])
  })

  it('skips recall when the caller passes the findings, and the strategy gets those', async () => {
    const memory = recordingMemory()
    const planner = scriptedLLM({ replies: ['Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Lyon is a city of France [1].'] })
    const agent = createAgent({ models: { planner, synthesizer }, search: mockSearch({ corpus: [] }), memory: { store: memory.store } })
    const recalled = [{ text: 'Lyon is the third city of France.', url: 'https://lyon.example/', question: 'Lyon?' }]
    const events = await eventsOf(agent.research('What is Lyon?', { recalled }))
    expect(memory.recalls).toEqual([])
    expect(events.some((e) => e.type === 'recall')).toBe(false)
    expect(planner.calls[0]?.prompt).toContain('Lyon is the third city of France. [1]')
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ citations: [{ index: 1, url: 'https://lyon.example/' }] })
  })

  it('refuses findings passed as recalled that are not findings, naming the first', () => {
    const agent = createAgent({ llm: scriptedLLM({ replies: [] }), search: mockSearch({ corpus: [] }) })
    const bad = (recalled: unknown) => () => agent.research('Q?', { recalled } as never)
    expect(bad('text')).toThrow('`recalled` must be an array of findings')
    expect(
      bad([
        { text: 'A.', url: 'https://a.example/', question: 'Q' },
        { text: 'B.', question: 'Q' },
      ]),
    ).toThrow('`recalled[1]` is not a finding')
    expect(bad([{ text: 'A.', url: 'https://a.example/' }])).toThrow('`recalled[0]`')
    expect(bad([])).not.toThrow()
  })

  it('ends aborted when the run is aborted while the store recalls (even one that ignores the signal)', async () => {
    let asked!: () => void
    const recallStarted = new Promise<void>((resolve) => (asked = resolve))
    const store: MemoryStore = {
      remember: async () => undefined,
      recall: () => {
        asked()
        return new Promise<never>(() => undefined)
      },
    }
    const planner = scriptedLLM({ replies: ['Action: Answer'] })
    const agent = createAgent({ llm: planner, search: mockSearch({ corpus: [] }), memory: { store } })
    const run = agent.research('Anything?')
    const events: Promise<ResearchEvent[]> = eventsOf(run)
    await recallStarted
    run.abort()
    const seen = await events
    expect(seen.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    expect(planner.calls).toHaveLength(0)
  })

  it('recalls once: a resumed run keeps what the original recalled (saved in its checkpoint)', async () => {
    const recalled: RecalledFinding[] = [{ text: 'Lyon is the third city of France.', url: 'https://lyon.example/', question: 'Lyon?' }]
    const memory = recordingMemory({ recall: async () => recalled })
    const checkpoints = memoryCheckpoints()
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: Lyon size', 'Action: Answer'] })
    const synthesizer = scriptedLLM({
      replies: ['Lyon is the third city of France [1]. Lyon has about half a million people [2].', 'Lyon is big [1] and has half a million people [2].'],
    })
    const options: AgentOptions = {
      models: { planner, synthesizer },
      search: mockSearch({ corpus: [{ title: 'Lyon', url: 'https://size.example/', snippet: 'Lyon size: half a million' }] }),
      memory: { store: memory.store },
    }
    const agent = createAgent(options)
    const paused = agent.research('How big is Lyon?', { checkpoints, review: { plan: true } })
    const before = await eventsOf(paused)
    expect(before.at(-1)).toMatchObject({ type: 'run-end', reason: 'paused' })
    expect(memory.recalls).toHaveLength(1)

    const resumed = await eventsOf(createAgent(options).resume(paused.runId, { checkpoints }))
    expect(memory.recalls).toHaveLength(1)
    expect(resumed.some((e) => e.type === 'recall')).toBe(false)
    assertEventInvariants([...before, ...resumed])
    const answer = resumed.find((e) => e.type === 'answer')
    expect(answer?.type === 'answer' && answer.citations.map((c) => c.url)).toEqual(['https://lyon.example/', 'https://size.example/'])
  })
})

describe('the memory option', () => {
  const llm = scriptedLLM({ replies: [] })
  const store: MemoryStore = { remember: async () => undefined, recall: async () => [] }
  const refused = (memory: unknown): LaconicError => {
    try {
      createAgent({ llm, memory } as AgentOptions)
    } catch (error) {
      return error as LaconicError
    }
    throw new Error('createAgent accepted it')
  }

  it('is checked when the agent is made, naming the field', () => {
    expect(refused({}).message).toContain('`memory.store` must be a MemoryStore')
    expect(refused({ store: { recall: async () => [] } }).message).toContain('`memory.store`')
    expect(refused({ store, recall: -1 }).message).toContain('`memory.recall` must be a whole number >= 0')
    expect(refused({ store, recall: 51 }).message).toContain('`memory.recall` must be at most 50')
    expect(refused({ store, recallChars: 10 }).message).toContain('`memory.recallChars`')
    expect(refused({ store, writePolicy: { minChars: 3 } }).message).toContain('`memory.writePolicy` has no option `minChars`')
    expect(refused({ store, writePolicy: true }).message).toContain('`memory.writePolicy` must be an object')
    expect(refused({ store, onWriteError: 'log' }).message).toContain('`memory.onWriteError` must be a function')
    expect(refused({ store, size: 3 }).message).toContain('`memory` has no option `size`')
    expect(refused({ store, size: 3 }).code).toBe('config')
    expect(() => createAgent({ llm, memory: { store, recall: 0, writePolicy: { minAnswerChars: 0, minFindings: 0 } } })).not.toThrow()
  })
})
