/** The CLI's checkpoint flags: parsing, --approve-plan on a (scripted) terminal (the prompt itself: decide-prompt.test.ts), and a run killed with SIGKILL that `laconic resume` completes. */
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Checkpoint, ResearchEvent } from '../../src/index.js'
import { fromSSE } from '../../src/streams/index.js'
import { type ChatTurn, cliFlags, startFakeBackend, type FakeBackend } from './fake-backend.js'
import { laconic, USAGE } from './laconic.js'
import { REPO, runCli } from './run-cli.js'
import { roleOf } from '../support/roles.js'

const ANSWER = 'The sky is blue because air scatters blue light the most.'
const searchThenAnswer = (stall: boolean) => (turn: { system: string; prompt: string }) => {
  if (roleOf(turn.system) === 'scratchpad planner') return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: why is the sky blue' : 'Action: Answer'
  if (roleOf(turn.system) === 'scratchpad synthesizer') return 'Air scatters blue light more than red.'
  if (roleOf(turn.system) === 'scratchpad finalizer') return stall ? { text: ANSWER, stallAfterTokens: 3 } : ANSWER
  return 'unexpected'
}
const results = () => [{ title: 'Rayleigh scattering', url: 'https://example.org/rayleigh', snippet: 'Blue light is scattered more.' }]

describe('checkpoint flags', () => {
  let backend: FakeBackend
  let dir: string
  beforeAll(async () => {
    backend = await startFakeBackend({ reply: searchThenAnswer(false), results })
    dir = await mkdtemp(join(tmpdir(), 'laconic-flags-'))
  })
  afterAll(async () => {
    await backend.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('--checkpoint-dir and --approve-plan reach the run; `resume RUN_ID` is a resume', async () => {
    const paused = await laconic([...cliFlags(backend), '--checkpoint-dir', dir, '--approve-plan', 'why?'])
    expect(paused.code).toBe(4)
    const runId = /laconic: run ([\w-]+) \(checkpoints in /.exec(paused.stderr)?.[1]
    const saved = JSON.parse(await readFile(join(dir, `${runId}.json`), 'utf8')) as Checkpoint
    expect(saved).toMatchObject({ question: 'why?', status: 'paused', input: { review: { plan: true } } })
    // A resume looks for its run, and asks no question.
    const resumed = await laconic(['resume', 'abc-123', '--checkpoint-dir', dir, '-m', 'x'])
    expect(resumed.code).toBe(1)
    expect(resumed.stderr).toContain('no checkpoint for run abc-123 in that --checkpoint-dir')
    // A question that starts with "resume" stays a question.
    for (const argv of [['resume my cv'], ['resume', 'my', 'cv']]) {
      const asked = await laconic([...cliFlags(backend), '-f', 'ndjson', ...argv])
      expect(asked.code).toBe(0)
      expect(JSON.parse(asked.stdout.split('\n')[0] as string)).toMatchObject({ type: 'run-start', question: 'resume my cv' })
    }
  })

  it.each([
    [['resume', 'abc'], 'needs --checkpoint-dir DIR'],
    [['resume', 'abc', '--checkpoint-dir', 'cp', '--strategy', 'deep'], 'drop --strategy'],
    [['resume', 'abc', '--checkpoint-dir', 'cp', '--approve-plan'], 'drop --approve-plan'],
    [['--serve', '--approve-plan'], '--approve-plan with --serve needs --checkpoint-dir DIR'],
    [['--checkpoint-dir', ' ', 'q'], '--checkpoint-dir is empty'],
  ])('%j is a usage error', async (argv, message) => {
    const { code, stderr } = await laconic(argv)
    expect(code).toBe(USAGE)
    expect(stderr).toMatch(/^laconic: .*\n$/)
    expect(stderr).toContain(message)
  })
})

describe('a run killed with SIGKILL, then `laconic resume`', { timeout: 60_000 }, () => {
  let stalling: FakeBackend
  let healthy: FakeBackend
  let dir: string
  beforeAll(async () => {
    stalling = await startFakeBackend({ reply: searchThenAnswer(true), results })
    healthy = await startFakeBackend({ reply: searchThenAnswer(false), results })
    dir = await mkdtemp(join(tmpdir(), 'laconic-resume-'))
  })
  afterAll(async () => {
    await Promise.all([stalling.close(), healthy.close()])
    await rm(dir, { recursive: true, force: true })
  })
  const against = cliFlags

  it('the resumed run completes with the answer, repeating no call that finished before the checkpoint', async () => {
    // The first process searches, rewrites its notes (a checkpoint), then hangs writing the answer: kill it there.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...against(stalling), '--checkpoint-dir', dir, 'Why is the sky blue?'], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text))
    const killed = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        stdout += text
        if (stdout.length > 0) resolve()
      })
    })
    child.kill('SIGKILL')
    expect(await killed).toBe('SIGKILL')
    const runId = /laconic: run ([\w-]+)/.exec(stderr)?.[1]
    expect(runId).toBeDefined()
    expect(stalling.searches).toEqual(['why is the sky blue'])
    const saved = JSON.parse(await readFile(join(dir, `${runId}.json`), 'utf8')) as Checkpoint
    expect(saved).toMatchObject({ status: 'running', runId, question: 'Why is the sky blue?', strategy: 'scratchpad' })
    expect((await readdir(dir)).sort()).toEqual([`${runId}.json`, `${runId}.lock`])

    const resumed = await runCli(['resume', runId as string, '--checkpoint-dir', dir, ...against(healthy)])
    expect(resumed.stderr).not.toContain('error')
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain(ANSWER)
    expect(resumed.stderr).toContain(`run ${runId}`)
    // Only what came after the checkpoint ran again: the planner's second decision and the answer.
    expect(healthy.searches).toEqual([])
    expect(healthy.turns.map((t) => roleOf(t.system))).toEqual(['scratchpad planner', 'scratchpad finalizer'])
    const final = JSON.parse(await readFile(join(dir, `${runId}.json`), 'utf8')) as Checkpoint
    expect(final.status).toBe('final')
    expect(final.result?.answer).toBe(ANSWER)
    // The dead process's lock was taken over, and given back at the end.
    expect(await readdir(dir)).toEqual([`${runId}.json`])

    const again = await runCli(['resume', runId as string, '--checkpoint-dir', dir, ...against(healthy)])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(ANSWER)
    expect(healthy.turns).toHaveLength(2)
  })

  it('resuming an unknown run is an error naming it; no new run starts', async () => {
    const out = await runCli(['resume', 'no-such-run', '--checkpoint-dir', dir, ...against(healthy)])
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('no checkpoint for run no-such-run')
  })
})

