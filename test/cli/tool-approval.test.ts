import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Checkpoint } from '../../src/index.js'
import { cliFlags, startFakeBackend, type ChatTurn, type FakeBackend, type ScriptedReply } from './fake-backend.js'
import { laconic } from './laconic.js'
import { runCli } from './run-cli.js'

it('--tool-approval outside a terminal, or without react, is a usage error', async () => {
  const notTerminal = await runCli(['--strategy', 'react', '--tool-approval', '--endpoint', 'http://127.0.0.1:9', 'q'])
  expect(notTerminal.code).toBe(2)
  expect(notTerminal.stderr).toContain('--tool-approval asks on a terminal')
  const otherStrategy = await runCli(['--strategy', 'deep', '--tool-approval', 'q'])
  expect(otherStrategy.code).toBe(2)
  expect(otherStrategy.stderr).toContain('--tool-approval works with --strategy react')
})

describe('a react run started with --tool-approval, interrupted, then resumed without the flag', { timeout: 60_000 }, () => {
  const ANSWER = 'Air scatters blue light the most [1].'
  let backend: FakeBackend
  let dir: string
  /** Set while a first run goes on: its second model call interrupts it (as Ctrl-C or a kill would), after the first step's checkpoint. */
  let interruptAt: AbortController | undefined
  /** The model: search "sky colour", then search "blue wavelengths", then answer from what it has. */
  const model = (turn: ChatTurn): ScriptedReply => {
    const results = turn.messages.filter((m) => m.role === 'tool').length
    if (results === 0) return { text: '', toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"query":"sky colour"}' }] }
    if (results === 1 && interruptAt) {
      interruptAt.abort()
      interruptAt = undefined
      return { text: 'Now the', stallAfterTokens: 1 }
    }
    if (results === 1) return { text: '', toolCalls: [{ id: 'call_2', name: 'search', arguments: '{"query":"blue wavelengths"}' }] }
    return { text: ANSWER }
  }
  const results = (query: string) => [{ title: `About ${query}`, url: `https://example.org/${encodeURIComponent(query)}`, snippet: `Blue light (${query}).` }]
  beforeAll(async () => {
    backend = await startFakeBackend({ reply: model, results })
    dir = await mkdtemp(join(tmpdir(), 'laconic-tool-approval-'))
  })
  afterAll(async () => {
    await backend.close()
    await rm(dir, { recursive: true, force: true })
  })
  const against = () => cliFlags(backend)
  /** The CLI in process, on a terminal that answers from `answers` and records each question. */
  const onTerminal = async (argv: string[], answers: string[], interrupt = new AbortController()) => {
    const asked: string[] = []
    const { code, stdout } = await laconic(argv, { answers, asked, interrupt: interrupt.signal })
    return { code, stdout, asked }
  }
  /** A run that asked before its first search (y), ran it, and was interrupted in its second step. */
  const interrupted = async () => {
    backend.searches.length = 0
    interruptAt = new AbortController()
    const first = await onTerminal(
      [...against(), '--strategy', 'react', '--tool-approval', '--checkpoint-dir', dir, 'Why is the sky blue?'],
      ['y'],
      interruptAt,
    )
    expect(first.code).toBe(130)
    expect(first.asked).toEqual([expect.stringContaining('run search {"query":"sky colour"}?')])
    expect(backend.searches).toEqual(['sky colour'])
    const files = await readdir(dir)
    const saved = (
      await Promise.all(files.filter((f) => f.endsWith('.json')).map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as Checkpoint))
    ).find((c) => c.status === 'running')!
    // The review switch is kept with the run's inputs.
    expect(saved.input.review).toEqual({ tools: true })
    return saved.runId
  }

  it('on a terminal, the resumed run asks before its next tool call, and a no refuses it', async () => {
    const runId = await interrupted()
    const resumed = await onTerminal(['resume', runId, '--checkpoint-dir', dir, ...against()], ['n'])
    expect(resumed.asked).toEqual([expect.stringContaining('run search {"query":"blue wavelengths"}?')])
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('Air scatters blue light the most')
    expect(backend.searches).toEqual(['sky colour'])
  })

  it('without a terminal, the resumed run pauses on its next tool call (exit 4), and --approve runs it', async () => {
    const runId = await interrupted()
    const resumed = await runCli(['resume', runId, '--checkpoint-dir', dir, ...against()])
    expect(resumed.stderr).not.toContain('error')
    expect(resumed.code).toBe(4)
    expect(resumed.stderr).toContain(`laconic resume ${runId} --checkpoint-dir ${dir} --approve [--tool-args JSON] (or --reject [REASON])`)
    expect(backend.searches).toEqual(['sky colour'])
    const approved = await runCli(['resume', runId, '--checkpoint-dir', dir, '--approve', ...against()])
    expect(approved.code).toBe(0)
    expect(backend.searches).toEqual(['sky colour', 'blue wavelengths'])
    expect(approved.stdout).toContain('Air scatters blue light the most')
  })
})
