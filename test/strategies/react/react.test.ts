import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createAgent, memoryCheckpoints } from '../../../src/index.js'
import { ProviderError, type EventOf, type LLMRequest, type ResearchEvent, type ResearchRun } from '../../../src/index.js'
import type { InterruptRequest, AgentOptions } from '../../../src/index.js'
import { assertEventInvariants, mockFetch, mockSearch, scriptedLLM } from '../../../src/testing/index.js'
import { heldCalls } from '../held-calls.js'
import { EVIDENCE_CHARS } from '../../../src/strategies/shared/cited-answer.js'

type ScriptedReply = Exclude<Extract<Parameters<typeof scriptedLLM>[0]['replies'], readonly unknown[]>[number], string>

type ReactTool = Extract<NonNullable<NonNullable<AgentOptions['react']>['tools']>[number], { execute: unknown }>

async function read(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return events
}
/** A run's events, checked. (A resumed run is checked joined to the run it continues.) */
const collect = async (run: ResearchRun) => assertEventInvariants(await read(run)) as ResearchEvent[]
const ofType = <T extends ResearchEvent['type']>(events: readonly ResearchEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type)

const search = mockSearch({
  results: {
    'Eiffel Tower architect': [
      {
        title: 'Eiffel Tower — history',
        url: 'https://example.org/eiffel',
        snippet: 'The tower was designed by the firm of Gustave Eiffel; Maurice Koechlin drew the first plans.',
      },
      { title: 'Paris guide', url: 'https://example.org/paris', snippet: 'Visit Paris.' },
    ],
    'Maurice Koechlin birthplace': [{ title: 'Maurice Koechlin', url: 'https://example.org/koechlin', snippet: 'Swiss engineer.' }],
  },
})
const fetcher = mockFetch({
  pages: { 'https://example.org/koechlin': { title: 'Maurice Koechlin', text: 'Maurice Koechlin was born in Buhl, Haut-Rhin, in 1856.' } },
})

it('two hops: search, search, read_page, then an answer whose citations name the page read', async () => {
  const llm = scriptedLLM({
    replies: [
      { text: '', toolCalls: [{ name: 'search', args: { query: 'Eiffel Tower architect' } }] },
      { text: 'Koechlin drew it; now his birthplace.', toolCalls: [{ name: 'search', args: { query: 'Maurice Koechlin birthplace' } }] },
      { text: '', toolCalls: [{ name: 'read_page', args: { url: 'https://example.org/koechlin' } }] },
      'Maurice Koechlin [1], who drew the first plans, was born in Buhl [3].',
    ],
  })
  const agent = createAgent({ llm, search, fetch: fetcher, strategy: 'react' })
  const run = agent.research('Where was the engineer who drew the Eiffel Tower born?')
  const events = await collect(run)
  const result = await run.result
  expect(result.reason).toBe('answered')
  expect(ofType(events, 'tool-call').map((e) => [e.name, e.args])).toEqual([
    ['search', { query: 'Eiffel Tower architect' }],
    ['search', { query: 'Maurice Koechlin birthplace' }],
    ['read_page', { url: 'https://example.org/koechlin' }],
  ])
  expect(ofType(events, 'tool-result').every((e) => e.ok)).toBe(true)
  expect(ofType(events, 'page').map((e) => e.url)).toEqual(['https://example.org/koechlin'])
  // Sources were numbered as the model saw them ([1] eiffel, [2] paris, [3] koechlin); the answer cites 1 and 3, renumbered 1 and 2.
  expect(result.answer).toBe('Maurice Koechlin [1], who drew the first plans, was born in Buhl [2].')
  expect(result.citations.map((c) => c.url)).toEqual(['https://example.org/eiffel', 'https://example.org/koechlin'])
  // The model saw each result in its next request, as tool turns.
  const third = llm.calls[2]!
  expect(third.turns?.filter((t) => t.role === 'tool').map((t) => (t.role === 'tool' ? t.content : ''))).toEqual([
    expect.stringContaining('[1] Eiffel Tower — history'),
    expect.stringContaining('[3] Maurice Koechlin'),
  ])
  expect(third.tools?.map((t) => t.name)).toEqual(['search', 'read_page'])
  // The model's text streamed as it came, as the agent's reasoning; the answer came once accepted.
  expect(
    ofType(events, 'reasoning-token')
      .map((e) => e.text)
      .join(''),
  ).toContain('Koechlin drew it')
  expect(
    ofType(events, 'answer-token')
      .map((e) => e.text)
      .join(''),
  ).toBe(result.answer)
})