describe('--approve-plan and resume, in process', { timeout: 60_000 }, () => {
  let backend: FakeBackend
  let dir: string
  beforeAll(async () => {
    backend = await startFakeBackend({ reply: searchThenAnswer(false), results })
    dir = await mkdtemp(join(tmpdir(), 'laconic-approve-'))
  })
  afterAll(async () => {
    await backend.close()
    await rm(dir, { recursive: true, force: true })
  })
  const flags = () => cliFlags(backend)
  /** On a terminal that answers from `answers`. */
  const cli = (argv: string[], answers: string[] = []) => laconic(argv, { answers })

  it('--serve with --checkpoint-dir and --approve-plan: the page answers the paused plan, never the terminal', async () => {
    const interrupt = new AbortController()
    const asked: string[] = []
    let announce: (url: string) => void = () => {}
    const announced = new Promise<string>((resolve) => (announce = resolve))
    const serving = laconic(['--serve', '0', '--checkpoint-dir', dir, '--approve-plan', ...flags()], {
      interrupt: interrupt.signal,
      asked,
      answers: ['y', 'y', 'y'],
      onStderr: (all) => {
        const url = /live page on (http:\/\/127\.0\.0\.1:\d+)\//.exec(all)?.[1]
        if (url) announce(url)
      },
    })
    const base = await announced
    const page = await (await fetch(`${base}/`)).text()
    expect(page).toContain('<meta name="laconic-decisions" content="yes">')
    const headers = { 'content-type': 'application/json', 'x-laconic-token': /name="laconic-token" content="([^"]+)"/.exec(page)?.[1] ?? '' }
    const events = async (runId: string) => {
      const out: ResearchEvent[] = []
      for await (const event of fromSSE((await fetch(`${base}/runs/${runId}/events`)).body!)) out.push(event)
      return out
    }
    const started = await fetch(`${base}/runs`, { method: 'POST', headers, body: JSON.stringify({ question: 'Why is the sky blue?' }) })
    const { runId } = (await started.json()) as { runId: string }
    const paused = await events(runId)
    expect(paused.at(-1)).toMatchObject({ type: 'run-end', reason: 'paused', request: { kind: 'plan', queries: ['why is the sky blue'] } })
    // The run's checkpoint is in the folder, under the agent's id of the run.
    expect(await readdir(dir)).toContain(`${paused.at(-1)?.runId}.json`)
    const decided = await fetch(`${base}/runs/${runId}/decision`, { method: 'POST', headers, body: JSON.stringify({ action: 'approve' }) })
    expect(decided.status).toBe(201)
    const rest = await events(((await decided.json()) as { runId: string }).runId)
    expect(rest.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: ANSWER })
    expect(asked).toEqual([])
    interrupt.abort()
    expect((await serving).code).toBe(130)
  })

  it('edited queries are the ones searched', async () => {
    backend.searches.length = 0
    const out = await cli([...flags(), '--approve-plan', 'Why is the sky blue?'], ['e', 'rayleigh scattering', ''])
    expect(out.code).toBe(0)
    expect(out.stderr).toContain('1. why is the sky blue')
    expect(backend.searches[0]).toBe('rayleigh scattering')
    expect(backend.searches).not.toContain('why is the sky blue')
  })

  it('r rejects the plan with the reason asked: nothing is searched, the reason in a warning, exit 0', async () => {
    backend.searches.length = 0
    const out = await cli([...flags(), '--approve-plan', 'Why is the sky blue?'], ['r', 'wrong angle'])
    expect(out.code).toBe(0)
    expect(backend.searches).toEqual([])
    expect(out.stderr).toContain('the plan was rejected: wrong angle; nothing was searched')
  })

  it('s (stop) or p pauses (exit 4) and says how to resume; resume runs the saved plan', async () => {
    backend.searches.length = 0
    const out = await cli([...flags(), '--checkpoint-dir', dir, '--approve-plan', 'Why is the sky blue?'], ['s'])
    expect(out.code).toBe(4)
    expect(backend.searches).toEqual([])
    const runId = /laconic resume ([\w-]+) --checkpoint-dir/.exec(out.stderr)?.[1]
    expect(runId).toBeDefined()
    expect(out.stderr).toContain(`[done] paused for approval`)
    // The resume's model flags are its own: another model continues the run.
    const turnsBefore = backend.turns.length
    const otherModel = flags().map((flag) => (flag === 'fake-model' ? 'resumed-model' : flag))
    const resumed = await cli(['resume', runId as string, '--checkpoint-dir', dir, ...otherModel])
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain(ANSWER)
    expect(backend.searches).toEqual(['why is the sky blue'])
    expect(new Set(backend.turns.slice(turnsBefore).map((turn) => turn.model))).toEqual(new Set(['resumed-model']))
  })

  it('--approve-plan without a terminal is a usage error', async () => {
    const { code, stderr } = await laconic([...flags(), '--approve-plan', 'q'])
    expect(code).toBe(USAGE)
    expect(stderr).toContain('--approve-plan asks on a terminal')
  })
})

