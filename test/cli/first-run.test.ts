/**
 * First-run guidance (issue 35, item 8): a subcommand after flags is refused rather than asked,
 * mistyped names get "did you mean", and an embedder of the model's backend uses `--endpoint`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { strategyNames } from '../../src/index.js'
import { FAKE_MODEL } from '../kb/fake-embeddings.js'
import { roleOf } from '../support/roles.js'
import { cliFlags, type FakeBackend, startFakeBackend } from './fake-backend.js'
import { laconic, USAGE } from './laconic.js'

const MAIN_HELP = 'laconic: research a question on the web with a small model'

/** The commands `laconic --help` shows as `laconic WORD ...`; `resume RUN_ID` is a resume of a run, two words (checkpoints.test.ts). */
async function helpCommands(): Promise<string[]> {
  const { stdout } = await laconic(['--help'])
  const usage = stdout.slice(stdout.indexOf('Usage:'), stdout.indexOf('\n\n', stdout.indexOf('Usage:')))
  return [...usage.matchAll(/^ {2}laconic ([a-z]+)\b/gm)].map((match) => match[1] as string).filter((word) => word !== 'resume')
}

describe('a subcommand after flags', () => {
  it('every command --help shows is dispatched on the first word, and is the one refused after flags', async () => {
    const commands = await helpCommands()
    expect([...commands].sort()).toEqual(['eval', 'index', 'kb', 'mcp', 'serve', 'worker'])
    for (const name of commands) {
      // Dispatched: its own help or its own usage error, not the question's help.
      const first = await laconic([name, '--help'])
      expect(`${first.stdout}${first.stderr}`, name).not.toContain(MAIN_HELP)
    }
    // A word no command takes is a question's word.
    const asked = await laconic(['-m', 'x', 'mcpx'])
    expect(asked.stderr).not.toContain('is a command')
  })

  it.each(['mcp', 'index', 'kb', 'worker', 'serve', 'eval'])('%s is refused with where it goes, not asked as the question', async (name) => {
    const argv = ['--backend', 'openai', '--endpoint', 'localhost:8080', '-m', 'x', name, '--http', '3001']
    const { code, stderr } = await laconic(argv.slice(0, 7))
    expect(code).toBe(USAGE)
    expect(stderr).toContain(`laconic: ${name} is a command: put it first (laconic ${name} [options])`)
  })

  it('a quoted question that starts with a command word is still a question', async () => {
    const backend = await startFakeBackend({ reply: () => 'Action: Answer' })
    try {
      const { code, stdout } = await laconic([...cliFlags(backend), '-f', 'ndjson', 'mcp servers: what are they?'])
      expect(code).toBe(0)
      expect(JSON.parse(stdout.split('\n')[0] as string)).toMatchObject({ type: 'run-start', question: 'mcp servers: what are they?' })
    } finally {
      await backend.close()
    }
  })
})

/** The one line a usage error prints, and its exit code. */
async function usageError(argv: string[]): Promise<string> {
  const { code, stderr } = await laconic(argv)
  expect(code, argv.join(' ')).toBe(USAGE)
  return stderr
}