const lookup = (overrides: Partial<ReactTool> = {}) => {
  const seen: Record<string, unknown>[] = []
  const tool: ReactTool = {
    name: 'lookup_order',
    description: 'Find an order by its number.',
    parameters: {
      type: 'object',
      properties: { order: { type: 'integer', minimum: 1 }, note: { type: 'string' } },
      required: ['order'],
      additionalProperties: false,
    },
    execute: (args) => {
      seen.push(args)
      return { order: args.order, status: 'shipped' }
    },
    ...overrides,
  }
  return { tool, seen }
}

it('bad arguments to a user tool go back to the model as an error; the tool runs only with valid ones', async () => {
  const { tool, seen } = lookup()
  const llm = scriptedLLM({
    replies: [
      { text: '', toolCalls: [{ name: 'lookup_order', args: { order: 'forty-two' } }] },
      { text: '', toolCalls: [{ name: 'lookup_order', args: '{"order": 42' }] },
      { text: '', toolCalls: [{ name: 'lookup_order', args: { order: 42 } }] },
      'Order 42 has shipped.',
    ],
  })
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const run = agent.research('Has order 42 shipped?')
  const events = await collect(run)
  expect(seen).toEqual([{ order: 42 }])
  const results = ofType(events, 'tool-result')
  expect(results.map((r) => r.ok)).toEqual([false, false, true])
  const errors = llm.calls[3]!.turns!.flatMap((t) => (t.role === 'tool' && t.isError ? [t.content] : []))
  expect(errors[0]).toMatch(/invalid arguments: \/order: .*integer/)
  expect(errors[1]).toMatch(/not valid JSON/)
  expect(results.every((r) => r.chars <= 500)).toBe(true)
  expect((await run.result).answer).toBe('Order 42 has shipped.')
})

it('the grounding gate rejects an answer citing a source never seen; the revision is accepted', async () => {
  const llm = scriptedLLM({
    replies: [
      { text: '', toolCalls: [{ name: 'search', args: { query: 'Eiffel Tower architect' } }] },
      'Gustave Eiffel designed it [7].',
      'The firm of Gustave Eiffel designed it [1].',
    ],
  })
  const agent = createAgent({ llm, search, strategy: 'react' })
  const run = agent.research('Who designed the Eiffel Tower?')
  const events = await collect(run)
  const warnings = ofType(events, 'warning').filter((w) => w.code === 'answer-rejected')
  expect(warnings).toHaveLength(1)
  expect(warnings[0]!.message).toContain('[7]')
  // The rejection went back to the model with its draft.
  const last = llm.calls[2]!.turns!
  expect(last.at(-1)).toEqual({ role: 'user', text: expect.stringContaining('not accepted') })
  expect(ofType(events, 'answer')).toHaveLength(1)
  expect((await run.result).answer).toBe('The firm of Gustave Eiffel designed it [1].')
})

it('a gate that keeps rejecting gives up after maxRejections and keeps the last answer', async () => {
  const llm = scriptedLLM({ replies: ['A [9].', 'B [9].', 'C [9].'] })
  const agent = createAgent({ llm, strategy: 'react', react: { maxRejections: 1, finalAnswer: () => ({ reject: 'never good' }) } })
  const run = agent.research('q')
  const events = await collect(run)
  expect(llm.calls).toHaveLength(2)
  expect(ofType(events, 'warning').map((w) => w.code)).toEqual(['answer-rejected', 'answer-ungrounded'])
  // [9] names no source: it is dropped from the released answer.
  expect((await run.result).answer).toBe('B.')
})

