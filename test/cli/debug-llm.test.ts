/** `--debug`: every model call on stderr (system prompt, prompt, reply), secrets redacted, the answer untouched. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { roleOf } from '../support/roles.js'
import { type ChatTurn, cliFlags, type FakeBackend, type ScriptedReply, startFakeBackend } from './fake-backend.js'
import { laconic } from './laconic.js'

let backend: FakeBackend
let model: (turn: ChatTurn) => string | ScriptedReply = () => ''
beforeAll(async () => {
  backend = await startFakeBackend({ reply: (turn) => model(turn) })
})
afterAll(() => backend.close())

/** The `── ... ──` headers of the log and the lines under them, from stderr. */
const logOf = (stderr: string) => stderr.slice(stderr.indexOf('── #1'), stderr.indexOf('\n[answer]') + 1)

describe('--debug', () => {
  it('writes the system prompt, prompt and reply of every call, secrets redacted, chunks untouched', async () => {
    model = () => 'the key is sk-abcdef'
    const { code, stdout, stderr } = await laconic([...cliFlags(backend), '--api-key', 'sk-abcdef', '-s', 'react', '--debug', 'say sk-abcdef'])
    expect(code).toBe(0)
    // The model's output is not altered, only the log.
    expect(stdout).toBe('the key is sk-abcdef\n')
    const system = backend.turns.at(-1)?.system ?? ''
    expect(system).not.toBe('')
    expect(logOf(stderr)).toBe(
      `── #1 fake-model system ──\n${system}\n── #1 fake-model prompt ──\nQuestion: say [redacted]\n── #1 reply ──\nthe key is [redacted]\n`,
    )
    expect(stderr).not.toMatch(/── #2/)
  })

  it('numbers the calls, and marks a request for JSON', async () => {
    model = (turn) => {
      switch (roleOf(turn.system)) {
        case 'graph-reader planner':
          return JSON.stringify({ goal: 'x', steps: ['search'], key_elements: ['x'], queries: ['x'] })
        case 'graph-reader neighbor':
          return '{"answerable": true}'
        default:
          return 'Answer.'
      }
    }
    const { stderr } = await laconic([...cliFlags(backend), '-s', 'graph-reader', '--debug', 'q'])
    const headers = stderr.split('\n').filter((line) => line.startsWith('── '))
    expect(headers.slice(0, 6)).toEqual([
      '── #1 fake-model system ──',
      '── #1 fake-model prompt (json) ──',
      '── #1 reply ──',
      '── #2 fake-model system ──',
      '── #2 fake-model prompt (json) ──',
      '── #2 reply ──',
    ])
  })

  it('a failed call is logged as failed, and the error still reaches the caller', async () => {
    model = () => ({ text: 'partial answer here', cutAfterTokens: 1 })
    const { code, stderr } = await laconic([...cliFlags(backend), '-s', 'react', '--debug', 'q'])
    expect(code).toBe(1)
    expect(stderr).toMatch(/\n── #1 failed: openai: connection lost mid-response [^\n]* ──\npartial\n/)
    expect(stderr).toContain('\nlaconic: error: openai: connection lost mid-response')
  })
})
