/** Start-up validation: every problem found before a run is one line on stderr and exit 2. */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { cliFlags, type FakeBackend, modelFlags, startFakeBackend } from './fake-backend.js'
import { laconic, USAGE } from './laconic.js'

const cli = laconic

let folder: string
let backend: FakeBackend
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'laconic-startup-'))
  await mkdir(join(folder, 'empty'))
  await mkdir(join(folder, 'images'))
  await writeFile(join(folder, 'images', 'photo.jpg'), 'not text')
  // The model searches once, then answers.
  backend = await startFakeBackend({ reply: (turn) => (turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: the report' : 'Action: Answer') })
})
afterAll(async () => {
  await backend.close()
  await rm(folder, { recursive: true, force: true })
})

const events = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ResearchEvent)

describe('start-up validation', () => {
  it('an empty corpus folder, or one without documents, is a usage error on one line', async () => {
    for (const dir of ['empty', 'images']) {
      const { code, stderr } = await cli(['--backend', 'openai', '--endpoint', 'localhost:1', '-m', 'x', '--corpus', join(folder, dir), 'q'])
      expect(code).toBe(2)
      expect(stderr).toMatch(/^laconic: --corpus .*: no \.md, \.txt, \.html, \.pdf or \.docx files in it\n$/)
    }
  })

  it('a corpus folder of only PDFs, or only DOCX files, is accepted, and it is what the run searches', async () => {
    for (const [dir, file] of [
      ['pdfs', 'report.PDF'],
      ['docx', 'nested/letter.docx'],
    ] as const) {
      await mkdir(join(folder, dir, 'nested'), { recursive: true })
      await writeFile(join(folder, dir, file), 'bytes')
      const searchesBefore = backend.searches.length
      const { code, stdout, stderr } = await cli([...modelFlags(backend), '--corpus', join(folder, dir), '-f', 'ndjson', 'q'])
      expect(stderr).not.toMatch(/^laconic: --corpus/m)
      expect(code).toBe(0)
      // The corpus answered the run's search: nothing went to a web search.
      const run = events(stdout)
      expect(run.find((event) => event.type === 'query')).toMatchObject({ query: 'the report' })
      expect(run.some((event) => event.type === 'result')).toBe(true)
      expect(backend.searches.length).toBe(searchesBefore)
    }
  })

  it('--help names every kind of file a corpus folder is read for', async () => {
    const { code, stdout } = await cli(['--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('--corpus DIR             search the .md/.txt/.html/.pdf/.docx files in DIR')
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
    // A local host without a scheme is reached over http.
    const bare = backend.url.replace(/^http:\/\//, '')
    const searchesBefore = backend.searches.length
    const { code: ok } = await cli([...cliFlags(backend).slice(0, -3), '--searxng-url', bare, '--no-fetch', 'q'])
    expect(ok).toBe(0)
    expect(backend.searches.slice(searchesBefore)).toContain('the report')
    const ftp = await cli(['--backend', 'openai', '--endpoint', 'localhost:1', '-m', 'x', '--search', 'searxng', '--searxng-url', 'ftp://search.example', 'q'])
    expect(ftp.code).toBe(USAGE)
    expect(ftp.stderr).toMatch(/^laconic: --searxng-url must be an http or https URL/)
    const { code, stderr } = await cli(['--backend', 'openai', '--endpoint', 'localhost:1', '-m', 'x', '--search', 'searxng', '--searxng-url', 'ftp://x', 'q'])
    expect(code).toBe(2)
    expect(stderr.trim().split('\n')).toHaveLength(1)
  })

  it('--serve with a question is refused', async () => {
    const withWords = await cli(['--serve', 'why?'])
    expect(withWords.code).toBe(USAGE)
    expect(withWords.stderr).toMatch(/give no question/)
    expect((await cli(['--serve', '8080', '--prompt', 'q.txt'])).code).toBe(USAGE)
  })

  it('Go-style single-dash long flags are refused with the flag meant, never misread as short ones', async () => {
    for (const [argv, message] of [
      [['-model', 'qwen3:4b', 'q'], 'laconic: unknown option -model (did you mean --model?)\n'],
      [['-strategy', 'reflect', 'q'], 'did you mean --strategy?'],
      [['-strategy=reflect', 'q'], 'did you mean --strategy?'],
    ] as const) {
      const { code, stderr } = await cli(argv)
      expect(code).toBe(USAGE)
      expect(stderr).toContain(message)
    }
    // -m is the short flag; after --, a word that looks like a flag is the question.
    const flags = cliFlags(backend).filter((flag) => flag !== '--model' && flag !== 'fake-model')
    const short = await cli([...flags, '-m', 'qwen3:4b', 'q'])
    expect(short.stderr).not.toContain('unknown option')
    expect(short.code).toBe(0)
    const question = await cli([...flags, '-m', 'x', '-f', 'ndjson', '--', '-model'])
    expect(question.code).toBe(0)
    expect(events(question.stdout)[0]).toMatchObject({ type: 'run-start', question: '-model' })
  })
})
