import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

/** Runs an example as a user would (through tsx), on the scripted demo agent: no model, no network. */
async function example(name: string): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', `examples/${name}/main.ts`, '--demo'], { timeout: 30_000 })
}

describe('the examples run as written', () => {
  it('basic streams the answer and lists its sources', async () => {
    const { stdout, stderr } = await example('basic')
    expect(stdout).toMatch(/^The 2024 Nobel Prize in Chemistry went to David Baker/)
    expect(stdout).toMatch(/^\[1\] The Nobel Prize in Chemistry 2024 https:\/\/www\.nobelprize\.org\//m)
    expect(stderr).toContain('searching: 2024 Nobel Prize Chemistry winners')
    expect(stderr).toMatch(/answered · \$0\.\d{4} · \d+ model calls · 3 searches/)
  })

  it('basic, with no model reachable, says why and how to fix it, and exits 1', async () => {
    // Port 1 on loopback: refused at once, no network touched.
    const failed = await run(process.execPath, ['--import', 'tsx', 'examples/basic/main.ts', 'q'], {
      timeout: 30_000,
      env: { ...process.env, OLLAMA_HOST: 'http://127.0.0.1:1' },
    }).catch((error: { code: number; stderr: string }) => error)
    expect('code' in failed ? failed.code : 0).toBe(1)
    expect(failed.stderr).toContain('127.0.0.1:1')
    expect(failed.stderr).toContain('ollama serve')
    expect(failed.stderr).toContain('--demo')
  })

  it('logging writes one JSON line per meaningful event, tokens summarised', async () => {
    const { stdout } = await example('logging')
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; seq: number })
    expect(lines[0]?.event).toBe('run-start')
    expect(lines.at(-1)?.event).toBe('run-end')
    expect(lines.some((l) => l.event === 'answer-token')).toBe(false)
    expect(lines.map((l) => l.seq)).toEqual([...lines.map((l) => l.seq)].sort((a, b) => a - b))
  })

  it('metrics reports counters that match the run', async () => {
    const { stdout } = await example('metrics')
    const metrics = JSON.parse(stdout) as { cost: { llmCalls: number; searches: number }; queries: number; answerTokens: number }
    expect(metrics.cost.searches).toBe(3)
    expect(metrics.queries).toBe(3)
    expect(metrics.cost.llmCalls).toBeGreaterThan(3)
    expect(metrics.answerTokens).toBeGreaterThan(10)
  })
})