it('a tool that needs approval pauses the run with a tool-call request; an edit decision runs it with the edited arguments', async () => {
  const { tool, seen } = lookup({ needsApproval: true, sensitive: ['note'] })
  const script = (req: LLMRequest): ScriptedReply => {
    const done = req.turns?.some((t) => t.role === 'tool')
    return done ? { text: 'Order 7 has shipped.' } : { text: '', toolCalls: [{ id: 'c1', name: 'lookup_order', args: { order: 42, note: 'card 4111' } }] }
  }
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm: scriptedLLM({ replies: script }), strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const first = agent.research('Has my order shipped?', { checkpoints })
  const paused = await collect(first)
  const request = { kind: 'tool-call', callId: 'c1', name: 'lookup_order', args: { order: 42, note: '[redacted]' } }
  expect(await first.result).toMatchObject({ reason: 'paused', request })
  expect(paused.at(-1)).toMatchObject({ type: 'run-end', reason: 'paused', request })
  expect((await checkpoints.load(first.runId))?.request).toEqual(request)
  expect(seen).toEqual([])
  expect(ofType(paused, 'tool-call')).toEqual([expect.objectContaining({ callId: 'c1', args: { order: 42, note: '[redacted]' } })])
  expect(ofType(paused, 'warning').map((w) => w.code)).toContain('approval-needed')
  // The secret itself, not just its digits: an event's time or run id may contain "4111" by chance.
  expect(JSON.stringify(paused)).not.toContain('card 4111')

  const resumed = agent.resume(first.runId, { checkpoints, decision: { action: 'edit', args: { order: 7 } } })
  const rest = await collect(resumed)
  expect(seen).toEqual([{ order: 7 }])
  expect((await resumed.result).answer).toBe('Order 7 has shipped.')
  // The resumed run announces the call it settles again (redacted), then its result.
  expect(ofType(rest, 'tool-call')).toEqual([expect.objectContaining({ callId: 'c1', args: { order: 42, note: '[redacted]' } })])
  expect(ofType(rest, 'tool-result')).toEqual([expect.objectContaining({ callId: 'c1', ok: true })])
  assertEventInvariants([...paused, ...rest])
})

it('review.tools: every call, the built-in search too, pauses the run, and the checkpoint keeps the switch', async () => {
  const llm = scriptedLLM({
    replies: (req) => {
      const results = req.turns?.filter((t) => t.role === 'tool').length ?? 0
      if (results === 0) return { text: '', toolCalls: [{ id: 'c1', name: 'search', args: { query: 'Eiffel Tower architect' } }] }
      if (results === 1) return { text: '', toolCalls: [{ id: 'c2', name: 'search', args: { query: 'Maurice Koechlin birthplace' } }] }
      return 'Koechlin [1].'
    },
  })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm, search, strategy: 'react', react: { finalAnswer: () => true } })
  const searched = search.calls.length
  const first = agent.research('q', { checkpoints, review: { tools: true } })
  await read(first)
  expect((await first.result).reason).toBe('paused')
  expect(search.calls.slice(searched)).toEqual([])
  expect((await checkpoints.load(first.runId))?.input.review).toEqual({ tools: true })
  // Approved, the search runs; the next call waits in turn (the resume keeps the switch).
  const second = agent.resume(first.runId, { checkpoints, decision: { action: 'approve' } })
  await read(second)
  expect((await second.result).reason).toBe('paused')
  expect(search.calls.slice(searched)).toEqual(['Eiffel Tower architect'])
  expect(ofType(await read(agent.resume(first.runId, { checkpoints, decision: { action: 'reject' } })), 'tool-result')).toEqual([
    expect.objectContaining({ callId: 'c2', ok: false }),
  ])
})

