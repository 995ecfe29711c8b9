import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { localCorpus } from '../../src/adapters/index.js'
import { type EvalEvent, type EvalRow, evaluate, readDataset, readResults } from '../../src/eval/index.js'
import type { AgentOptions } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { extractiveModel } from '../support/extractive-model.js'

const CORPUS = [
  {
    title: 'Eiffel Tower',
    url: 'https://en.test/eiffel',
    snippet: 'The Eiffel Tower was designed by the engineering firm of Gustave Eiffel and completed in 1889.',
  },
  {
    title: 'Mount Everest',
    url: 'https://en.test/everest',
    snippet: 'Mount Everest is 8,849 metres tall and lies in the Himalayas on the Nepal China border.',
  },
  {
    title: 'Ada Lovelace',
    url: 'https://en.test/ada',
    snippet: 'Ada Lovelace wrote the first published algorithm for the Analytical Engine of Charles Babbage.',
  },
]

const ROWS: EvalRow[] = [
  { id: 'eiffel', question: 'In which year was the Eiffel Tower completed?', answers: ['1889'], evidence: [{ text: CORPUS[0]!.snippet }], tags: ['history'] },
  { id: 'everest', question: 'How tall is Mount Everest in metres?', answers: ['8,849 metres', '8849 m'], tags: ['geography'] },
  { id: 'ada', question: 'Whose Analytical Engine did Ada Lovelace write an algorithm for?', answers: ['Charles Babbage'], tags: ['history'] },
  { id: 'moon', question: 'Who was the first person on the Moon?', answers: ['Neil Armstrong'], evidence: [{ url: 'https://en.test/moon' }] },
]

const agent = (overrides: Partial<AgentOptions> = {}): AgentOptions => ({
  llm: extractiveModel(),
  search: mockSearch({ corpus: CORPUS }),
  strategy: 'scratchpad',
  ...overrides,
})

async function drain(events: AsyncIterable<EvalEvent>): Promise<EvalEvent[]> {
  const out: EvalEvent[] = []
  for await (const event of events) out.push(event)
  return out
}

const tmp = () => mkdtemp(join(tmpdir(), 'laconic-eval-'))

