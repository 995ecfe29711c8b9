/** The react tool runner on its own: checks, approvals, concurrency and results of one step's calls, without a model. */
import { describe, expect, it } from 'vitest'
import { memoryCheckpoints, type LLMChunk } from '../../../src/index.js'
import type { StrategyEvent } from '../../../src/strategy.js'
import type { InterruptDecision } from '../../../src/index.js'
import { createContext } from '../../../src/core/run/context.js'
import type { AgentOptions } from '../../../src/index.js'
import { ToolNotes } from '../../../src/strategies/react/tool-notes.js'
import { toolRunner } from '../../../src/strategies/react/tool-runner.js'
import { builtinTools, userTools } from '../../../src/strategies/react/tools.js'
import { mockFetch, mockSearch } from '../../../src/testing/index.js'
import { EVIDENCE_CHARS } from '../../../src/strategies/shared/cited-answer.js'

type ToolCall = Omit<Extract<LLMChunk, { type: 'tool-call' }>, 'type'>

type ReactOptions = NonNullable<AgentOptions['react']>
type ReactTool = Extract<NonNullable<NonNullable<AgentOptions['react']>['tools']>[number], { execute: unknown }>

async function drain<T>(step: AsyncGenerator<StrategyEvent, T>): Promise<{ events: StrategyEvent[]; value: T }> {
  const events: StrategyEvent[] = []
  for (;;) {
    const next = await step.next()
    if (next.done) return { events, value: next.value }
    events.push(next.value)
  }
}

const search = mockSearch({ results: { tides: [{ title: 'Tides', url: 'https://example.org/tides', snippet: 'The moon pulls the sea.' }] } })

