import { describe, expect, it } from 'vitest'
import { createAgent, type ResearchEvent, type ResearchResult } from '../../src/index.js'
import { jsonRenderer, ndjsonRenderer, prettyRenderer, type Output, type Renderer } from '../../src/cli/render/index.js'
import { formatCitations } from '../../src/cli/render/pretty.js'
import { createStatusArea } from '../../src/cli/render/status-area.js'
import { formatDollars, statsLine, createStats } from '../../src/cli/render/progress-stats.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { zeroCost } from '../support/cost.js'

function sink(isTTY: boolean, columns = 80): Output & { text: string } {
  return {
    text: '',
    isTTY,
    columns,
    write(chunk: string) {
      this.text += chunk
      return true
    },
  }
}

/** A real scratchpad run on the testing kit: one search, then the answer. */
async function scriptedRun(): Promise<{ events: ResearchEvent[]; result: ResearchResult }> {
  const llm = scriptedLLM({
    replies: ['Action: Search\nQuery: sky colour', 'Air scatters blue light most [1].', 'Action: Answer', 'Blue, because air scatters blue light most [1].'],
  })
  const search = mockSearch({ results: () => [{ title: 'Sky', url: 'https://example.org/sky', snippet: 'blue light scatters' }] })
  const run = createAgent({ llm, search }).research('Why is the sky blue?')
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return { events: assertEventInvariants(events) as ResearchEvent[], result: await run.result }
}

function feed(renderer: Renderer, events: readonly ResearchEvent[], result: ResearchResult, interrupted = false) {
  for (const event of events) renderer.event(event)
  renderer.end(result, { interrupted })
}

