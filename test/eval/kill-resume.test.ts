/**
 * Target: an eval killed with SIGKILL at any point resumes without re-running a finished row
 * and without writing a row twice. A real child process (kill-child.ts) is killed at several
 * points, each found in its output (never by a timer); then a run to the end is checked.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const CHILD = 'test/eval/kill-child.ts'

type Line = { type: string; config?: string; id?: string; reason?: string; done?: number }

/** Runs the child; `killWhen` sees each output line (and all so far) and says when to SIGKILL it. */
function runChild(out: string, killWhen?: (line: Line, seen: readonly Line[]) => boolean): Promise<{ lines: Line[]; killed: boolean }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, out], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '' },
  })
  const lines: Line[] = []
  let buffer = ''
  let killed = false
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    buffer += text
    let end = buffer.indexOf('\n')
    while (end >= 0) {
      const line = JSON.parse(buffer.slice(0, end)) as Line
      buffer = buffer.slice(end + 1)
      lines.push(line)
      if (!killed && killWhen?.(line, lines)) {
        killed = true
        child.kill('SIGKILL')
      }
      end = buffer.indexOf('\n')
    }
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (!killed && code !== 0) reject(new Error(`the child exited ${code ?? signal}`))
      else resolve({ lines, killed: killed && signal === 'SIGKILL' })
    })
  })
}

async function fileRows(out: string): Promise<{ keys: string[]; torn: boolean }> {
  const text = await readFile(join(out, 'results.jsonl'), 'utf8').catch(() => '')
  const whole = text.slice(0, text.lastIndexOf('\n') + 1)
  const keys = whole
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const row = JSON.parse(line) as { config: string; id: string }
      return `${row.config}/${row.id}`
    })
  return { keys, torn: whole.length !== text.length }
}

const key = (line: Line) => `${line.config}/${line.id}`

describe('an eval killed with SIGKILL', () => {
  it('resumes at every kill point without re-running a finished row or writing one twice', { timeout: 120_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'laconic-kill-'))
    // Kill points, in order: right at the start, in the middle of the first rows' model calls,
    // right after a row was written, right after a row started, and after several rows.
    const points: ((line: Line, seen: readonly Line[]) => boolean)[] = [
      (line) => line.type === 'eval-start',
      (_line, seen) => seen.filter((l) => l.type === 'model-call').length === 3,
      (line) => line.type === 'row-end',
      (_line, seen) => seen.filter((l) => l.type === 'row-start').length === 3,
      (_line, seen) => seen.filter((l) => l.type === 'row-end').length === 4,
      (_line, seen) => seen.filter((l) => l.type === 'model-call').length === 7,
    ]
    const allStarted: string[] = []
    for (const point of points) {
      const before = await fileRows(out)
      const { lines, killed } = await runChild(out, point)
      expect(killed).toBe(true)
      const started = lines.filter((l) => l.type === 'row-start').map(key)
      // No row that was already in the file is run again.
      expect(started.filter((k) => before.keys.includes(k))).toEqual([])
      allStarted.push(...started)
      const after = await fileRows(out)
      expect(new Set(after.keys).size).toBe(after.keys.length)
    }
    const before = await fileRows(out)
    const { lines } = await runChild(out)
    expect(lines.at(-1)).toMatchObject({ type: 'eval-end', reason: 'done', done: 24 })
    expect(
      lines
        .filter((l) => l.type === 'row-start')
        .map(key)
        .filter((k) => before.keys.includes(k)),
    ).toEqual([])
    const final = await fileRows(out)
    expect(final.torn).toBe(false)
    expect(final.keys).toHaveLength(24)
    expect(new Set(final.keys).size).toBe(24)
    // The kills really interrupted work: some rows were started and never written before a kill.
    expect(allStarted.length).toBeGreaterThan(before.keys.length)
  })
})
