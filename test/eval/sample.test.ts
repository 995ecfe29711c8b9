/**
 * The offline sample: the README's command replays examples/eval/cassette with no network and
 * no model server, to the score it was recorded with. When a strategy's prompts change, this
 * names the first request the cassette lacks: re-record it with `npm run eval:sample`.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../cli/run-cli.js'

describe('the eval sample', () => {
  it('replays offline: 30 questions, the recorded score, the report written', { timeout: 120_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'laconic-sample-'))
    const run = await runCli(['eval', 'examples/eval/questions.jsonl', '--out', out, '--cassette', 'examples/eval/cassette', '--replay', '-m', 'extractive'])
    expect(run.stderr).not.toMatch(/error/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/scratchpad\/extractive\s+30\s+86\.7% \(70\.3%–94\.7%\)/)
    expect((await readFile(join(out, 'results.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(30)
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('scratchpad/extractive')
  })
})