it('decide answers tool calls in process: approve runs, edit runs with the edited arguments, reject tells the model, a predicate picks the calls', async () => {
  const { tool, seen } = lookup({ sensitive: ['note'] })
  const llm = scriptedLLM({
    replies: [
      {
        text: '',
        toolCalls: [
          { id: 'a', name: 'lookup_order', args: { order: 1, note: 'secret' } },
          { id: 'b', name: 'lookup_order', args: { order: 2 } },
          { id: 'c', name: 'lookup_order', args: { order: 3 } },
          { id: 's', name: 'search', args: { query: 'Eiffel Tower architect' } },
        ],
      },
      'done',
    ],
  })
  const agent = createAgent({ llm, search, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const asked: InterruptRequest[] = []
  const events = await collect(
    agent.research('q', {
      review: { tools: (call) => call.name === 'lookup_order' && call.args.note !== 'never' },
      decide: (request) => {
        asked.push(request)
        if (request.kind !== 'tool-call') return { action: 'approve' }
        if (request.callId === 'a') return { action: 'reject', reason: 'order 1 is private' }
        return request.callId === 'b' ? { action: 'edit', args: { order: 20 } } : { action: 'approve' }
      },
    }),
  )
  // The search is not picked by the predicate: it runs unasked. Each asked request has its sensitive fields redacted.
  expect(asked.map((r) => (r.kind === 'tool-call' ? [r.callId, r.args] : r.kind))).toEqual([
    ['a', { order: 1, note: '[redacted]' }],
    ['b', { order: 2 }],
    ['c', { order: 3 }],
  ])
  expect(seen).toEqual(expect.arrayContaining([{ order: 20 }, { order: 3 }]))
  expect(seen).toHaveLength(2)
  expect(ofType(events, 'tool-result').map((r) => [r.callId, r.ok])).toEqual(
    expect.arrayContaining([
      ['a', false],
      ['b', true],
      ['c', true],
      ['s', true],
    ]),
  )
  expect(llm.calls[1]!.turns!.find((t) => t.role === 'tool' && t.callId === 'a')).toMatchObject({ content: expect.stringContaining('order 1 is private') })
})

it('decide pausing a tool call: the decisions taken before it are kept, and the resume asks only about the calls after it', async () => {
  const { tool, seen } = lookup({ needsApproval: true })
  const llm = scriptedLLM({
    replies: [
      {
        text: '',
        toolCalls: [
          { id: 'a', name: 'lookup_order', args: { order: 1 } },
          { id: 'b', name: 'lookup_order', args: { order: 2 } },
          { id: 'c', name: 'lookup_order', args: { order: 3 } },
        ],
      },
      'done',
    ],
  })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const asked: string[] = []
  const first = agent.research('q', {
    checkpoints,
    decide: (request) => {
      if (request.kind === 'tool-call') asked.push(request.callId)
      return request.kind === 'tool-call' && request.callId === 'b' ? { action: 'pause' } : { action: 'approve' }
    },
  })
  const paused = await collect(first)
  expect(await first.result).toMatchObject({ reason: 'paused', request: { kind: 'tool-call', callId: 'b' } })
  expect(asked).toEqual(['a', 'b'])
  expect(seen).toEqual([])
  const resumedAsked: string[] = []
  const resumed = agent.resume(first.runId, {
    checkpoints,
    decision: { action: 'edit', args: { order: 22 } },
    decide: (request) => {
      if (request.kind === 'tool-call') resumedAsked.push(request.callId)
      return { action: 'reject' }
    },
  })
  const rest = await collect(resumed)
  assertEventInvariants([...paused, ...rest])
  expect(resumedAsked).toEqual(['c'])
  expect(seen).toEqual(expect.arrayContaining([{ order: 1 }, { order: 22 }]))
  expect(seen).toHaveLength(2)
})

it('a checkpoint saved before the approval contract (react.needsApproval in its settings) is refused naming that option, untouched', async () => {
  const { tool } = lookup({ needsApproval: true })
  const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ id: 'c1', name: 'lookup_order', args: { order: 1 } }] }, 'done'] })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const first = agent.research('q', { checkpoints })
  expect((await first.result).reason).toBe('paused')
  const saved = (await checkpoints.load(first.runId))!
  // As 0.2's development builds wrote it: the mode in the settings, the step's answers as { approved, message }.
  const state = saved.state as { pending: Record<string, unknown> }
  const old = {
    ...saved,
    options: { ...saved.options, settings: { ...(saved.options.settings as object), needsApproval: true } },
    state: { ...state, pending: { ...state.pending, decisions: { c0: { approved: false, message: 'no' } } } },
  }
  await checkpoints.save(old)
  await expect(agent.resume(first.runId, { checkpoints, decision: { action: 'approve' } }).result).rejects.toMatchObject({
    code: 'config',
    message: expect.stringContaining('saved with `needsApproval`, which this version of laconic no longer has'),
  })
  expect(await checkpoints.load(first.runId)).toEqual(old)
})

it('aborting the run while decide waits ends it aborted, the call not run', async () => {
  const { tool, seen } = lookup({ needsApproval: true })
  const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ id: 'c1', name: 'lookup_order', args: { order: 1 } }] }, 'done'] })
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const controller = new AbortController()
  let asked!: () => void
  const waiting = new Promise<void>((resolve) => (asked = resolve))
  const run = agent.research('q', {
    signal: controller.signal,
    decide: (_request, { signal }) =>
      new Promise((_resolve, reject) => {
        asked()
        signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      }),
  })
  const events = collect(run)
  await waiting
  controller.abort()
  expect((await events).at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
  expect(seen).toEqual([])
})

it('the removed approval options of react are refused with a config error naming what replaced them', () => {
  const llm = scriptedLLM({ replies: [] })
  const refused = (react: Record<string, unknown>) => () => createAgent({ llm, strategy: 'react', react: react as never })
  expect(refused({ needsApproval: true })).toThrow(
    expect.objectContaining({ code: 'config', message: expect.stringContaining('`react.needsApproval` was replaced: use the run option `review.tools`') }),
  )
  expect(refused({ beforeTool: () => undefined })).toThrow(
    expect.objectContaining({ code: 'config', message: expect.stringMatching(/`react.beforeTool` was replaced: .*`review.tools`.*`decide`/) }),
  )
})