describe('did you mean', () => {
  it('suggests the strategy meant', async () => {
    expect(await usageError(['-s', 'graphreader', 'q'])).toContain('unknown strategy "graphreader" (did you mean graph-reader?): choose one of')
    expect(await usageError(['-s', 'Graph_Reader', 'q'])).toContain('(did you mean graph-reader?)')
    expect(await usageError(['-s', 'nothing-like-it', 'q'])).toMatch(/unknown strategy "nothing-like-it": choose one of/)
    // A known strategy is taken: the run goes on to its model (no Ollama answers here).
    const known = await laconic(['-s', 'graph-reader', 'q'])
    expect(known.stderr).not.toContain('unknown strategy')
    expect(known.stderr).toContain('cannot reach Ollama')
  })

  it('suggests the value meant for every enum flag', async () => {
    expect(await usageError(['--backend', 'opnai', 'q'])).toContain('got "opnai" (did you mean openai?)')
    expect(await usageError(['--format', 'jsn', 'q'])).toContain('(did you mean json?)')
    expect(await usageError(['--search', 'google', 'q'])).toMatch(/got "google"\n$/)
    expect(await usageError(['--search', 'bravo', 'q'])).toContain('(did you mean brave?)')
    expect(await usageError(['--kb', 'k', '--embed-backend', 'olama', 'q'])).toContain('(did you mean ollama?)')
    expect(await usageError(['--modle', 'x', 'q'])).toContain('unknown option --modle (did you mean --model?)')
  })

  it('suggests the flag meant to laconic index and kb', async () => {
    expect(await usageError(['index', './docs', '--kb', 'k', '--embed-modle', 'x'])).toContain(
      'laconic index takes --kb and the --embed-* flags, not --embed-modle (did you mean --embed-model?)',
    )
  })

  it('suggests only a candidate, and only one close to what was typed', async () => {
    const names = strategyNames()
    const refusal = /^laconic: unknown strategy "([\s\S]*)"(?: \(did you mean ([^?]+)\?\))?: choose one of (.*)\n$/
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 20 }).filter((typed) => typed.trim() !== '' && !names.includes(typed)),
        async (typed) => {
          const match = refusal.exec(await usageError([`--strategy=${typed}`, 'q']))
          expect(match?.[1]).toBe(typed)
          expect(match?.[3]).toBe(names.join(', '))
          const meant = match?.[2]
          if (meant !== undefined) expect(names).toContain(meant)
        },
      ),
      { numRuns: 60 },
    )
    // A name differing only in case, `-` or `_` is that name.
    for (const name of names) {
      expect(await usageError(['-s', name.toUpperCase().replace(/-/g, '_'), 'q'])).toContain(`(did you mean ${name}?)`)
    }
  })
})

describe('when no Ollama answers', () => {
  it('names every other way to a model and to search offline, not --model', async () => {
    const { code, stderr } = await laconic(['why is the sky blue?'])
    expect(code).toBe(1)
    expect(stderr).toContain('cannot reach Ollama at http://localhost:11434')
    expect(stderr).toContain('--backend openai --endpoint URL')
    expect(stderr).toContain('--backend local -m')
    expect(stderr).toContain('--corpus DIR')
    expect(stderr).not.toContain('--model NAME')
  })
})

describe('--help', () => {
  it('shows laconic mcp --sessions DIR', async () => {
    expect((await laconic(['--help'])).stdout).toContain('laconic mcp [--http PORT] [--sessions DIR]')
  })
})

describe('--embed-endpoint defaults to --endpoint', { timeout: 60_000 }, () => {
  const FINDING = 'Air scatters blue light more than red'
  let backend: FakeBackend
  let folder: string
  beforeAll(async () => {
    backend = await startFakeBackend({
      // One search, one finding from its result, an answer citing it.
      reply: (turn) => {
        if (roleOf(turn.system) === 'scratchpad planner') return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: sky colour' : 'Action: Answer'
        if (roleOf(turn.system) === 'scratchpad synthesizer') return `${FINDING} [1].`
        return `${FINDING} [1].`
      },
      results: () => [{ title: 'Rayleigh scattering', url: 'https://example.org/rayleigh', snippet: 'Blue light is scattered more.' }],
    })
    folder = await mkdtemp(join(tmpdir(), 'laconic-embed-endpoint-'))
  })
  afterAll(async () => {
    await backend.close()
    await rm(folder, { recursive: true, force: true })
  })

  it('an embedder of the model backend embeds at the model endpoint, and does not record it', async () => {
    const memory = join(folder, 'memory')
    const embed = ['--embed-backend', 'openai', '--embed-model', FAKE_MODEL]
    const { code, stderr } = await laconic([...cliFlags(backend), '--memory', memory, ...embed, 'Why is the sky blue?'])
    expect(stderr).not.toContain('laconic: ')
    expect(code).toBe(0)
    // The run's finding was embedded for the memory at the model's endpoint.
    expect(backend.embedded).toEqual([`${FINDING}.`])
    // The folder records its embedder for later runs, without the model's endpoint.
    const recorded = JSON.parse(await readFile(join(memory, 'laconic-kb.json'), 'utf8')) as { embed: unknown }
    expect(recorded.embed).toEqual({ backend: 'openai', model: FAKE_MODEL })
  })

  it('an embedder of another backend keeps its own default', async () => {
    const argv = ['--backend', 'ollama', '--endpoint', backend.url, '-m', 'x', '--kb', folder, '--embed-backend', 'openai', '--embed-model', FAKE_MODEL, 'q']
    expect(await usageError(argv)).toContain('missing API key for api.openai.com embeddings')
  })
})