describe('evaluate', () => {
  it('runs every question under every configuration, grades and measures each row, and appends it to results.jsonl', async () => {
    const out = await tmp()
    const grader = scriptedLLM({
      model: 'judge',
      replies: (req) => (req.prompt.includes('Gold target: Neil') ? 'C' : /Gold target: (1889|Charles)/.test(req.prompt) ? 'A' : 'B'),
    })
    const events = await drain(
      evaluate({
        dataset: ROWS,
        configs: [
          { name: 'a', agent: agent() },
          { name: 'b', agent: agent({ searchLimit: 1 }) },
        ],
        out,
        grader,
        concurrency: 3,
      }),
    )
    expect(events[0]).toMatchObject({ type: 'eval-start', total: 8, done: 0, configs: ['a', 'b'] })
    const end = events.at(-1)
    expect(end).toMatchObject({ type: 'eval-end', reason: 'done', done: 8, total: 8 })
    const rows = await readResults(out)
    expect(rows).toHaveLength(8)
    const eiffel = rows.find((row) => row.config === 'a' && row.id === 'eiffel')!
    expect(eiffel).toMatchObject({
      reason: 'answered',
      correct: true,
      grades: { contains: true, model: 'correct' },
      evidenceRecall: 1,
      tags: ['history'],
      searches: 1,
    })
    expect(eiffel.llmCalls).toBeGreaterThanOrEqual(3)
    expect(eiffel.cost).toBeGreaterThan(0)
    expect(eiffel.graderCost).toBe(0)
    const moon = rows.find((row) => row.config === 'a' && row.id === 'moon')!
    expect(moon).toMatchObject({ correct: false, notAttempted: true, evidenceRecall: 0 })
    expect(end?.type === 'eval-end' && end.summary.map((s) => [s.config, s.rows, s.correct])).toEqual([
      ['a', 4, 2],
      ['b', 4, 2],
    ])
    // Every row-end came with the running count, and each (configuration, id) once.
    expect(events.filter((e) => e.type === 'row-end').map((e) => (e.type === 'row-end' ? e.done : 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
  })

  it('a second run over the same folder resumes: finished rows are not run again, nothing is written twice', async () => {
    const out = await tmp()
    const first = agent()
    const events = evaluate({ dataset: ROWS, configs: [{ name: 'a', agent: first }], out, concurrency: 1 })
    for await (const event of events) if (event.type === 'row-end' && event.done === 2) break
    expect(await readResults(out)).toHaveLength(2)
    const search = mockSearch({ corpus: CORPUS })
    const again = await drain(evaluate({ dataset: ROWS, configs: [{ name: 'a', agent: agent({ search }) }], out }))
    expect(again[0]).toMatchObject({ type: 'eval-start', done: 2 })
    expect(search.calls).toHaveLength(2)
    const lines = (await readFile(join(out, 'results.jsonl'), 'utf8')).trim().split('\n')
    expect(lines.map((line) => JSON.parse(line).id).sort()).toEqual(['ada', 'eiffel', 'everest', 'moon'])
  })

  it('cuts a torn last line before appending, and ignores a line that is not a row', async () => {
    const out = await tmp()
    await drain(evaluate({ dataset: ROWS.slice(0, 1), configs: [{ name: 'a', agent: agent() }], out }))
    const whole = await readFile(join(out, 'results.jsonl'), 'utf8')
    await writeFile(join(out, 'results.jsonl'), `${whole}{"config":"a","id":"ever`)
    const events = await drain(evaluate({ dataset: ROWS.slice(0, 2), configs: [{ name: 'a', agent: agent() }], out }))
    expect(events.some((e) => e.type === 'eval-warning' && e.message.includes('cut off'))).toBe(true)
    const text = await readFile(join(out, 'results.jsonl'), 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    expect(
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual(['eiffel', 'everest'])
  })

  it('--max-cost: starts no row that could pass the budget, counting rows already finished', async () => {
    const out = await tmp()
    const probe = await drain(evaluate({ dataset: ROWS.slice(0, 1), configs: [{ name: 'a', agent: agent() }], out: await tmp() }))
    const one = probe.at(-1)?.type === 'eval-end' ? (probe.at(-1) as Extract<EvalEvent, { type: 'eval-end' }>).spent : 0
    expect(one).toBeGreaterThan(0)
    const events = await drain(evaluate({ dataset: ROWS, configs: [{ name: 'a', agent: agent() }], out, maxCost: one * 2.5, concurrency: 1 }))
    const end = events.at(-1) as Extract<EvalEvent, { type: 'eval-end' }>
    expect(end.reason).toBe('max-cost')
    expect(end.spent).toBeLessThanOrEqual(one * 2.5)
    expect(end.done).toBeGreaterThanOrEqual(1)
    expect(end.done).toBeLessThan(4)
  })

  it('aborting stops the rows in flight; none of them is written', async () => {
    const out = await tmp()
    const controller = new AbortController()
    const slow = extractiveModel({ latencyMs: 10_000 })
    const events: EvalEvent[] = []
    for await (const event of evaluate({ dataset: ROWS, configs: [{ name: 'a', agent: agent({ llm: slow }) }], out, signal: controller.signal })) {
      events.push(event)
      if (event.type === 'row-start') controller.abort()
    }
    expect(events.at(-1)).toMatchObject({ type: 'eval-end', reason: 'aborted', done: 0 })
    expect(await readResults(out)).toEqual([])
  })

  it('warns when the grader is a model under test', async () => {
    const llm = extractiveModel({ model: 'same' })
    const events = await drain(
      evaluate({
        dataset: ROWS.slice(0, 1),
        configs: [{ name: 'a', agent: agent({ llm }) }],
        out: await tmp(),
        grader: scriptedLLM({ model: 'same', replies: () => 'A' }),
      }),
    )
    expect(events.find((e) => e.type === 'eval-warning')).toMatchObject({ message: expect.stringContaining('configuration "a"') })
    const apart = await drain(
      evaluate({
        dataset: ROWS.slice(0, 1),
        configs: [{ name: 'a', agent: agent({ llm }) }],
        out: await tmp(),
        grader: scriptedLLM({ model: 'judge', replies: () => 'A' }),
      }),
    )
    expect(apart.filter((e) => e.type === 'eval-warning')).toEqual([])
  })

  it('refuses configurations without a unique name', async () => {
    await expect(
      drain(
        evaluate({
          dataset: ROWS,
          configs: [
            { name: 'x', agent: agent() },
            { name: 'x', agent: agent() },
          ],
          out: await tmp(),
        }),
      ),
    ).rejects.toThrow(/two configurations/)
  })
})

describe('evaluate: what rows measure', () => {
  it('reads the support rate of runs with verify', async () => {
    const out = await tmp()
    await drain(evaluate({ dataset: ROWS.slice(0, 2), configs: [{ name: 'v', agent: agent({ verify: 'annotate' }) }], out }))
    const rows = await readResults(out)
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row.supportRate).toBeGreaterThanOrEqual(0)
      expect(row.supportRate).toBeLessThanOrEqual(1)
    }
  })

  it('runs a HotpotQA eval offline over the documents that come with it', async () => {
    const file = join(await tmp(), 'hotpot_dev.json')
    await writeFile(
      file,
      JSON.stringify([
        {
          _id: 'h1',
          question: 'Scott Derrickson lives in which city?',
          answer: 'Los Angeles',
          supporting_facts: [['Scott Derrickson', 1]],
          context: [
            ['Scott Derrickson', ['Scott Derrickson (born July 16, 1966) is an American director.', ' He lives in Los Angeles, California.']],
            ['Ed Wood', ['Edward Davis Wood Jr. was an American filmmaker.']],
          ],
          type: 'bridge',
          level: 'easy',
        },
      ]),
    )
    const dataset = await readDataset(file, { format: 'hotpotqa' })
    const corpus = localCorpus({ documents: dataset.documents ?? [] })
    const out = await tmp()
    const events = await drain(evaluate({ dataset, configs: [{ name: 'hotpot', agent: agent({ search: corpus, fetch: corpus }) }], out }))
    expect(events.at(-1)).toMatchObject({ type: 'eval-end', reason: 'done', done: 1 })
    const [row] = await readResults(out)
    expect(row).toMatchObject({ correct: true, evidenceRecall: 1, tags: ['bridge', 'easy'] })
  })

  it('stops rows in flight when their running cost would pass maxCost, and writes none of them', async () => {
    const out = await tmp()
    // Every model call costs $0.01: the first call of the first row already passes $0.005.
    const costly = scriptedLLM({ model: 'dear', cost: 0.01, replies: (req) => (req.system?.includes('planner') ? 'Action: Search\nQuery: x' : 'notes') })
    const events = await drain(evaluate({ dataset: ROWS, configs: [{ name: 'dear', agent: agent({ llm: costly }) }], out, maxCost: 0.005 }))
    const end = events.at(-1) as Extract<EvalEvent, { type: 'eval-end' }>
    expect(end).toMatchObject({ type: 'eval-end', reason: 'max-cost', done: 0 })
    // What the stopped rows spent is reported, though they are not written.
    expect(end.spent).toBeGreaterThanOrEqual(0.01)
    expect(await readResults(out)).toEqual([])
  })

  it('stops when the grader fails, without writing the row it could not grade', async () => {
    const out = await tmp()
    const grader = scriptedLLM({ model: 'judge', replies: () => ({ text: '', error: new Error('grader down') }) })
    const events = await drain(evaluate({ dataset: ROWS, configs: [{ name: 'a', agent: agent() }], out, grader, concurrency: 1 }))
    expect(events.at(-1)).toMatchObject({ type: 'eval-end', reason: 'error', done: 0, error: expect.stringContaining('grading a eiffel failed: grader down') })
    expect(events.filter((e) => e.type === 'row-start')).toHaveLength(1)
    expect(await readResults(out)).toEqual([])
  })
})