describe('renderers', () => {
  it('ndjson writes each event as one JSON line, and nothing at the end', async () => {
    const { events, result } = await scriptedRun()
    const out = sink(false)
    feed(ndjsonRenderer(out), events, result)
    expect(
      out.text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(events)
  })

  it('json writes only the result, once the run ended', async () => {
    const { events, result } = await scriptedRun()
    const out = sink(false)
    const renderer = jsonRenderer(out)
    for (const event of events) renderer.event(event)
    expect(out.text).toBe('')
    renderer.end(result, { interrupted: false })
    expect(JSON.parse(out.text)).toEqual(result)
  })

  it('pretty without a TTY: answer on stdout, progress lines and a summary on stderr, no ANSI', async () => {
    const { events, result } = await scriptedRun()
    const stdout = sink(false)
    const stderr = sink(false)
    let clock = 1_000
    feed(prettyRenderer({ stdout, stderr, now: () => (clock += 100) }), events, result)
    expect(stdout.text).toBe('Blue, because air scatters blue light most [1].\n\nSources:\n[1] Sky — https://example.org/sky\n')
    expect(stderr.text).toContain('[query q1] sky colour')
    expect(stderr.text).toContain('[notes] iteration 1: 55 chars')
    expect(stderr.text).toMatch(/\[done\] answered · 1 query · [\d.]+s · \$0 · 4 model calls · \d+ tokens\n$/)
    expect(stderr.text).not.toContain('\u001b[')
  })

  it("pretty shows a react run's tool calls and results as progress lines, control characters removed", async () => {
    const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ id: 'c1', name: 'search', args: { query: 'sky\u001b[2J colour' } }] }, 'Blue [1].'] })
    const search = mockSearch({ results: () => [{ title: 'Sky', url: 'https://example.org/sky', snippet: 'blue light scatters' }] })
    const run = createAgent({ llm, search, strategy: 'react' }).research('Why is the sky blue?')
    const events: ResearchEvent[] = []
    for await (const event of run) events.push(event)
    const stdout = sink(false)
    const stderr = sink(false)
    feed(prettyRenderer({ stdout, stderr, now: () => 0 }), events, await run.result)
    expect(stderr.text).toContain('[tool c1] search {"query":"sky\\u001b[2J colour"}')
    expect(stderr.text).toContain('[tool c1] ok: [1] Sky https://example.org/sky blue light scatters')
    expect(stdout.text).toBe('Blue [1].\n\nSources:\n[1] Sky — https://example.org/sky\n')
  })

  it('pretty prints citations after the answer', () => {
    const stdout = sink(false)
    const renderer = prettyRenderer({ stdout, stderr: sink(false), now: () => 0 })
    const result = {
      answer: 'A [1].',
      citations: [
        { index: 1, url: 'https://a.example', title: 'A' },
        { index: 2, url: 'https://b.example' },
      ],
      facts: [],
      knowledge: '',
      reason: 'answered',
    } as unknown as ResearchResult
    renderer.event({ type: 'answer', text: 'A [1].', citations: result.citations, runId: 'r', seq: 1, time: 0 })
    renderer.end({ ...result, cost: createStats(0).stats.cost }, { interrupted: false })
    expect(stdout.text).toBe('A [1].\n\nSources:\n[1] A — https://a.example\n[2] https://b.example\n')
  })

  it('pretty with --verify: a revision streams under a line of its own, then the sources and the claims not supported with their evidence', () => {
    const stdout = sink(false)
    const stderr = sink(false)
    const renderer = prettyRenderer({ stdout, stderr, now: () => 0 })
    const stamp = { runId: 'r', time: 0 }
    const claims = [
      { index: 0, text: 'A is 1 [1].', citations: [1], verdict: 'supported', score: 1 },
      { index: 1, text: 'B is 3 [1].', citations: [1], verdict: 'unsupported', evidence: 'the source does not give the number 3: B is 2.', score: 0.5 },
    ] as const
    const citations = [{ index: 1, url: 'https://a.example' }]
    renderer.event({ type: 'answer-token', text: 'A is 1 [1]. B is 3 [1].', seq: 1, ...stamp })
    renderer.event({ type: 'answer', text: 'A is 1 [1]. B is 3 [1].', citations, seq: 2, ...stamp })
    for (const [n, claim] of claims.entries()) renderer.event({ type: 'claim', ...claim, citations: [1], seq: 3 + n, ...stamp })
    renderer.event({ type: 'answer-token', text: 'A is 1 [1].', revised: true, seq: 5, ...stamp })
    renderer.event({ type: 'answer', text: 'A is 1 [1].', citations, revised: true, seq: 6, ...stamp })
    const result = {
      answer: 'A is 1 [1].',
      draft: 'A is 1 [1]. B is 3 [1].',
      citations,
      facts: [],
      knowledge: '',
      reason: 'answered',
      claims,
      supportRate: 0.5,
    }
    renderer.end({ ...(result as unknown as ResearchResult), cost: createStats(0).stats.cost }, { interrupted: false })
    expect(stdout.text).toBe(
      'A is 1 [1]. B is 3 [1].\n\n── Revised without the unsupported sentences ──\n\nA is 1 [1].\n' +
        '\nSources:\n[1] https://a.example\n' +
        '\nClaims checked: 1 supported · 1 unsupported (support rate 50%)\n  ✗ B is 3 [1].\n      source: the source does not give the number 3: B is 2.\n',
    )
    expect(stderr.text).toContain('[claim 2] unsupported: B is 3 [1].')
  })

  it('pretty on an interrupt without an answer prints the facts gathered', () => {
    const stdout = sink(false)
    const renderer = prettyRenderer({ stdout, stderr: sink(false), now: () => 0 })
    const cost = createStats(0).stats.cost
    renderer.end(
      { answer: '', citations: [], facts: [{ id: 'f1', text: 'Air scatters blue.', sources: ['https://x.example'] }], knowledge: '', cost, reason: 'aborted' },
      { interrupted: true },
    )
    expect(stdout.text).toBe('\nGathered so far:\n- Air scatters blue. (https://x.example)\n')
  })

  it('pretty on a TTY: a live status area redrawn in place, cleared when a shared terminal gets the answer', async () => {
    const { events, result } = await scriptedRun()
    const stdout = sink(true)
    const stderr = sink(true)
    const ticks: (() => void)[] = []
    const renderer = prettyRenderer({
      stdout,
      stderr,
      now: () => 0,
      every: (_ms, fn) => {
        ticks.push(fn)
        return () => ticks.splice(0)
      },
    })
    const firstToken = events.findIndex((e) => e.type === 'answer-token')
    for (const event of events.slice(0, firstToken)) renderer.event(event)
    ticks[0]?.() // the clock redraws on its own too
    expect(stderr.text).toContain('searching "sky colour"')
    expect(stderr.text).toContain('1 query · 0.0s · $0')
    expect(stderr.text).toContain('\r\u001b[1A\u001b[J') // two-line area erased before each redraw
    expect(stderr.text).not.toContain('[query q1]') // no log lines on a terminal
    const drawnBeforeAnswer = stderr.text.length
    for (const event of events.slice(firstToken)) renderer.event(event)
    // Frozen while the answer streams to the same terminal: the only write is the erase.
    expect(stderr.text.slice(drawnBeforeAnswer)).toBe('\r\u001b[1A\u001b[J')
    renderer.end(result, { interrupted: false })
    expect(ticks).toHaveLength(0) // the clock stopped
    expect(stdout.text).toBe('Blue, because air scatters blue light most [1].\n\nSources:\n[1] Sky — https://example.org/sky\n')
    expect(stderr.text).toMatch(/\[done\] answered .*\n$/)
  })
})

