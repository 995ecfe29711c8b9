/** The question a run asks: words or `--prompt FILE` (stdin for -), with `{{KEY}}` filled from `--var KEY=VALUE`. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { cliFlags, type FakeBackend, startFakeBackend } from './fake-backend.js'
import { type LaconicOptions, laconic, USAGE } from './laconic.js'

let folder: string
let backend: FakeBackend
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'laconic-q-'))
  backend = await startFakeBackend({ reply: () => 'Action: Answer' })
})
afterAll(async () => {
  await backend.close()
  await rm(folder, { recursive: true, force: true })
})

/** The question the run asked (its `run-start`). */
async function asked(argv: string[], options: LaconicOptions = {}): Promise<string> {
  const { code, stdout, stderr } = await laconic([...cliFlags(backend), '-f', 'ndjson', ...argv], options)
  expect(stderr).toBe('')
  expect(code).toBe(0)
  const start = JSON.parse(stdout.split('\n')[0] as string) as ResearchEvent
  if (start.type !== 'run-start') throw new Error(`expected run-start, got ${start.type}`)
  return start.question
}

async function usageError(argv: string[], options: LaconicOptions = {}): Promise<string> {
  const { code, stderr } = await laconic([...cliFlags(backend), ...argv], options)
  expect(code).toBe(USAGE)
  return stderr
}

const vars = (values: Record<string, string>) => Object.entries(values).flatMap(([key, value]) => ['--var', `${key}=${value}`])

describe('--var', () => {
  it('fills every {{KEY}}, spaces inside the braces allowed, values taken literally', async () => {
    expect(await asked([...vars({ A: 'x', B: '$1 {{A}}' }), '{{A}} and {{ B }} and {{A}}'])).toBe('x and $1 {{A}} and x')
  })

  it('names every placeholder that has no value', async () => {
    expect(await usageError(['{{CITY}} in {{YEAR}}'])).toBe('laconic: the prompt uses {{CITY}}, {{YEAR}}: pass --var CITY=... --var YEAR=...\n')
  })

  it('a value that reads as a flag is a usage error, not a var', async () => {
    expect(await usageError(['--var', '-k=v', 'why?'])).toBe('laconic: --var needs a value; see laconic --help\n')
  })

  it('text without placeholders is asked as it is, whatever the vars', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1 }).filter((s) => !s.includes('{{') && s.trim() !== '' && !['mcp', 'index', 'kb', 'worker', 'serve', 'eval'].includes(s)),
        fc.dictionary(
          // A key starting with '-' would make `--var -k=v` read as a flag given no value (the usage error, as for any flag).
          fc.string({ minLength: 1 }).filter((key) => !key.includes('=') && key.trim() === key && key !== '' && !key.startsWith('-')),
          fc.string(),
          { maxKeys: 3 },
        ),
        async (text, values) => {
          expect(await asked([...vars(values), '--', text])).toBe(text.trim())
        },
      ),
      { numRuns: 25 },
    )
  })
})

describe('the question', () => {
  it('joins the words', async () => {
    expect(await asked(['why', 'is', 'it?'])).toBe('why is it?')
  })

  it('reads --prompt FILE, or stdin for -', async () => {
    const file = join(folder, 'q.txt')
    await writeFile(file, '  What is {{X}}?\n')
    expect(await asked(['--prompt', file, '--var', 'X=RAG'])).toBe('What is RAG?')
    expect(await asked(['--prompt', '-'], { stdin: 'from stdin\n' })).toBe('from stdin')
  })

  it('an empty question or prompt file is a usage error', async () => {
    const file = join(folder, 'empty.txt')
    await writeFile(file, '\n \n')
    expect(await usageError([])).toMatch(/^laconic: no question: pass it as words/)
    expect(await usageError(['--prompt', file])).toBe(`laconic: the prompt file ${file} is empty\n`)
    expect(await usageError(['--prompt', folder])).toContain('it is a folder')
  })
})