it('a rejected call tells the model the reason, and it answers without the tool', async () => {
  const { tool, seen } = lookup({ needsApproval: true })
  const llm = scriptedLLM({
    replies: (req) =>
      req.turns?.some((t) => t.role === 'tool') ? 'I could not check the order.' : { text: '', toolCalls: [{ name: 'lookup_order', args: { order: 1 } }] },
  })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const first = agent.research('q', { checkpoints })
  const paused = await read(first)
  const resumed = agent.resume(first.runId, { checkpoints, decision: { action: 'reject', reason: 'not now' } })
  const events = await collect(resumed)
  assertEventInvariants([...paused, ...events])
  expect(seen).toEqual([])
  expect(ofType(events, 'tool-result')[0]).toMatchObject({ ok: false, summary: expect.stringContaining('not now') })
  expect((await resumed.result).answer).toBe('I could not check the order.')
})

it('parallel calls of a step run at most `concurrency` at once', async () => {
  let running = 0
  let most = 0
  const held = heldCalls()
  const slow: ReactTool = {
    name: 'slow',
    description: 'slow',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    execute: async () => {
      running++
      most = Math.max(most, running)
      await held.hold()
      running--
      return 'ok'
    },
  }
  const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [1, 2, 3, 4, 5].map((n) => ({ name: 'slow', args: { n } })) }, 'done'] })
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [slow], concurrency: 2, finalAnswer: () => true } })
  const run = agent.research('q')
  const done = collect(run)
  // Two calls start; each release lets the next one in (an unbounded step would have started all five).
  await held.arrived(2)
  for (let released = 0; released < 5; released++) {
    held.release(released)
    await held.arrived(Math.min(released + 3, 5))
  }
  const events = await done
  expect(most).toBe(2)
  expect(ofType(events, 'tool-result')).toHaveLength(5)
})

it('the circuit breaker refuses a repeated call and, past maxRepeats, makes the model answer', async () => {
  const llm = scriptedLLM({
    replies: (req) => (req.toolChoice === 'none' ? 'Eiffel.' : { text: '', toolCalls: [{ name: 'search', args: { query: 'Eiffel Tower architect' } }] }),
  })
  const agent = createAgent({ llm, search, strategy: 'react', react: { maxSteps: 10, maxRepeats: 1, finalAnswer: () => true } })
  const run = agent.research('q')
  const events = await collect(run)
  expect(search.calls.filter((q) => q === 'Eiffel Tower architect').length).toBeGreaterThanOrEqual(1)
  expect(ofType(events, 'query')).toHaveLength(1)
  expect(ofType(events, 'warning').filter((w) => w.code === 'repeated-call')).toHaveLength(2)
  // Two refusals (more than maxRepeats = 1) force the last step: no tools offered.
  expect(llm.calls).toHaveLength(4)
  expect(llm.calls[3]!.toolChoice).toBe('none')
  expect((await run.result).reason).toBe('answered')
})

it('a garbage model (random tools and arguments) ends within maxSteps, the invariants holding', async () => {
  const call = fc.record({
    name: fc.oneof(fc.constantFrom('search', 'read_page', 'lookup_order'), fc.string({ maxLength: 12 })),
    args: fc.oneof(fc.string({ maxLength: 20 }), fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })),
  })
  const reply = fc.record({ text: fc.string({ maxLength: 40 }), toolCalls: fc.array(call, { maxLength: 3 }) })
  await fc.assert(
    fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 6 }), async (replies, maxSteps) => {
      const llm = scriptedLLM({ replies: (_req, i) => replies[i % replies.length]! })
      const { tool } = lookup()
      const agent = createAgent({ llm, search, fetch: fetcher, strategy: 'react', react: { tools: [tool], maxSteps } })
      const run = agent.research('q')
      await collect(run)
      const result = await run.result
      expect(['answered', 'max-iterations']).toContain(result.reason)
      // maxSteps, and one retry when the last step still calls a tool.
      expect(llm.calls.length).toBeLessThanOrEqual(maxSteps + 1)
    }),
    { numRuns: 40 },
  )
})