function setup(
  tools: ReactTool[],
  options: { hooks?: ReactOptions; reviewTools?: boolean; store?: boolean; concurrency?: number; fetch?: ReturnType<typeof mockFetch> } = {},
) {
  const ctx = createContext({
    runId: 'r',
    question: 'q',
    signal: new AbortController().signal,
    options: { search, ...(options.fetch ? { fetch: options.fetch } : {}) },
    input: { ...(options.store === false ? {} : { checkpoints: memoryCheckpoints() }), ...(options.reviewTools ? { review: { tools: true } } : {}) },
    concurrency: options.concurrency ?? 4,
  })
  const notes = new ToolNotes()
  const made = new Set<string>()
  let repeats = 0
  const all = [...builtinTools({ search: true, fetch: options.fetch !== undefined }), ...userTools(tools)]
  const runner = toolRunner({
    ctx,
    notes,
    tools: new Map(all.map((t) => [t.spec.name, t])),
    made,
    resultChars: 3000,
    hooks: options.hooks ?? {},
    onRepeat: () => repeats++,
  })
  const visible = new Set(all.map((t) => t.spec.name))
  const run = (calls: ToolCall[], decisions?: Record<string, InterruptDecision>) =>
    drain(runner.run({ step: 1, text: 'thinking', calls, visible, ...(decisions ? { decisions } : {}) }))
  return { run, notes, made, repeats: () => repeats }
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

const results = (events: StrategyEvent[]) => events.flatMap((e) => (e.type === 'tool-result' ? [{ callId: e.callId, ok: e.ok, summary: e.summary }] : []))

describe('toolRunner', () => {
  it('refuses an unknown tool, bad arguments and a repeat with a message to the model, and runs the rest', async () => {
    const { tool, seen } = echo()
    const { run, notes, repeats } = setup([tool])
    const first = await run([{ id: 'c1', name: 'echo', args: '{"text":"hi"}' }])
    expect(first.value).toEqual({ ran: true })
    const second = await run([
      { id: 'c2', name: 'nope', args: '{}' },
      { id: 'c3', name: 'echo', args: '{"text": 3}' },
      { id: 'c4', name: 'echo', args: 'not json' },
      { id: 'c5', name: 'echo', args: '{"text":"hi"}' },
    ])
    expect(seen).toEqual([{ text: 'hi' }])
    expect(results(second.events)).toEqual([
      { callId: 'c2', ok: false, summary: expect.stringContaining('there is no tool `nope`') },
      { callId: 'c3', ok: false, summary: expect.stringContaining('invalid arguments') },
      { callId: 'c4', ok: false, summary: expect.stringContaining('JSON object') },
      { callId: 'c5', ok: false, summary: expect.stringContaining('already made this exact call') },
    ])
    expect(second.events.filter((e) => e.type === 'warning').map((e) => e.type === 'warning' && e.code)).toEqual(['repeated-call'])
    expect(repeats()).toBe(1)
    expect(notes.steps.map((s) => s.outcomes.length)).toEqual([1, 4])
  })

  it('the built-in search numbers its sources in the notes', async () => {
    const { run, notes } = setup([])
    const { events } = await run([{ id: 'c1', name: 'search', args: '{"query":"tides"}' }])
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['tool-call', 'query', 'result', 'tool-result']))
    // The snippet the model was shown is the source's evidence.
    expect(notes.sources).toEqual([{ n: 1, url: 'https://example.org/tides', title: 'Tides', read: false, text: 'The moon pulls the sea.' }])
    expect(notes.steps[0]!.outcomes[0]!.content).toContain('[1] Tides')
  })

  it("a page read adds the text the model was shown to its source's evidence, bounded", async () => {
    const long = `${'The sun pulls the sea as well. '.repeat(400)}The last sentence.`
    const fetch = mockFetch({ pages: { 'https://example.org/tides': { title: 'Tides', text: `Spring tides follow the new moon. ${long}` } } })
    const { run, notes } = setup([], { fetch })
    await run([{ id: 'c1', name: 'search', args: '{"query":"tides"}' }])
    await run([{ id: 'c2', name: 'read_page', args: '{"url":"https://example.org/tides"}' }])
    const [source] = notes.sources
    expect(source).toMatchObject({ n: 1, read: true })
    // The snippet, then what the model was shown of the page: nothing it was not shown.
    const [snippet, ...page] = source!.text!.split('\n')
    expect(snippet).toBe('The moon pulls the sea.')
    const shown = notes.steps.at(-1)!.outcomes[0]!.content
    expect(page.join('\n').length).toBeGreaterThan(1000)
    expect(shown).toContain(page.join('\n'))
    expect(source!.text!.length).toBeLessThanOrEqual(EVIDENCE_CHARS)
  })

  it('stops at a call that needs approval before anything runs, and redacts its sensitive fields in the event', async () => {
    const { tool, seen } = echo({ needsApproval: true, sensitive: ['secret'] })
    const { run, notes } = setup([tool])
    const calls = [
      { id: 'c1', name: 'search', args: '{"query":"tides"}' },
      { id: 'c2', name: 'echo', args: '{"text":"hi","secret":"s3cret"}' },
    ]
    const paused = await run(calls)
    expect(paused.value).toMatchObject({ ran: false, waiting: { id: 'c2' } })
    expect(paused.events.find((e) => e.type === 'tool-call' && e.callId === 'c2')).toMatchObject({ args: { text: 'hi', secret: '[redacted]' } })
    expect(paused.events.some((e) => e.type === 'query')).toBe(false)
    expect(notes.steps).toEqual([])

    const approved = await run(calls, { c2: { action: 'edit', args: { text: 'edited' } } })
    expect(approved.value).toEqual({ ran: true })
    expect(seen).toEqual([{ text: 'edited' }])
  })

  it('a refused approval reaches the model with its message; approved arguments that break the schema are a config error', async () => {
    const { tool, seen } = echo({ needsApproval: true })
    const { run } = setup([tool])
    const call = { id: 'c1', name: 'echo', args: '{"text":"hi"}' }
    const refused = await run([call], { c1: { action: 'reject', reason: 'not now' } })
    expect(results(refused.events)).toEqual([{ callId: 'c1', ok: false, summary: expect.stringContaining('the user refused this call: not now') }])
    expect(seen).toEqual([])
    await expect(run([call], { c1: { action: 'edit', args: { text: 1 } } })).rejects.toMatchObject({ code: 'config' })
  })

  it('without a checkpoint store a call that needs approval is refused with a warning instead of pausing', async () => {
    const { run } = setup([], { reviewTools: true, store: false })
    const { value, events } = await run([{ id: 'c1', name: 'search', args: '{"query":"tides"}' }])
    expect(value).toEqual({ ran: true })
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
    const { run } = setup([slow], { concurrency: 2, hooks: { afterTool: (call, result) => ({ content: `${result.content} (checked ${call.callId})` }) } })
    const running = run([1, 2, 3].map((n) => ({ id: `c${n}`, name: 'slow', args: JSON.stringify({ n }) })))
    await expect.poll(() => started.length).toBe(2)
    expect(started).toEqual(['1', '2'])
    release.shift()!()
    await expect.poll(() => started.length).toBe(3)
    for (const done of release.splice(0)) done()
    const { events } = await running
    expect(results(events).map((r) => r.summary)).toEqual(
      expect.arrayContaining(['done 1 (checked c1)', 'done 2 (checked c2)', 'done 3 (checked c3)'].map((s) => expect.stringContaining(s))),
    )
  })
})
