/**
 * The react tool runner, met through react runs: the checks, approvals, concurrency and results of
 * one step's calls. What the runner left in the run's notes (its sources and steps) is read from
 * the checkpoint a store keeps of the run.
 */
import { describe, expect, it } from 'vitest'
import { createAgent, memoryCheckpoints, type AgentOptions, type LLMRequest, type ResearchEvent, type ResearchOptions } from '../../../src/index.js'
import { assertEventInvariants, mockFetch, mockSearch, scriptedLLM } from '../../../src/testing/index.js'
import { EVIDENCE_CHARS } from '../../../src/strategies/shared/cited-answer.js'

type Script = Parameters<typeof scriptedLLM>[0]['replies']
type ReactTool = Extract<NonNullable<NonNullable<AgentOptions['react']>['tools']>[number], { execute: unknown }>

/** What a react checkpoint holds of the tool notes. */
interface Notes {
  sources: { n: number; url: string; title?: string; read: boolean; text?: string }[]
  steps: { outcomes: { call: { id: string }; ok: boolean; content: string }[] }[]
}

const search = mockSearch({ results: { tides: [{ title: 'Tides', url: 'https://example.org/tides', snippet: 'The moon pulls the sea.' }] } })

function setup(tools: ReactTool[], replies: Script, options: { react?: NonNullable<AgentOptions['react']>; fetch?: ReturnType<typeof mockFetch> } = {}) {
  const llm = scriptedLLM({ replies })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({
    llm,
    search,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    strategy: 'react',
    react: { tools, finalAnswer: () => true, resultChars: 3000, ...options.react },
  })
  const read = async (run: ReturnType<typeof agent.research>) => {
    const events: ResearchEvent[] = []
    for await (const event of run) events.push(event)
    return { events, runId: run.runId, result: await run.result, notes: (await checkpoints.load(run.runId))?.state as Notes | undefined }
  }
  const research = (runOptions: ResearchOptions = {}) => read(agent.research('q', { checkpoints, ...runOptions }))
  const resume = (runId: string, decision: Parameters<typeof agent.resume>[1]['decision']) => read(agent.resume(runId, { checkpoints, decision }))
  return { llm, agent, research, resume, read, checkpoints }
}

const echo = (overrides: Partial<ReactTool> = {}) => {
  const seen: Record<string, unknown>[] = []
  const tool: ReactTool = {
    name: 'echo',
    description: 'echoes',
    parameters: { type: 'object', properties: { text: { type: 'string' }, secret: { type: 'string' } }, required: ['text'] },
    execute: (args) => {
      seen.push(args)
      return `echo: ${String(args.text)}`
    },
    ...overrides,
  }
  return { tool, seen }
}

const results = (events: readonly ResearchEvent[]) =>
  events.flatMap((e) => (e.type === 'tool-result' ? [{ callId: e.callId, ok: e.ok, summary: e.summary }] : []))
const toolTurns = (req: LLMRequest) => (req.turns ?? []).filter((t) => t.role === 'tool')