it('aborting the run during a tool call aborts the signal the tool was given', async () => {
  let toolSignal: AbortSignal | undefined
  let started!: () => void
  const running = new Promise<void>((resolve) => (started = resolve))
  const hang: ReactTool = {
    name: 'hang',
    description: 'never ends',
    parameters: { type: 'object' },
    execute: (_args, { signal }) => {
      toolSignal = signal
      started()
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
    },
  }
  const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ name: 'hang', args: {} }] }] })
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [hang] } })
  const run = agent.research('q')
  const done = collect(run)
  await running
  expect(toolSignal?.aborted).toBe(false)
  run.abort()
  const events = await done
  expect(toolSignal?.aborted).toBe(true)
  expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
})

it('a server without tool support: the run switches to the text protocol and goes on', async () => {
  const llm = scriptedLLM({
    replies: (req) => {
      if (req.tools)
        throw new ProviderError('ollama: HTTP 400', { code: 'http', provider: 'ollama', status: 400, providerMessage: 'gemma:2b does not support tools' })
      const observed = req.turns?.some((t) => t.role === 'user' && t.text.startsWith('Observation:'))
      return observed
        ? "Thought: I have it.\nFinal Answer: Eiffel's firm designed it [1]."
        : 'Thought: search first.\nAction: search\nAction Input: Eiffel Tower architect\nObservation: (invented)'
    },
  })
  const agent = createAgent({ llm, search, strategy: 'react' })
  const run = agent.research('Who designed the Eiffel Tower?')
  const events = await collect(run)
  expect(ofType(events, 'warning').map((w) => w.code)).toContain('tools-unsupported')
  expect(ofType(events, 'tool-call')).toEqual([expect.objectContaining({ name: 'search', args: { query: 'Eiffel Tower architect' } })])
  expect(llm.calls.at(-1)!.system).toContain('Final Answer')
  expect((await run.result).answer).toBe("Eiffel's firm designed it [1].")
})

const ACT = 'Thought: one more search would help.\nAction: search\nAction Input: Eiffel Tower architect\nObservation: (invented)'
const ACT_AGAIN = 'Thought: still not sure.\nAction: search\nAction Input: {"query": "Gustave Eiffel firm"}'
const ANSWERED = "Thought: enough.\nFinal Answer: Eiffel's firm designed it [1]."

it('text protocol: an action on the last step is asked once more for the answer, which stands', async () => {
  const llm = scriptedLLM({ replies: [ACT, ACT_AGAIN, ANSWERED] })
  const agent = createAgent({ llm, search, strategy: 'react', react: { toolCalls: 'text', maxSteps: 2 } })
  const run = agent.research('Who designed the Eiffel Tower?')
  const events = await collect(run)
  const result = await run.result
  expect(result.answer).toBe("Eiffel's firm designed it [1].")
  expect(result.reason).toBe('max-iterations')
  // The last step's action ran nothing; the retry told the model it has no steps left.
  expect(ofType(events, 'tool-call').map((e) => e.args)).toEqual([{ query: 'Eiffel Tower architect' }])
  expect(llm.calls).toHaveLength(3)
  const retry = llm.calls[2]!.turns!
  expect(retry.at(-2)).toEqual({ role: 'assistant', text: ACT_AGAIN, toolCalls: [] })
  expect(retry.at(-1)).toMatchObject({ role: 'user', text: expect.stringContaining('Final Answer:') })
  expect(ofType(events, 'warning').map((w) => w.code)).toEqual(['unparseable-output'])
})

it('text protocol: a model that still acts after the retry gets an answer listing what was gathered, never its action', async () => {
  const llm = scriptedLLM({ replies: (_req, i) => (i === 0 ? ACT : ACT_AGAIN) })
  const agent = createAgent({ llm, search, strategy: 'react', react: { toolCalls: 'text', maxSteps: 2 } })
  const run = agent.research('Who designed the Eiffel Tower?')
  const events = await collect(run)
  const result = await run.result
  expect(llm.calls).toHaveLength(3)
  expect(result.reason).toBe('max-iterations')
  expect(result.answer).not.toMatch(/Thought:|Action:|Action Input:/)
  expect(result.answer).toContain('search "Eiffel Tower architect": [1] Eiffel Tower — history; [2] Paris guide')
  expect(result.citations.map((c) => c.url)).toEqual(['https://example.org/eiffel', 'https://example.org/paris'])
  expect(ofType(events, 'warning').map((w) => [w.code, w.message])).toEqual([
    ['unparseable-output', expect.stringContaining('asked once more')],
    ['empty-output', expect.stringContaining('lists what the run gathered')],
  ])
})

