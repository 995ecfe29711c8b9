import { describe, expect, it } from 'vitest'
import { createAgent, memorySessions } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

describe('agent.session()', () => {
  it('carries knowledge and prior answers into the follow-up question', async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer', 'Action: Answer'] })
    const synthesizer = scriptedLLM({
      replies: ['Paris is the capital of France [1].', 'Paris [1].', 'The notes say Paris is the capital [1], not how many live there.'],
    })
    const search = mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' }] })
    const session = createAgent({ models: { planner, synthesizer }, search }).session()

    const first = await session.answer('What is the capital of France?')
    expect(first.answer).toBe('Paris [1].')
    const state = await session.state()
    // The knowledge names its source by URL, for turns that number their sources afresh.
    expect(state.knowledge).toBe('Paris is the capital of France (https://fr.example).')
    expect(state.priorAnswers).toEqual([{ query: 'What is the capital of France?', answer: 'Paris [1].', sources: ['https://fr.example'] }])

    const run = session.research('How many people live there?')
    for await (const _ of run);
    // The follow-up planned with the first run's knowledge, its source numbered again, and needed no search.
    expect(planner.calls[2]?.prompt).toContain('Paris is the capital of France [1].')
    expect(search.calls).toHaveLength(1)
    expect(synthesizer.calls[2]?.prompt).toContain('[1] France — https://fr.example\nParis is the capital of France.')
    // Its answer cites what the first turn learned, under the number the conversation gave it.
    const second = await run.result
    expect(second.answer).toBe('The notes say Paris is the capital [1], not how many live there.')
    expect(second.citations).toEqual([{ index: 1, url: 'https://fr.example', title: 'France' }])
    expect((await session.state()).priorAnswers).toHaveLength(2)
  })
})

describe('a reflect session', () => {
  it('keeps citation numbers for the whole conversation, not just the last answer', async () => {
    const doc = (id: string) => ({ title: `Title ${id}`, url: `https://${id}.example/page`, snippet: `About ${id}.` })
    const search = mockSearch({ results: { first: [doc('a'), doc('b')], second: [doc('c')], third: [doc('a')] } })
    const enough = '{"slots": {"x": "known [1]"}, "need_more": false, "new_queries": []}'
    const more = (query: string) => `{"slots": {"x": null}, "need_more": true, "new_queries": ["${query}"]}`
    // Follow-ups first reflect on the prior answers, which ask for one more search each.
    const planner = scriptedLLM({ replies: ['["first"]', enough, more('second'), enough, more('third'), enough] })
    const finalizer = scriptedLLM({
      replies: (req, i) => {
        // Cite by the numbers the prompt shows, as a model would.
        const number = (id: string) => new RegExp(`\\[(\\d+)\\] Title ${id}`).exec(req.prompt)?.[1]
        return [`A [${number('a')}] and B [${number('b')}].`, `C [${number('c')}].`, `A again [${number('a')}].`][i]!
      },
    })
    const session = createAgent({ models: { planner, finalizer }, search, strategy: 'reflect' }).session()
    expect((await session.answer('One?')).answer).toBe('A [1] and B [2].')
    expect((await session.answer('Two?')).answer).toBe('C [3].')
    // The third answer cites A, last cited two questions ago: it must still be [1].
    expect((await session.answer('Three?')).answer).toBe('A again [1].')
    expect((await session.state()).citations.map((c) => c.index)).toEqual([1, 2, 3])
  })
})

const doc = (id: string) => ({ title: `Title ${id}`, url: `https://${id}.example/page`, snippet: `About ${id}.` })
const enough = '{"slots": {"x": "known [1]"}, "need_more": false, "new_queries": []}'

/** A promise the test resolves, to hold a model's reply until the test lets it go. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

/** A reflect agent that searches `query` and answers `<label> [n]`, citing its source by the number the prompt shows. */
function reflectAgent(query: string, label: string, hold?: Promise<void>, called?: () => void) {
  const search = mockSearch({ results: { [query]: [doc(query)] } })
  const planner = scriptedLLM({ replies: [`["${query}"]`, enough] })
  const finalizer = scriptedLLM({
    replies: async (req) => {
      called?.()
      await hold
      return `${label} [${new RegExp(`\\[(\\d+)\\] Title ${query}`).exec(req.prompt)?.[1]}].`
    },
  })
  return createAgent({ models: { planner, finalizer }, search, strategy: 'reflect' })
}

