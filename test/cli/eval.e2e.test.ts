/**
 * `laconic eval` end to end, as a child process, against a loopback OpenAI-compatible server and
 * SearXNG: a run, its resume, a recording replayed with the server gone, compare and report.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { extractiveReply } from '../support/extractive-model.js'
import { cliFlags, startFakeBackend, type FakeBackend } from './fake-backend.js'
import { runCli } from './run-cli.js'

const FACTS = [
  { title: 'Eiffel Tower', url: 'https://en.test/eiffel', snippet: 'The Eiffel Tower was completed in 1889 for the World Fair.' },
  { title: 'Everest', url: 'https://en.test/everest', snippet: 'Mount Everest is 8849 metres tall.' },
  { title: 'Ada', url: 'https://en.test/ada', snippet: 'Ada Lovelace wrote an algorithm for the Analytical Engine of Charles Babbage.' },
]
const ROWS = [
  { id: 'eiffel', question: 'In which year was the Eiffel Tower completed?', answers: ['1889'], tags: ['history'] },
  { id: 'everest', question: 'How tall is Mount Everest?', answers: ['8849 metres'], tags: ['geography'] },
  { id: 'ada', question: 'Whose engine did Ada Lovelace write an algorithm for?', answers: ['Charles Babbage'], tags: ['history'] },
]

let backend: FakeBackend
let folder: string
let dataset: string

beforeAll(async () => {
  backend = await startFakeBackend({
    reply: (turn) => extractiveReply({ system: turn.system, prompt: turn.prompt }),
    results: (query) => FACTS.filter((fact) => query.split(' ').some((word) => word.length > 3 && fact.snippet.includes(word))),
  })
  folder = await mkdtemp(join(tmpdir(), 'laconic-eval-cli-'))
  dataset = join(folder, 'questions.jsonl')
  await writeFile(dataset, `${ROWS.map((row) => JSON.stringify(row)).join('\n')}\n{"id": "bad"}\n`)
})

afterAll(async () => {
  await backend.close()
  await rm(folder, { recursive: true, force: true })
})

const lines = async (path: string) => (await readFile(path, 'utf8')).trim().split('\n')

describe('laconic eval', () => {
  it('runs, reports the bad row, summarizes, writes the report; a second run resumes with nothing to do', async () => {
    const out = join(folder, 'run')
    const first = await runCli(['eval', dataset, '--out', out, ...cliFlags(backend)])
    expect(first.stderr).toContain('line 4: `question` must be a non-empty string (skipped)')
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/scratchpad\/fake-model\s+3\s+100\.0%/)
    expect(await lines(join(out, 'results.jsonl'))).toHaveLength(3)
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('scratchpad/fake-model')
    const calls = backend.turns.length
    const again = await runCli(['eval', dataset, '--out', out, ...cliFlags(backend)])
    expect(again.code).toBe(0)
    expect(again.stderr).toContain('resuming: 3 of 3 rows done')
    expect(backend.turns.length).toBe(calls)
    expect(await lines(join(out, 'results.jsonl'))).toHaveLength(3)
  })

  it('records a cassette, then replays it with the servers gone and gets the same rows; a missing request is named', async () => {
    const cassette = join(folder, 'cassette')
    const recorded = await runCli(['eval', dataset, '--out', join(folder, 'recorded'), '--cassette', cassette, ...cliFlags(backend)])
    expect(recorded.code).toBe(0)
    const replayed = await runCli([
      'eval',
      dataset,
      '--out',
      join(folder, 'replayed'),
      '--cassette',
      cassette,
      '--replay',
      ...cliFlags({ url: 'http://127.0.0.1:9' }),
    ])
    expect(replayed.stderr).not.toContain('error')
    expect(replayed.code).toBe(0)
    const strip = (line: string) => {
      const { wallMs: _wallMs, ...rest } = JSON.parse(line) as Record<string, unknown>
      return rest
    }
    const sort = (rows: Record<string, unknown>[]) => rows.sort((a, b) => String(a.id).localeCompare(String(b.id)))
    expect(sort((await lines(join(folder, 'replayed', 'results.jsonl'))).map(strip))).toEqual(
      sort((await lines(join(folder, 'recorded', 'results.jsonl'))).map(strip)),
    )

    const other = join(folder, 'other.jsonl')
    await writeFile(other, `${JSON.stringify({ id: 'new', question: 'Who built the Analytical Engine?', answers: ['Charles Babbage'] })}\n`)
    const missing = await runCli([
      'eval',
      other,
      '--out',
      join(folder, 'missing'),
      '--cassette',
      cassette,
      '--replay',
      ...cliFlags({ url: 'http://127.0.0.1:9' }),
    ])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/has no recorded model call to fake-model \(prompt starting "Question: Who built the Analytical Engine\?/)
  })

  it('compare pairs two folders question by question; report writes the page again', async () => {
    const compared = await runCli(['eval', 'compare', join(folder, 'run'), join(folder, 'recorded')])
    expect(compared.code).toBe(0)
    expect(compared.stdout).toContain('scratchpad/fake-model: 3 questions in both')
    expect(compared.stdout).toContain('no significant difference')
    const report = await runCli(['eval', 'report', join(folder, 'run')])
    expect(report.code).toBe(0)
    expect(report.stdout).toContain('accuracy (95% CI)')
  })

  it('a HotpotQA file runs over its own paragraphs (no search engine), and a mapped CSV reads its columns', async () => {
    const hotpot = join(folder, 'hotpot.json')
    await writeFile(
      hotpot,
      JSON.stringify([
        {
          _id: 'h1',
          question: 'In which year was the Eiffel Tower completed?',
          answer: '1889',
          supporting_facts: [['Eiffel Tower', 0]],
          context: [
            ['Eiffel Tower', ['The Eiffel Tower was completed in 1889.']],
            ['Everest', ['Mount Everest is 8849 metres tall.']],
          ],
          type: 'bridge',
          level: 'easy',
        },
      ]),
    )
    const searchesBefore = backend.searches.length
    const model = ['--backend', 'openai', '--endpoint', backend.url, '--model', 'fake-model']
    const run = await runCli(['eval', hotpot, '--out', join(folder, 'hotpot'), ...model])
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('searching the 2 documents that come with')
    expect(backend.searches.length).toBe(searchesBefore)
    const [row] = (await lines(join(folder, 'hotpot', 'results.jsonl'))).map((line) => JSON.parse(line))
    expect(row).toMatchObject({ id: 'h1', correct: true, evidenceRecall: 1, tags: ['bridge', 'easy'] })

    const csv = join(folder, 'mapped.csv')
    await writeFile(csv, 'q,gold\n"In which year was the Eiffel Tower completed?",1889|MDCCCLXXXIX\n')
    const mapped = await runCli(['eval', csv, '--map', 'question=q,answers=gold,separator=|', '--out', join(folder, 'mapped'), ...cliFlags(backend)])
    expect(mapped.code).toBe(0)
    expect((await lines(join(folder, 'mapped', 'results.jsonl'))).map((line) => JSON.parse(line).answers)).toEqual([['1889', 'MDCCCLXXXIX']])
  })

  it('--vary makes one configuration per value of a flag, each checked as the flag is', async () => {
    const out = join(folder, 'varied')
    const run = await runCli(['eval', dataset, '--out', out, '--vary', 'max-steps=1,3', ...cliFlags(backend)])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('scratchpad/fake-model max-steps=1')
    expect(run.stdout).toContain('scratchpad/fake-model max-steps=3')
    expect(new Set((await lines(join(out, 'results.jsonl'))).map((line) => JSON.parse(line).config))).toEqual(
      new Set(['scratchpad/fake-model max-steps=1', 'scratchpad/fake-model max-steps=3']),
    )
    const bad = await runCli(['eval', dataset, '--out', join(folder, 'bad'), '--vary', 'max-steps=0', ...cliFlags(backend)])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--max-steps')
  })

  it('refuses a run without --out, and --replay without a cassette', async () => {
    expect((await runCli(['eval', dataset, ...cliFlags(backend)])).stderr).toContain('needs --out DIR')
    expect((await runCli(['eval', dataset, '--out', join(folder, 'x'), '--replay', ...cliFlags(backend)])).code).toBe(2)
  })
})