it('text protocol: a bare Thought on the last step is no answer either; plain prose after the retry is', async () => {
  const llm = scriptedLLM({ replies: ['Thought: I should look further before answering.', 'The firm of Gustave Eiffel designed it.'] })
  const agent = createAgent({ llm, search, strategy: 'react', react: { toolCalls: 'text', maxSteps: 1, finalAnswer: () => true } })
  const run = agent.research('Who designed the Eiffel Tower?')
  const events = await collect(run)
  expect((await run.result).answer).toBe('The firm of Gustave Eiffel designed it.')
  expect(llm.calls).toHaveLength(2)
  expect(ofType(events, 'warning').map((w) => w.code)).toEqual(['unparseable-output'])
})

it('native tool calls: tool calls and no text on the forced step get the same one retry, then the gathered answer', async () => {
  const llm = scriptedLLM({ replies: () => ({ text: '', toolCalls: [{ name: 'search', args: { query: 'Eiffel Tower architect' } }] }) })
  const agent = createAgent({ llm, search, strategy: 'react', react: { maxSteps: 1 } })
  const run = agent.research('q')
  const events = await collect(run)
  const result = await run.result
  expect(llm.calls.map((c) => c.toolChoice)).toEqual(['none', 'none'])
  expect(llm.calls[1]!.turns?.at(-1)).toMatchObject({ role: 'user', text: expect.stringContaining('Reply with the answer only') })
  expect(ofType(events, 'tool-call')).toEqual([])
  // Nothing was gathered: the usual empty answer, one warning that says why.
  expect(result.answer).toBe('No answer was found within the step budget.')
  expect(ofType(events, 'warning').map((w) => w.code)).toEqual(['unparseable-output', 'empty-output'])
})

it('the retry is kept in the checkpoint: a run interrupted after it and resumed does not ask a third time', async () => {
  const store = memoryCheckpoints()
  let saves = 0
  let run!: ResearchRun
  const crashing = {
    ...store,
    async save(checkpoint: Parameters<typeof store.save>[0]) {
      await store.save(checkpoint)
      // The first step's checkpoint, then the retry's: interrupted right after the retry was decided.
      if (checkpoint.status === 'running' && ++saves === 2) run.abort()
    },
  }
  const first = scriptedLLM({ replies: [ACT, ACT_AGAIN] })
  run = createAgent({ llm: first, search, strategy: 'react', react: { toolCalls: 'text', maxSteps: 2 } }).research('q', { checkpoints: crashing })
  await read(run)
  expect((await run.result).reason).toBe('aborted')
  const second = scriptedLLM({ replies: [ACT_AGAIN, 'never asked'] })
  const resumed = createAgent({ llm: second, search, strategy: 'react', react: { toolCalls: 'text', maxSteps: 2 } }).resume(run.runId, { checkpoints: store })
  const events = await read(resumed)
  const result = await resumed.result
  expect(second.calls).toHaveLength(1)
  expect(result.answer).toContain('What the research found')
  expect(ofType(events, 'warning').map((w) => w.code)).toEqual(['empty-output'])
})

it('activeTools hides tools at a step: a call to a hidden one is refused', async () => {
  const { tool, seen } = lookup()
  const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ name: 'lookup_order', args: { order: 3 } }] }, 'ok'] })
  const agent = createAgent({
    llm,
    search,
    strategy: 'react',
    react: { tools: [tool], activeTools: (step) => (step === 1 ? ['search'] : ['search', 'lookup_order']), finalAnswer: () => true },
  })
  await collect(agent.research('q'))
  expect(llm.calls[0]!.tools?.map((t) => t.name)).toEqual(['search'])
  expect(llm.calls[1]!.tools?.map((t) => t.name)).toEqual(['search', 'lookup_order'])
  expect(seen).toEqual([])
})

it('bad options are config errors when the agent is made', () => {
  const llm = scriptedLLM({ replies: [] })
  expect(() => createAgent({ llm, strategy: 'react', react: { maxSteps: 0 } }).research('q')).toThrow(/maxSteps/)
  expect(() =>
    createAgent({ llm, strategy: 'react', react: { tools: [{ name: 'search', description: '', parameters: {}, execute: () => '' }] } }).research('q'),
  ).toThrow(/built-in|twice/)
  expect(() =>
    createAgent({ llm, strategy: 'react' }).research('q', { review: { tools: 'yes' as unknown as boolean }, decide: () => ({ action: 'approve' }) }),
  ).toThrow(/review.tools/)
})