describe('a session over a store', () => {
  it('continues the chat from another agent (another process) over the same store, with the first turn in the planner prompt', async () => {
    const store = memorySessions()
    const searchOf = () => mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' }] })
    const first = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] }),
        synthesizer: scriptedLLM({ replies: ['Paris is the capital of France [1].', 'Paris [1].'] }),
      },
      search: searchOf(),
    })
    await first.session('chat-1', { store }).answer('What is the capital of France?')

    const planner = scriptedLLM({ replies: ['Action: Answer'] })
    const second = createAgent({ models: { planner, synthesizer: scriptedLLM({ replies: ['About 2 million.'] }) }, search: searchOf() })
    const session = second.session('chat-1', { store })
    expect((await session.answer('How many people live there?')).answer).toBe('About 2 million.')
    expect(planner.calls[0]?.prompt).toContain('Paris is the capital of France [1].')
    const state = await store.load('chat-1')
    expect(state?.priorAnswers.map((p) => p.answer)).toEqual(['Paris [1].', 'About 2 million.'])
    expect(state?.citations).toEqual([{ index: 1, url: 'https://fr.example', title: 'France' }])
  })

  it('loses nothing of two turns of one chat that run at once; the later one merged gets the next free number', async () => {
    const store = memorySessions()
    const hold = gate()
    let calls = 0
    const bothCalled = gate()
    const called = () => {
      if (++calls === 2) bothCalled.open()
    }
    // Two agents, as two processes would have: each turn loads the empty chat before either saves.
    // Awaiting a result starts its run: both start now.
    const both = Promise.all([
      reflectAgent('alpha', 'A', hold.opened, called).session('chat-2', { store }).answer('Alpha?'),
      reflectAgent('beta', 'B', hold.opened, called).session('chat-2', { store }).answer('Beta?'),
    ])
    await bothCalled.opened
    hold.open()
    const [a, b] = await both
    // Each caller saw its own numbering...
    expect([a.answer, b.answer]).toEqual(['A [1].', 'B [1].'])
    // ...and the conversation keeps both, the later source renumbered in its stored answer.
    const state = await store.load('chat-2')
    expect(state?.citations.map((c) => [c.index, c.url])).toEqual([
      [1, 'https://alpha.example/page'],
      [2, 'https://beta.example/page'],
    ])
    expect(state?.priorAnswers.map((p) => p.answer)).toEqual(['A [1].', 'B [2].'])
  })

  it('starts from a given state: its facts reach the planner', async () => {
    const planner = scriptedLLM({ replies: ['Action: Answer'] })
    const agent = createAgent({ models: { planner, synthesizer: scriptedLLM({ replies: ['Yes.'] }) }, search: mockSearch({ corpus: [] }) })
    const session = agent.session('chat-3', {
      state: {
        version: 1,
        priorAnswers: [],
        citations: [{ index: 1, url: 'https://tower.example' }],
        knowledge: '',
        facts: [{ text: 'The tower is 330 m tall.', url: 'https://tower.example' }],
      },
    })
    await session.answer('Is it taller than 300 m?')
    expect(planner.calls[0]?.prompt).toContain('The tower is 330 m tall.')
    expect((await session.state()).priorAnswers).toEqual([{ query: 'Is it taller than 300 m?', answer: 'Yes.', sources: [] }])
  })

  it('refuses a corrupt or other-version stored state with a config error naming the problem, before any event', async () => {
    const store = memorySessions()
    const broken = { ...store, load: async () => ({ version: 2 }) as never }
    const agent = createAgent({ llm: scriptedLLM({ replies: [] }), search: mockSearch({ corpus: [] }) })
    const run = agent.session('chat-4', { store: broken }).research('Anything?')
    await expect(run.result).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('format version 2; this laconic reads version 1') })
    const notJson = { ...store, load: async () => ({ version: 1, priorAnswers: 'no' }) as never }
    await expect(agent.session('chat-4', { store: notJson }).answer('Anything?')).rejects.toThrow(/`priorAnswers` is missing or malformed/)
  })

  it('says so in a warning before run-end when the turn cannot be saved; the answer stands', async () => {
    const store = { ...memorySessions(), update: async () => Promise.reject(new Error('disk full')) }
    const agent = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] }),
        synthesizer: scriptedLLM({ replies: ['Known.', 'Done.'] }),
      },
      search: mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' }] }),
    })
    const events = []
    for await (const event of agent.session('chat-5', { store }).research('X?')) events.push(event)
    expect(events.slice(-2).map((e) => e.type)).toEqual(['warning', 'run-end'])
    expect(events.at(-2)).toMatchObject({ code: 'session-failed', message: expect.stringContaining('disk full') })
    expect(events.at(-1)).toMatchObject({ reason: 'answered', answer: 'Done.' })
  })

  it('refuses a bad chat id, and a store and a state together', () => {
    const agent = createAgent({ llm: scriptedLLM({ replies: [] }) })
    expect(() => agent.session('../etc/passwd')).toThrow(expect.objectContaining({ code: 'config' }))
    expect(() => agent.session('chat', { store: memorySessions(), state: { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] } })).toThrow(
      /a `store` or a `state`, not both/,
    )
    expect(agent.session().chatId).toMatch(/^[0-9a-f-]{36}$/)
  })
})
