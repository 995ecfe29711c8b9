/** A `deep` run's report as the command prints it (pretty mode) and writes it (`--output FILE.md`). */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { roleOf } from '../support/roles.js'
import { cliFlags, type FakeBackend, startFakeBackend } from './fake-backend.js'
import { laconic } from './laconic.js'

const SUMMARY = 'Air scatters blue light most [1].'
const report = {
  title: 'Why the sky is blue',
  main_findings: ['Rayleigh scattering favours short wavelengths [1].'],
  conclusions: ['The sky is blue because of scattering.'],
  limitations: ['One source only.'],
  recommendations: [],
  sources_summary: 'A physics primer.',
}

let backend: FakeBackend
let dir: string
let run: { code: number; stdout: string }

beforeAll(async () => {
  // deep: one sub-question, answered from the one source, then the report and its summary.
  backend = await startFakeBackend({
    reply: (turn) => {
      switch (roleOf(turn.system)) {
        case 'deep planner':
          return turn.prompt.includes('scatters')
            ? '{"is_complete": true, "reasoning": "covered"}'
            : JSON.stringify({ is_complete: false, next_question: 'Why is the sky blue?', reasoning: 'needed' })
        case 'deep sub-answer':
          return JSON.stringify({
            answer: SUMMARY,
            confidence: 0.9,
            facts: [{ text: 'Air scatters blue light most', sources: [1] }],
            need_more: false,
            queries: [],
          })
        case 'deep report':
          return JSON.stringify(report)
        default:
          return SUMMARY
      }
    },
    results: () => [{ title: 'Rayleigh', url: 'https://physics.example/rayleigh', snippet: 'Air scatters blue light most.' }],
  })
  dir = await mkdtemp(join(tmpdir(), 'laconic-markdown-'))
  run = await laconic([...cliFlags(backend), '-s', 'deep', '--output', join(dir, 'report.md'), 'Why is the sky blue?'])
})
afterAll(async () => {
  await backend.close()
  await rm(dir, { recursive: true, force: true })
})

it("pretty mode prints deep's report after the streamed summary, then the sources", () => {
  expect(run.code).toBe(0)
  expect(run.stdout).toBe(
    'Air scatters blue light most [1].\n' +
      '\n## Main findings\n\n- Rayleigh scattering favours short wavelengths [1].\n' +
      '\n## Conclusions\n\n- The sky is blue because of scattering.\n' +
      '\n## Limitations\n\n- One source only.\n' +
      '\n## About the sources\n\nA physics primer.\n' +
      '\nSources:\n[1] Rayleigh — https://physics.example/rayleigh\n',
  )
})

it('--output markdown: the report under its title, the question, and numbered sources', async () => {
  const markdown = await readFile(join(dir, 'report.md'), 'utf8')
  expect(markdown.startsWith('# Why the sky is blue\n\n_Question: Why is the sky blue?_\n\nAir scatters blue light most [1].\n')).toBe(true)
  expect(markdown).toContain('\n## Limitations\n\n- One source only.\n')
  expect(markdown.endsWith('\n## Sources\n\n1. Rayleigh — <https://physics.example/rayleigh>\n')).toBe(true)
})
