/**
 * `laconic resume RUN_ID --approve | --reject [REASON] | --plan-file FILE | --query Q`: the
 * decision flags checked, then whole runs through the command (in process, no terminal) that
 * pause for a plan, a tool call or a report's outline and are resumed with the decision.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Checkpoint, ResearchResult } from '../../src/index.js'
import { cliFlags, startFakeBackend, type ChatTurn, type FakeBackend, type ScriptedReply } from './fake-backend.js'
import { laconic as runCli, USAGE } from './laconic.js'
import { roleOf } from '../support/roles.js'

const resume = ['resume', 'r1', '--checkpoint-dir', 'cp']

describe('the decision flags', () => {
  it.each([
    [['--approve', 'why?'], 'give them to laconic resume RUN_ID'],
    [['--reject', 'why?'], 'give them to laconic resume RUN_ID'],
    [['--query', 'x', 'why?'], 'give them to laconic resume RUN_ID'],
    [[...resume, '--approve', '--reject'], '--reject refuses what waits'],
    [[...resume, '--reject', 'no', '--query', 'x'], '--reject refuses what waits'],
    [[...resume, '--query', ' '], '--query is empty'],
    [[...resume, '--plan-file', ''], '--plan-file is empty'],
    [[...resume, '--tool-args', 'query=x'], '--tool-args must be a JSON object'],
    [[...resume, '--tool-args', '["x"]'], '--tool-args must be a JSON object'],
    [[...resume, '--tool-args', '{}', '--reject'], '--reject refuses what waits'],
    [[...resume, '--tool-args', '{}', '--query', 'x'], 'give one or the other'],
    [['--tool-args', '{}', 'why?'], 'give them to laconic resume RUN_ID'],
  ])('%j is a usage error', async (argv, message) => {
    const { code, stderr } = await runCli(argv)
    expect(code).toBe(USAGE)
    expect(stderr).toMatch(/^laconic: .*\n$/)
    expect(stderr).toContain(message)
  })
})

const results = (query: string) => [
  { title: `About ${query}`, url: `https://example.org/${encodeURIComponent(query)}`, snippet: `Blue light is scattered more (${query}).` },
]

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'laconic-decide-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const against = cliFlags
const runIdIn = (stderr: string) => /laconic resume ([\w-]+) --checkpoint-dir/.exec(stderr)?.[1] as string
const checkpoint = async (runId: string) => JSON.parse(await readFile(join(dir, `${runId}.json`), 'utf8')) as Checkpoint

describe('a plan paused without a terminal, resumed with a decision', { timeout: 60_000 }, () => {
  const ANSWER = 'The sky is blue because air scatters blue light the most.'
  let backend: FakeBackend
  beforeAll(async () => {
    backend = await startFakeBackend({
      reply: (turn) => {
        if (roleOf(turn.system) === 'scratchpad planner')
          return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: why is the sky blue' : 'Action: Answer'
        if (roleOf(turn.system) === 'scratchpad synthesizer') return 'Air scatters blue light more than red.'
        if (roleOf(turn.system) === 'scratchpad finalizer') return ANSWER
        return 'unexpected'
      },
      results,
    })
  })
  afterAll(() => backend.close())

  const pausedPlan = async () => {
    backend.searches.length = 0
    const out = await runCli([...against(backend), '--checkpoint-dir', dir, '--approve-plan', 'Why is the sky blue?'])
    expect(out.stderr).not.toContain('error')
    expect(out.code).toBe(4)
    expect(out.stderr).toContain('[plan] Search: why is the sky blue')
    // The queries that wait, not only the plan's text.
    expect(out.stderr).toContain("[paused] waiting for approval: the plan's 1 query\n  1. why is the sky blue\n")
    expect(out.stderr).toContain('--checkpoint-dir')
    expect(out.stderr).toContain('[--approve | --plan-file FILE | --query Q ... | --reject [REASON]]')
    expect(backend.searches).toEqual([])
    const runId = runIdIn(out.stderr)
    expect((await checkpoint(runId)).status).toBe('paused')
    return runId
  }

  it('--plan-file runs the queries of the file instead of the saved plan; --tool-args and a missing file are refused first', async () => {
    const runId = await pausedPlan()
    const toolArgs = await runCli(['resume', runId, '--checkpoint-dir', dir, '--tool-args', '{"query":"x"}', ...against(backend)])
    expect(toolArgs.code).toBe(2)
    expect(toolArgs.stderr).toContain('waits for approval of its plan, and --tool-args answers a tool call')
    const missing = await runCli(['resume', runId, '--checkpoint-dir', dir, '--plan-file', join(dir, 'nope.txt'), ...against(backend)])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('cannot read --plan-file')
    const empty = join(dir, 'empty-plan.txt')
    await writeFile(empty, '# nothing yet\n\n')
    const none = await runCli(['resume', runId, '--checkpoint-dir', dir, '--plan-file', empty, ...against(backend)])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('holds no queries')
    expect(backend.searches).toEqual([])
    expect((await checkpoint(runId)).status).toBe('paused')

    const file = join(dir, 'plan.txt')
    await writeFile(file, '# the queries to run\nrayleigh scattering\n\n  blue wavelengths  \n')
    // An edited plan is an approval of it: --approve beside it changes nothing.
    const out = await runCli(['resume', runId, '--checkpoint-dir', dir, '--plan-file', file, '--approve', ...against(backend)])
    expect(out.stderr).not.toContain('error')
    expect(out.code).toBe(0)
    expect(out.stdout).toContain(ANSWER)
    expect(out.stderr).toContain('[plan] Approved plan: rayleigh scattering | blue wavelengths')
    expect(backend.searches).toEqual(['rayleigh scattering', 'blue wavelengths'])
  })

  it('repeated --query runs those queries; a finished run refuses a decision', async () => {
    const runId = await pausedPlan()
    const out = await runCli(['resume', runId, '--checkpoint-dir', dir, '--query', 'sunlight spectrum', '--query', ' blue sky ', ...against(backend)])
    expect(out.code).toBe(0)
    expect(backend.searches).toEqual(['sunlight spectrum', 'blue sky'])
    const again = await runCli(['resume', runId, '--checkpoint-dir', dir, '--approve', ...against(backend)])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`run ${runId} is not waiting for a decision (it has finished): resume it without --approve`)
  })

  it('--reject ends the run with nothing searched, the reason in a warning', async () => {
    const runId = await pausedPlan()
    const out = await runCli(['resume', runId, '--checkpoint-dir', dir, '--reject', 'too broad', ...against(backend)])
    expect(out.code).toBe(0)
    expect(out.stdout).toBe('')
    expect(out.stderr).toContain('[warning plan-rejected] the plan was rejected: too broad; nothing was searched')
    expect(backend.searches).toEqual([])
    expect((await checkpoint(runId)).status).toBe('final')
  })

  it('a bare --reject, or one a flag follows, gives no reason; --reject=REASON gives one', async () => {
    for (const [flags, warning] of [
      [['--reject'], '[warning plan-rejected] the plan was rejected; nothing was searched'],
      [['--reject', '--debug'], '[warning plan-rejected] the plan was rejected; nothing was searched'],
      [['--reject=not now'], '[warning plan-rejected] the plan was rejected: not now; nothing was searched'],
    ] as const) {
      const runId = await pausedPlan()
      const out = await runCli(['resume', runId, '--checkpoint-dir', dir, ...flags, ...against(backend)])
      expect(out.code).toBe(0)
      expect(out.stderr).toContain(`${warning}\n`)
      expect(backend.searches).toEqual([])
    }
  })

  it('--approve, or no decision at all, runs the saved plan', async () => {
    for (const flags of [['--approve'], []]) {
      const runId = await pausedPlan()
      const out = await runCli(['resume', runId, '--checkpoint-dir', dir, ...flags, ...against(backend)])
      expect(out.code).toBe(0)
      expect(out.stdout).toContain(ANSWER)
      expect(backend.searches).toEqual(['why is the sky blue'])
    }
  })

  it('--approve-plan with neither a terminal nor --checkpoint-dir is a usage error', async () => {
    const out = await runCli([...against(backend), '--approve-plan', 'Why is the sky blue?'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('--approve-plan asks on a terminal, or pauses the run for laconic resume with --checkpoint-dir DIR')
  })
})

describe('react paused on each tool call without a terminal, resumed with --approve and --reject', { timeout: 60_000 }, () => {
  const ANSWER = 'Air scatters blue light the most [1].'
  let backend: FakeBackend
  /** The model: search "sky colour", then search "blue wavelengths", then answer from the first result. */
  const model = (turn: ChatTurn): ScriptedReply => {
    const results = turn.messages.filter((m) => m.role === 'tool').length
    if (results === 0) return { text: '', toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"query":"sky colour"}' }] }
    if (results === 1) return { text: '', toolCalls: [{ id: 'call_2', name: 'search', arguments: '{"query":"blue wavelengths"}' }] }
    return { text: ANSWER }
  }
  beforeAll(async () => {
    backend = await startFakeBackend({ reply: model, results })
  })
  afterAll(() => backend.close())
  // The backend is shared: each test counts only its own requests, whatever ran before it.
  beforeEach(() => {
    backend.turns.length = 0
    backend.searches.length = 0
  })

  it('each call waits (exit 4); --approve runs it, --reject tells the model why; the answer cites what was searched', async () => {
    const first = await runCli([...against(backend), '--strategy', 'react', '--tool-approval', '--checkpoint-dir', dir, 'Why is the sky blue?'])
    expect(first.stderr).not.toContain('error')
    expect(first.code).toBe(4)
    expect(first.stderr).toContain('--approve [--tool-args JSON] (or --reject [REASON])')
    expect(first.stderr).toMatch(/\[paused\] waiting for approval: the tool call search \{.*\}\n/)
    expect(backend.searches).toEqual([])
    const runId = runIdIn(first.stderr)

    // What does not fit a waiting tool call is refused before anything runs.
    for (const [flags, message] of [
      [[], `run ${runId} waits for approval of a tool call: resume it with --approve [--tool-args JSON] (or --reject [REASON])`],
      [
        ['--query', 'x'],
        `run ${runId} waits for approval of a tool call, not of a plan: --query does not fit; give --approve [--tool-args JSON] (or --reject [REASON])`,
      ],
    ] as const) {
      const refused = await runCli(['resume', runId, '--checkpoint-dir', dir, ...flags, ...against(backend)])
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim().split('\n')).toEqual([`laconic: ${message}`])
    }
    expect(backend.turns).toHaveLength(1)

    // Approved: the search runs; the model's next call waits in turn.
    const approved = await runCli(['resume', runId, '--checkpoint-dir', dir, '--approve', ...against(backend)])
    expect(approved.stderr).not.toContain('error')
    expect(approved.code).toBe(4)
    expect(backend.searches).toEqual(['sky colour'])
    expect(approved.stderr).toContain(`laconic resume ${runId} --checkpoint-dir ${dir} --approve [--tool-args JSON] (or --reject [REASON])`)

    // Refused with a reason: the model hears it and answers from the first search.
    const rejected = await runCli(['resume', runId, '--checkpoint-dir', dir, '--reject', 'one search is enough', '--format', 'json', ...against(backend)])
    expect(rejected.stderr).toBe(`laconic: run ${runId} (checkpoints in ${dir})\n`)
    expect(rejected.code).toBe(0)
    expect(backend.searches).toEqual(['sky colour'])
    const result = JSON.parse(rejected.stdout) as { answer: string; citations: unknown[]; reason: string }
    expect(result).toMatchObject({ answer: ANSWER, reason: 'answered' })
    expect(result.citations).toEqual([{ index: 1, url: 'https://example.org/sky%20colour', title: 'About sky colour' }])
    const refusal = backend.turns.at(-1)?.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_2')
    expect(refusal?.content).toContain('the user refused this call: one search is enough')
    expect((await checkpoint(runId)).status).toBe('final')
  })

  it('--tool-args runs the waiting call with other arguments, checked against its schema first', async () => {
    const first = await runCli([...against(backend), '--strategy', 'react', '--tool-approval', '--checkpoint-dir', dir, 'Why is the sky blue?'])
    expect(first.code).toBe(4)
    const runId = runIdIn(first.stderr)
    const paused = await checkpoint(runId)

    // Arguments the search tool refuses: nothing runs, and the run still waits for its answer.
    // --approve beside --tool-args=JSON approves the call with those arguments.
    const wrong = await runCli(['resume', runId, '--checkpoint-dir', dir, '--approve', '--tool-args={"q":"rayleigh"}', ...against(backend)])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('laconic: error: the approved arguments of `search` do not match its schema')
    expect(backend.searches).toEqual([])
    expect(await checkpoint(runId)).toMatchObject({ status: 'paused', seq: paused.seq })

    const edited = await runCli(['resume', runId, '--checkpoint-dir', dir, '--tool-args', '{"query":"rayleigh scattering"}', ...against(backend)])
    expect(edited.stderr).not.toContain('error')
    expect(edited.code).toBe(4)
    expect(backend.searches).toEqual(['rayleigh scattering'])
    const result = backend.turns.at(-1)?.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_1')
    expect(result?.content).toContain('About rayleigh scattering')
  })

  it('--tool-approval with neither a terminal nor --checkpoint-dir is a usage error', async () => {
    const out = await runCli([...against(backend), '--strategy', 'react', '--tool-approval', 'q'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('--tool-approval asks on a terminal, or pauses the run for laconic resume with --checkpoint-dir DIR')
  })
})