it("a react checkpoint whose state does not fit react's schema ends the resumed run in a config error naming the field, the checkpoint untouched", async () => {
  const { tool, seen } = lookup({ needsApproval: true })
  const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ id: 'c1', name: 'lookup_order', args: { order: 1 } }] }, 'done'] })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const first = agent.research('q', { checkpoints })
  expect((await first.result).reason).toBe('paused')
  const saved = (await checkpoints.load(first.runId))!
  const state = saved.state as { pending: { calls: unknown[] } }
  const corrupt = { ...saved, state: { ...state, pending: { ...state.pending, calls: [{ id: 'c1', name: 'lookup_order', args: { order: 1 } }] } } }
  await checkpoints.save(corrupt)
  const resumed = await agent.resume(first.runId, { checkpoints, decision: { action: 'approve' } }).result
  expect(resumed).toMatchObject({
    reason: 'error',
    error: { code: 'config', message: expect.stringContaining('react state is malformed (/pending/calls/0/args: ') },
  })
  expect(seen).toEqual([])
  expect(await checkpoints.load(first.runId)).toEqual(corrupt)
})

it("a react checkpoint keeps each source's evidence (what the model was shown of it); one past the bound is refused naming the field", async () => {
  const { tool } = lookup({ needsApproval: true })
  const llm = scriptedLLM({
    replies: [
      { text: '', toolCalls: [{ id: 's1', name: 'search', args: { query: 'Eiffel Tower architect' } }] },
      { text: '', toolCalls: [{ id: 'c1', name: 'lookup_order', args: { order: 1 } }] },
      'done [1]',
    ],
  })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({ llm, search, strategy: 'react', react: { tools: [tool], finalAnswer: () => true } })
  const first = agent.research('q', { checkpoints })
  expect((await first.result).reason).toBe('paused')
  const saved = (await checkpoints.load(first.runId))!
  const state = saved.state as { sources: { url: string; text?: string }[] }
  expect(state.sources[0]).toMatchObject({ url: 'https://example.org/eiffel', text: expect.stringContaining('Maurice Koechlin drew the first plans') })
  const swollen = { ...saved, state: { ...state, sources: [{ ...state.sources[0]!, text: 'x '.repeat(EVIDENCE_CHARS) }, ...state.sources.slice(1)] } }
  await checkpoints.save(swollen)
  const resumed = await agent.resume(first.runId, { checkpoints, decision: { action: 'approve' } }).result
  expect(resumed).toMatchObject({ reason: 'error', error: { code: 'config', message: expect.stringContaining('react state is malformed (/sources/0/text: ') } })
})

it('read_page gives a PDF by its pages that match the question, each a source cited with #page=N', async () => {
  const pages = [
    'A study of camelids. Background on herds and the high Andes.',
    `${'Methods and filler about fieldwork, weather and transport. '.repeat(60)}`,
    'Results: llamas hum when they are anxious, at about 140 Hz.',
    `${'Appendix tables of measurements and further filler text. '.repeat(60)}`,
  ]
  const pageStarts: number[] = []
  let text = ''
  for (const page of pages) {
    if (text) text += '\n\n'
    pageStarts.push(text.length)
    text += page
  }
  const url = 'https://example.org/camelids.pdf'
  const llm = scriptedLLM({
    replies: (req, call) => {
      if (call === 0) return { text: '', toolCalls: [{ name: 'read_page', args: { url } }] }
      const tool = req.turns?.find((t) => t.role === 'tool')
      const n = /\[(\d+)\] [^\n]*\n[^\n]*#page=3\n/.exec(tool?.role === 'tool' ? tool.content : '')?.[1]
      return `Llamas hum at about 140 Hz [${n}].`
    },
  })
  const agent = createAgent({
    llm,
    fetch: mockFetch({ pages: { [url]: { title: 'Camelids', text, kind: 'pdf', pages: 4, pageStarts } } }),
    strategy: 'react',
  })
  const run = agent.research('At what pitch do anxious llamas hum?')
  await collect(run)
  const result = await run.result
  const tool = llm.calls[1]!.turns!.find((t) => t.role === 'tool')
  const shown = tool?.role === 'tool' ? tool.content : ''
  expect(shown).toContain(`${url}#page=3\nResults: llamas hum when they are anxious, at about 140 Hz.`)
  expect(shown).toContain('Camelids (page 3)')
  expect(result.citations).toEqual([{ index: 1, url: `${url}#page=3`, title: 'Camelids (page 3)' }])
  expect(result.answer).toBe('Llamas hum at about 140 Hz [1].')
})