describe('status area', () => {
  it('draws lines, erases exactly what it drew, and never wraps', () => {
    const out = sink(true, 20)
    const area = createStatusArea(out)
    area.draw(['one'])
    area.draw(['a much longer line than twenty columns', 'two'])
    area.clear()
    area.clear()
    expect(out.text).toBe('one' + '\r\u001b[J' + 'a much longer line…\ntwo' + '\r\u001b[1A\u001b[J')
  })

  it('styles apply after the cut, so an escape is never cut in half; 0 columns means unknown (80)', () => {
    const narrow = sink(true, 12)
    createStatusArea(narrow).draw(['abcdefghijklmnop'], (line) => `\u001b[2m${line}\u001b[22m`)
    expect(narrow.text).toBe('\u001b[2mabcdefghij…\u001b[22m')
    const unknown = sink(true, 0)
    createStatusArea(unknown).draw(['x'.repeat(100)])
    expect(unknown.text).toBe(`${'x'.repeat(78)}…`)
  })
})

describe('stats', () => {
  it('counts queries, facts after supersedes, pages and the latest cost', () => {
    const { stats, add } = createStats(0)
    const stamp = { runId: 'r', seq: 0, time: 0 }
    add({ ...stamp, type: 'query', queryId: 'q1', query: 'a' })
    add({ ...stamp, type: 'fact', fact: { id: 'f1', text: 'x', sources: [] } })
    add({ ...stamp, type: 'fact', fact: { id: 'f2', text: 'x and y', sources: [] }, supersedes: ['f1'] })
    add({ ...stamp, type: 'page', url: 'https://p.example', chars: 10 })
    expect(statsLine(stats, 2_500)).toBe('1 query · 1 fact · 1 page · 2.5s · $0')
    expect([formatDollars(0.0012), formatDollars(1.5)]).toEqual(['$0.0012', '$1.50'])
  })

  it('says "cost unknown" when a call had no known price, never $0; leaves out "0 facts"', () => {
    const { stats, add } = createStats(0)
    const stamp = { runId: 'r', seq: 0, time: 0 }
    add({ ...stamp, type: 'query', queryId: 'q1', query: 'a' })
    const total = { ...zeroCost(), inputTokens: 10, outputTokens: 5, llmCalls: 1, unpricedCalls: 1, searches: 1 }
    add({ ...stamp, type: 'cost', delta: total, total })
    expect(statsLine(stats, 1_000)).toBe('1 query · 1.0s · cost unknown')
  })
})

describe('terminal safety', () => {
  // Queries, facts and page titles come from models and web pages: an ESC in them would let a
  // page drive the user's terminal (clear it, retitle it, hide text) through the progress output.
  const hostile = 'evil\u001b]0;pwned\u0007 \u001b[2Jtitle\u009b31m\u0000end'
  const stamp = { runId: 'r', time: 0 }

  it('progress lines, the status area and citations print no control characters from run content', () => {
    const stderr = sink(true)
    const stdout = sink(true)
    const renderer = prettyRenderer({ stdout, stderr, now: () => 0, every: () => () => {} })
    renderer.event({ ...stamp, seq: 0, type: 'run-start', question: hostile, strategy: 'scratchpad' })
    renderer.event({ ...stamp, seq: 1, type: 'query', queryId: 'q1', query: hostile })
    renderer.event({ ...stamp, seq: 2, type: 'warning', code: 'x', message: hostile })
    renderer.event({ ...stamp, seq: 3, type: 'fact', fact: { id: 'f1', text: hostile, sources: [`https://e.org/${hostile}`] } })
    const plain = sink(false)
    const lines = prettyRenderer({ stdout: sink(false), stderr: plain, now: () => 0 })
    lines.event({ ...stamp, seq: 0, type: 'run-start', question: hostile, strategy: 'scratchpad' })
    lines.event({ ...stamp, seq: 1, type: 'fact', fact: { id: 'f1', text: hostile, sources: [`https://e.org/${hostile}`] } })
    const cited = [{ index: 1, url: `https://e.org/${hostile}`, title: hostile }]

    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this test looks for
    const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/
    // The status area's own escapes (cursor moves, erase) are CSI sequences with no OSC, BEL, C1 or NUL.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matches the status area's own escape sequences
    expect(stderr.text.replace(/\r|\u001b\[(\d+A|J|2m|22m)/g, '')).not.toMatch(control)
    expect(plain.text).not.toMatch(control)
    expect(plain.text).toContain('evil]0;pwned [2Jtitle31mend')
    expect(formatCitations(cited)).not.toMatch(control)
  })

  it('the streamed answer is cleaned on a terminal and passed verbatim to a pipe', () => {
    const tty = sink(true)
    const pipe = sink(false)
    for (const stdout of [tty, pipe]) {
      const renderer = prettyRenderer({ stdout, stderr: sink(false), now: () => 0 })
      renderer.event({ ...stamp, seq: 0, type: 'answer-token', text: `line one\n${hostile}` })
    }
    expect(tty.text).toBe('line one\nevil]0;pwned [2Jtitle31mend')
    expect(pipe.text).toBe(`line one\n${hostile}`)
  })
})