describe('a report paused on its outline, resumed with a decision', { timeout: 60_000 }, () => {
  const outline = { title: 'T', sections: [{ title: 'A', goal: 'a', questions: ['a?'] }] }
  const edited = { title: 'U', sections: [{ title: 'B', goal: 'b', questions: ['b?'] }] }
  let backend: FakeBackend
  beforeAll(async () => {
    backend = await startFakeBackend({
      reply: (turn) => {
        switch (roleOf(turn.system)) {
          case 'report outline':
            return JSON.stringify(outline)
          case 'report facts':
            return JSON.stringify({ facts: [] })
          default:
            return 'A short section.'
        }
      },
      results,
    })
  })
  afterAll(() => backend.close())

  const pausedOutline = async () => {
    const out = await runCli([...against(backend), '--strategy', 'report', '--checkpoint-dir', dir, '--approve-plan', 'Why is the sky blue?'])
    expect(out.code).toBe(4)
    // What a paused outline takes: --plan-file OUTLINE.json, not queries.
    expect(out.stderr).toContain('[--approve | --plan-file OUTLINE.json | --reject [REASON]]')
    expect(out.stderr).not.toContain('--query Q')
    backend.searches.length = 0
    return runIdIn(out.stderr)
  }

  it('--plan-file OUTLINE.json edits it; --query, or a file that is not an outline, is a usage error', async () => {
    const runId = await pausedOutline()
    const file = join(dir, 'outline.json')
    const query = await runCli(['resume', runId, '--checkpoint-dir', dir, '--query', 'x', ...against(backend)])
    expect(query.code).toBe(USAGE)
    expect(query.stderr).toContain(`laconic: run ${runId} waits for approval of its outline: edit it with --plan-file OUTLINE.json`)
    await writeFile(file, 'a\nb\n')
    const notOutline = await runCli(['resume', runId, '--checkpoint-dir', dir, '--plan-file', file, ...against(backend)])
    expect(notOutline.code).toBe(USAGE)
    expect(notOutline.stderr).toMatch(/is not an outline/)
    expect(backend.searches).toEqual([])
    expect((await checkpoint(runId)).status).toBe('paused')

    await writeFile(file, JSON.stringify(edited))
    const out = await runCli(['resume', runId, '--checkpoint-dir', dir, '--plan-file', file, '--format', 'json', ...against(backend)])
    expect(out.code).toBe(0)
    const result = JSON.parse(out.stdout) as ResearchResult
    expect(result.report?.title).toBe('U')
    expect(result.report?.sections?.map((section) => section.title)).toEqual(['B'])
    expect(backend.searches).toEqual(['b?'])
  })

  it('--approve writes the saved outline', async () => {
    const runId = await pausedOutline()
    const out = await runCli(['resume', runId, '--checkpoint-dir', dir, '--approve', '--format', 'json', ...against(backend)])
    expect(out.code).toBe(0)
    const result = JSON.parse(out.stdout) as ResearchResult
    expect(result.report?.title).toBe('T')
    expect(backend.searches).toEqual(['a?'])
  })
})
