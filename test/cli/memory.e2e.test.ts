/**
 * `--memory PATH` end to end, as child processes: a first run's findings are written to a LanceDB
 * folder (embedded through a loopback OpenAI-compatible server) before the process exits, and a
 * second process, given only the folder, recalls them into its planner's prompt.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EmbeddingServer, FAKE_MODEL, startEmbeddingServer } from '../kb/fake-embeddings.js'
import { type ChatTurn, cliFlags, type FakeBackend, startFakeBackend } from './fake-backend.js'
import { runCli } from './run-cli.js'
import { roleOf } from '../support/roles.js'

const FINDING = 'Llamas are shorn in spring, before the summer heat arrives'

let embeddings: EmbeddingServer
let backend: FakeBackend
let folder: string

/** The number `turn` shows the llama source under: after the finding in the notes, or above its search result. */
const llamaNumber = (turn: ChatTurn) => /shorn in spring[^\n]*?\[(\d+)\]/.exec(turn.prompt)?.[1] ?? /^\[(\d+)\] Llama care/m.exec(turn.prompt)?.[1]

// The first question searches once and answers citing the result; a later one answers from what it
// knows. Each cites the source by the number its prompt shows it under, as the prompts ask.
const researcher = (turn: ChatTurn): string => {
  if (roleOf(turn.system) === 'scratchpad planner') return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: llama shearing' : 'Action: Answer'
  if (roleOf(turn.system) === 'scratchpad synthesizer') return `${FINDING} [${llamaNumber(turn)}].`
  if (roleOf(turn.system) === 'scratchpad finalizer') return `${turn.prompt.includes('When are llamas shorn?') ? FINDING : 'In spring'} [${llamaNumber(turn)}].`
  return 'an unexpected request'
}

beforeAll(async () => {
  embeddings = await startEmbeddingServer()
  backend = await startFakeBackend({
    reply: researcher,
    results: () => [{ title: 'Llama care', url: 'https://example.org/llama-care', snippet: 'Shearing happens in spring.' }],
  })
  folder = await mkdtemp(join(tmpdir(), 'laconic-memory-cli-'))
})

afterAll(async () => {
  await Promise.all([embeddings.close(), backend.close()])
  await rm(folder, { recursive: true, force: true })
})

describe('laconic --memory', { timeout: 60_000 }, () => {
  it("gives a later run's planner what an earlier run found, cited as its source", async () => {
    const memory = join(folder, 'memory')
    const embed = ['--embed-backend', 'openai', '--embed-endpoint', embeddings.url, '--embed-model', FAKE_MODEL]
    const first = await runCli([...cliFlags(backend), '--memory', memory, ...embed, 'When are llamas shorn?'])
    expect(first.stderr).not.toContain('failed')
    expect(first.code).toBe(0)
    // The write happened before the process exited: the finding (the answer's cited sentence) was embedded.
    expect(embeddings.texts).toContain(`${FINDING}.`)
    expect(JSON.parse(await readFile(join(memory, 'laconic-kb.json'), 'utf8'))).toMatchObject({ embed: { backend: 'openai', model: FAKE_MODEL } })

    const turns = backend.turns.length
    // No embed flags: the folder recorded its embedder.
    const second = await runCli([...cliFlags(backend), '--memory', memory, 'What is the best season to shear a llama?'])
    expect(second.code).toBe(0)
    const planner = backend.turns.slice(turns).find((turn) => roleOf(turn.system) === 'scratchpad planner')
    expect(planner?.prompt).toContain(`${FINDING}. [1]`)
    expect(second.stdout).toContain('In spring [1].')
    expect(second.stdout).toContain('https://example.org/llama-care')
    // The recall embedded the question, and the run counted it.
    expect(embeddings.texts.at(-1)).toBe('What is the best season to shear a llama?')
    expect(second.stderr).toMatch(/\[done\] answered · .* · 1 token embedded\n/)
  })

  it('needs an embedding model the first time', async () => {
    const out = await runCli([...cliFlags(backend), '--memory', join(folder, 'fresh'), 'When are llamas shorn?'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('--memory')
    expect(out.stderr).toContain('has no embedding model yet')
  })
})
