/**
 * The offline sample: the README's command replays examples/eval/cassette with no network and
 * no model server, to the score it was recorded with. When a strategy's prompts change, this
 * names the first request the cassette lacks: re-record it with `npm run eval:sample`.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type ConfigSummary, readResults, summarize } from '../../src/eval/index.js'
import { runCli } from '../cli/run-cli.js'

describe('the eval sample', () => {
  it('replays offline: 30 questions, the recorded score, the report written', { timeout: 120_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'laconic-sample-'))
    const run = await runCli(['eval', 'examples/eval/questions.jsonl', '--out', out, '--cassette', 'examples/eval/cassette', '--replay', '-m', 'extractive'])
    expect(run.stderr, 'the committed cassette is stale: record it again with npm run eval:sample').not.toMatch(/error/)
    expect(run.code).toBe(0)
    const recorded = JSON.parse(await readFile('examples/eval/recorded-summary.json', 'utf8')) as ConfigSummary[]
    const replayed = summarize(await readResults(out)).map(({ p50Ms: _p50, p95Ms: _p95, ...rest }) => rest)
    expect(replayed).toEqual(recorded)
    expect(recorded[0]).toMatchObject({ config: 'scratchpad/extractive', rows: 30 })
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('scratchpad/extractive')
  })
})