describe("laconic resume goes on in the run's own --language and sources", { timeout: 60_000 }, () => {
  let backend: FakeBackend
  let dir: string
  beforeAll(async () => {
    // The same script, whatever line follows each system prompt.
    const reply = (turn: ChatTurn) => searchThenAnswer(false)({ ...turn, system: turn.system.split('\n\nLanguage:')[0] ?? '' })
    const found = () => [...results(), { title: 'Gossip', url: 'https://gossip.example/sky', snippet: 'The sky is green.' }]
    backend = await startFakeBackend({ reply, results: found })
    dir = await mkdtemp(join(tmpdir(), 'laconic-resume-language-'))
  })
  afterAll(async () => {
    await backend.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('a run paused for its plan with --language de --deny is resumed without them: German prompts, the denied domain left out', async () => {
    const io = (argv: string[]) => laconic(argv)
    const flags = cliFlags(backend)
    // No terminal: --approve-plan with --checkpoint-dir pauses the run (exit 4) for laconic resume.
    const first = await io([...flags, '--checkpoint-dir', dir, '--approve-plan', '--language', 'de', '--deny', 'gossip.example', 'Why is the sky blue?'])
    expect(first.code).toBe(4)
    const runId = /laconic resume ([\w-]+) --checkpoint-dir/.exec(first.stderr)?.[1]
    expect(runId).toBeDefined()
    const before = backend.turns.length
    const resumed = await io(['resume', runId as string, '--checkpoint-dir', dir, '--format', 'ndjson', ...flags])
    expect(resumed.code).toBe(0)
    const after = backend.turns.slice(before)
    expect(after.length).toBeGreaterThan(0)
    for (const turn of after) expect(turn.system).toMatch(/\n\nLanguage: write everything meant for the reader [^\n]* in German \(de\)/)
    const events = resumed.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ResearchEvent)
    const result = events.find((event) => event.type === 'result')
    expect(result).toMatchObject({ sourcesFiltered: 1, results: [{ url: 'https://example.org/rayleigh' }] })
  })
})