describe('the react tool runner', () => {
  it('refuses an unknown tool, bad arguments and a repeat with a message to the model, and runs the rest', async () => {
    const { tool, seen } = echo()
    const { research, llm } = setup(
      [tool],
      [
        { text: '', toolCalls: [{ id: 'c1', name: 'echo', args: '{"text":"hi"}' }] },
        {
          text: '',
          toolCalls: [
            { id: 'c2', name: 'nope', args: '{}' },
            { id: 'c3', name: 'echo', args: '{"text": 3}' },
            { id: 'c4', name: 'echo', args: 'not json' },
            { id: 'c5', name: 'echo', args: '{"text":"hi"}' },
          ],
        },
        'Done.',
      ],
    )
    const { events, notes } = await research()
    assertEventInvariants(events)
    expect(seen).toEqual([{ text: 'hi' }])
    expect(results(events)).toEqual([
      { callId: 'c1', ok: true, summary: expect.stringContaining('echo: hi') },
      { callId: 'c2', ok: false, summary: expect.stringContaining('there is no tool `nope`') },
      { callId: 'c3', ok: false, summary: expect.stringContaining('invalid arguments') },
      { callId: 'c4', ok: false, summary: expect.stringContaining('JSON object') },
      { callId: 'c5', ok: false, summary: expect.stringContaining('already made this exact call') },
    ])
    // One repeat: one warning, counted in the run's state.
    expect(events.filter((e) => e.type === 'warning').map((e) => e.type === 'warning' && e.code)).toEqual(['repeated-call'])
    expect((notes as Notes & { repeats: number }).repeats).toBe(1)
    expect(notes!.steps.map((s) => s.outcomes.length)).toEqual([1, 4])
    // The model was shown every refusal.
    expect(toolTurns(llm.calls[2]!).map((t) => t.role === 'tool' && t.callId)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5'])
  })

  it('the built-in search numbers its sources in the notes', async () => {
    const { research, llm } = setup([], [{ text: '', toolCalls: [{ id: 'c1', name: 'search', args: '{"query":"tides"}' }] }, 'The moon pulls the sea [1].'])
    const { events, notes } = await research()
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['tool-call', 'query', 'result', 'tool-result']))
    // The snippet the model was shown is the source's evidence.
    expect(notes!.sources).toEqual([{ n: 1, url: 'https://example.org/tides', title: 'Tides', read: false, text: 'The moon pulls the sea.' }])
    expect(notes!.steps[0]!.outcomes[0]!.content).toContain('[1] Tides')
    expect(toolTurns(llm.calls[1]!)).toEqual([expect.objectContaining({ callId: 'c1', content: expect.stringContaining('[1] Tides') })])
  })

  it("a page read adds the text the model was shown to its source's evidence, bounded", async () => {
    const long = `${'The sun pulls the sea as well. '.repeat(400)}The last sentence.`
    const fetch = mockFetch({ pages: { 'https://example.org/tides': { title: 'Tides', text: `Spring tides follow the new moon. ${long}` } } })
    const { research } = setup(
      [],
      [
        { text: '', toolCalls: [{ id: 'c1', name: 'search', args: '{"query":"tides"}' }] },
        { text: '', toolCalls: [{ id: 'c2', name: 'read_page', args: '{"url":"https://example.org/tides"}' }] },
        'Spring tides follow the new moon [1].',
      ],
      { fetch },
    )
    const { notes } = await research()
    const [source] = notes!.sources
    expect(source).toMatchObject({ n: 1, read: true })
    // The snippet, then what the model was shown of the page: nothing it was not shown.
    const [snippet, ...page] = source!.text!.split('\n')
    expect(snippet).toBe('The moon pulls the sea.')
    const shown = notes!.steps.at(-1)!.outcomes[0]!.content
    expect(page.join('\n').length).toBeGreaterThan(1000)
    expect(shown).toContain(page.join('\n'))
    expect(source!.text!.length).toBeLessThanOrEqual(EVIDENCE_CHARS)
  })

  it('stops at a call that needs approval before anything runs, and redacts its sensitive fields in the event', async () => {
    const { tool, seen } = echo({ needsApproval: true, sensitive: ['secret'] })
    const { research, resume } = setup(
      [tool],
      [
        {
          text: '',
          toolCalls: [
            { id: 'c1', name: 'search', args: '{"query":"tides"}' },
            { id: 'c2', name: 'echo', args: '{"text":"hi","secret":"s3cret"}' },
          ],
        },
        'Done.',
      ],
    )
    const paused = await research()
    expect(paused.result).toMatchObject({ reason: 'paused', request: { kind: 'tool-call', callId: 'c2' } })
    expect(paused.events.find((e) => e.type === 'tool-call' && e.callId === 'c2')).toMatchObject({ args: { text: 'hi', secret: '[redacted]' } })
    expect(paused.events.some((e) => e.type === 'query')).toBe(false)
    expect(paused.notes!.steps).toEqual([])

    const approved = await resume(paused.runId, { action: 'edit', args: { text: 'edited' } })
    expect(approved.result.reason).toBe('answered')
    expect(
      results(approved.events)
        .map((r) => [r.callId, r.ok])
        .sort(),
    ).toEqual([
      ['c1', true],
      ['c2', true],
    ])
    expect(seen).toEqual([{ text: 'edited' }])
  })

  it('a refused approval reaches the model with its message; approved arguments that break the schema are a config error', async () => {
    const { tool, seen } = echo({ needsApproval: true })
    const replies: Script = (req) => (toolTurns(req).length ? 'Done.' : { text: '', toolCalls: [{ id: 'c1', name: 'echo', args: '{"text":"hi"}' }] })
    const { research, resume, llm } = setup([tool], replies)
    const first = await research()
    const refused = await resume(first.runId, { action: 'reject', reason: 'not now' })
    expect(results(refused.events)).toEqual([{ callId: 'c1', ok: false, summary: expect.stringContaining('the user refused this call: not now') }])
    expect(toolTurns(llm.calls.at(-1)!)).toEqual([expect.objectContaining({ callId: 'c1', content: expect.stringContaining('not now'), isError: true })])
    expect(seen).toEqual([])
    const second = await research()
    const broken = await resume(second.runId, { action: 'edit', args: { text: 1 } })
    expect(broken.result).toMatchObject({ reason: 'error', error: { code: 'config' } })
    expect(seen).toEqual([])
  })

  it('without a checkpoint store a call that needs approval is refused with a warning instead of pausing', async () => {
    const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ id: 'c1', name: 'search', args: '{"query":"tides"}' }] }, 'Done.'] })
    const agent = createAgent({ llm, search, strategy: 'react', react: { finalAnswer: () => true } })
    // The caller's answer is to pause, and there is nowhere to pause in.
    const run = agent.research('q', { review: { tools: true }, decide: () => ({ action: 'pause' }) })
    const events: ResearchEvent[] = []
    for await (const event of run) events.push(event)
    expect((await run.result).reason).toBe('answered')
    expect(events.find((e) => e.type === 'warning')).toMatchObject({ code: 'approval-unavailable' })
    expect(results(events)).toEqual([{ callId: 'c1', ok: false, summary: expect.stringContaining('needs approval') }])
  })

  it("a step's calls run at once within the limiter, and afterTool may replace what the model sees", async () => {
    const started: string[] = []
    const release: (() => void)[] = []
    const slow: ReactTool = {
      name: 'slow',
      description: 'waits',
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
      execute: (args) =>
        new Promise((resolve) => {
          started.push(String(args.n))
          release.push(() => resolve(`done ${String(args.n)}`))
        }),
    }
    const { research, llm } = setup(
      [slow],
      [{ text: '', toolCalls: [1, 2, 3].map((n) => ({ id: `c${n}`, name: 'slow', args: JSON.stringify({ n }) })) }, 'Done.'],
      {
        react: { concurrency: 2, afterTool: (call, result) => ({ content: `${result.content} (checked ${call.callId})` }) },
      },
    )
    const running = research()
    await expect.poll(() => started.length).toBe(2)
    expect(started).toEqual(['1', '2'])
    release.shift()!()
    await expect.poll(() => started.length).toBe(3)
    for (const done of release.splice(0)) done()
    const { events } = await running
    expect(results(events).map((r) => r.summary)).toEqual(
      expect.arrayContaining(['done 1 (checked c1)', 'done 2 (checked c2)', 'done 3 (checked c3)'].map((s) => expect.stringContaining(s))),
    )
    expect(toolTurns(llm.calls[1]!).map((t) => t.role === 'tool' && t.content)).toEqual(['done 1 (checked c1)', 'done 2 (checked c2)', 'done 3 (checked c3)'])
  })
})
