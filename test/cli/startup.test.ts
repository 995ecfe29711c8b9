/** Start-up validation: every problem found before a run is one line on stderr and exit 2. */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCliArgs } from '../../src/cli/args.js'
import { runCli } from '../../src/cli/cli.js'
import { helpText } from '../../src/cli/help.js'
import { withScheme } from '../../src/cli/llm.js'
import { buildSources } from '../../src/cli/search.js'
import { UsageError } from '../../src/cli/usage-error.js'

async function cli(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = ''
  const sink = { write: (text: string) => (stderr += text) }
  const code = await runCli({
    argv,
    env: {},
    stdout: { write: () => true },
    stderr: sink,
    readStdin: async () => '',
    interrupt: new AbortController().signal,
    now: () => 0,
    fetch: async () => {
      throw new Error('no network in this test')
    },
  })
  return { code, stderr }
}

let folder: string
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'laconic-startup-'))
  await mkdir(join(folder, 'empty'))
  await mkdir(join(folder, 'images'))
  await writeFile(join(folder, 'images', 'photo.jpg'), 'not text')
})
afterAll(() => rm(folder, { recursive: true, force: true }))

describe('start-up validation', () => {
  it('an empty corpus folder, or one without documents, is a usage error on one line', async () => {
    for (const dir of ['empty', 'images']) {
      const { code, stderr } = await cli(['--backend', 'openai', '--endpoint', 'localhost:1', '-m', 'x', '--corpus', join(folder, dir), 'q'])
      expect(code).toBe(2)
      expect(stderr).toMatch(/^laconic: --corpus .*: no \.md, \.txt, \.html, \.pdf or \.docx files in it\n$/)
    }
  })

  it('a corpus folder of only PDFs, or only DOCX files, is accepted', async () => {
    for (const [dir, file] of [
      ['pdfs', 'report.PDF'],
      ['docx', 'nested/letter.docx'],
    ] as const) {
      await mkdir(join(folder, dir, 'nested'), { recursive: true })
      await writeFile(join(folder, dir, file), 'bytes')
      const options = parseCliArgs(['--corpus', join(folder, dir), 'q'])
      if (options.kind !== 'run') throw new Error('expected a run')
      const sources = await buildSources(options.options, {})
      expect(sources.corpus).toBe(sources.search)
    }
  })

  it('--help names every kind of file a corpus folder is read for', () => {
    expect(helpText(['scratchpad'])).toContain('--corpus DIR             search the .md/.txt/.html/.pdf/.docx files in DIR')
  })

  it.skipIf(process.getuid?.() === 0)('an unreadable corpus folder is a usage error', async () => {
    const locked = join(folder, 'locked')
    await mkdir(locked)
    await chmod(locked, 0o000)
    const { code, stderr } = await cli(['--backend', 'openai', '--endpoint', 'localhost:1', '-m', 'x', '--corpus', locked, 'q'])
    await chmod(locked, 0o755)
    expect(code).toBe(2)
    expect(stderr).toContain('cannot be read')
  })

  it('--searxng-url without a scheme is normalised like --endpoint; an unusable one is refused', async () => {
    expect(withScheme('localhost:8080', '--searxng-url')).toBe('http://localhost:8080')
    expect(() => withScheme('ftp://search.example', '--searxng-url')).toThrow(/--searxng-url must be an http or https URL/)
    const { code, stderr } = await cli(['--backend', 'openai', '--endpoint', 'localhost:1', '-m', 'x', '--search', 'searxng', '--searxng-url', 'ftp://x', 'q'])
    expect(code).toBe(2)
    expect(stderr.trim().split('\n')).toHaveLength(1)
  })

  it('--serve with a question is refused', () => {
    expect(() => parseCliArgs(['--serve', 'why?'])).toThrow(/give no question/)
    expect(() => parseCliArgs(['--serve', '8080', '--prompt', 'q.txt'])).toThrow(UsageError)
  })

  it('Go-style single-dash long flags are refused with the flag meant, never misread as short ones', () => {
    expect(() => parseCliArgs(['-model', 'qwen3:4b', 'q'])).toThrow('unknown option -model (did you mean --model?)')
    expect(() => parseCliArgs(['-strategy', 'reflect', 'q'])).toThrow('did you mean --strategy?')
    expect(() => parseCliArgs(['-strategy=reflect', 'q'])).toThrow('did you mean --strategy?')
    expect(() => parseCliArgs(['-m', 'qwen3:4b', 'q'])).not.toThrow()
    expect(() => parseCliArgs(['-m', 'x', '--', '-model'])).not.toThrow()
  })
})
