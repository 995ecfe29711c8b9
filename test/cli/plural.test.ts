/** Every count the CLI prints agrees with its number (issue 35, item 9): `1 chunk`, `1 search`, `2 chunks`. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { roleOf } from '../support/roles.js'
import { type ChatTurn, cliFlags, type FakeBackend, modelFlags, type ScriptedReply, startFakeBackend } from './fake-backend.js'
import { laconic } from './laconic.js'

let backend: FakeBackend
let dir: string
/** How the model answers the test that runs now. */
let model: (turn: ChatTurn) => string | ScriptedReply = () => 'Action: Answer'
beforeAll(async () => {
  backend = await startFakeBackend({
    reply: (turn) => model(turn),
    results: () => ['https://a.example/1', 'https://b.example/1', 'https://a.example/2'].map((url) => ({ title: 'T', url, snippet: 'x' })),
  })
  dir = await mkdtemp(join(tmpdir(), 'laconic-plural-'))
})
afterAll(async () => {
  await backend.close()
  await rm(dir, { recursive: true, force: true })
})

describe('counts in the CLI', () => {
  it('one is singular, any other number plural', async () => {
    // The models Ollama lists, as the notice of the one picked counts them (an interrupted run: nothing else happens).
    const interrupted = AbortSignal.abort()
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 200 }), async (n) => {
        const models = Array.from({ length: n }, (_, i) => ({ name: `model-${i}` }))
        const fetch = (async () => Response.json({ models })) as typeof globalThis.fetch
        const { stderr } = await laconic(['--no-fetch', '--search', 'searxng', '--searxng-url', backend.url, 'q'], { fetch, interrupt: interrupted })
        expect(stderr).toContain(`the first of ${n} ${n === 1 ? 'model' : 'models'} at `)
      }),
      { numRuns: 30 },
    )
  })

  it('laconic index and kb list', async () => {
    await writeFile(join(dir, 'a.md'), 'One line.')
    // The clock: the index starts at 0; every later reading is a second on.
    let readings = 0
    const now = () => (readings++ === 0 ? 0 : 1000)
    const embed = ['--embed-backend', 'openai', '--embed-endpoint', backend.url, '--embed-model', 'fake-embed']
    const { code, stderr } = await laconic(['index', join(dir, 'a.md'), '--kb', join(dir, 'kb'), ...embed], { now })
    expect(code).toBe(0)
    expect(stderr).toBe(
      'laconic: indexing: 1/1 file · 0 unchanged · 1 chunk · 1.0 embeddings/s\n' +
        'laconic: indexed 1 added, 0 updated, 0 unchanged, 0 removed; 1 chunk embedded in 1.0 s\n',
    )
    const list = await laconic(['kb', 'list', '--kb', join(dir, 'kb')])
    expect(list.stdout).toMatch(/\t1 chunk\t/)
    expect(list.stderr).toBe('laconic: 1 document\n')
  })

  it('the run summary', async () => {
    // One model call of one token: the plan, paused for approval.
    model = () => ({ text: 'Action: Search\nQuery: x', usage: { promptTokens: 1, completionTokens: 0 } })
    const one = await laconic([...cliFlags(backend), '--checkpoint-dir', join(dir, 'checkpoints'), '--approve-plan', 'q'])
    expect(one.code).toBe(4)
    expect(one.stderr).toMatch(/\[done\] paused for approval · [^\n]* · 1 model call · 1 token · run /)
    // Two calls of 15 tokens each: react searches once, then answers.
    model = (turn) =>
      turn.messages.some((message) => message.role === 'tool')
        ? { text: 'Blue [1].', usage: { promptTokens: 10, completionTokens: 5 } }
        : { text: '', toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"query":"sky"}' }], usage: { promptTokens: 10, completionTokens: 5 } }
    const two = await laconic([...cliFlags(backend), '-s', 'react', 'q'])
    expect(two.code).toBe(0)
    expect(two.stderr).toMatch(/\[done\] answered · [^\n]* · 2 model calls · 30 tokens\n/)
  })

  it('the progress lines', async () => {
    // A page of one character, read from a folder; notes of one character.
    const corpus = join(dir, 'corpus')
    await mkdir(corpus)
    await writeFile(join(corpus, 'x.md'), 'x')
    model = (turn) => {
      switch (roleOf(turn.system)) {
        case 'scratchpad planner':
          return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: x' : 'Action: Answer'
        case 'scratchpad synthesizer':
          return 'x'
        case 'graph-reader planner':
          // A query for the page, or (asked about nothing) one the folder has no page for.
          return JSON.stringify({ goal: 'x', steps: ['search'], key_elements: ['x'], queries: [turn.prompt.includes('nothing') ? 'zzz' : 'x'] })
        case 'graph-reader extractor':
          return '{"facts": []}'
        case 'graph-reader neighbor':
          return '{"answerable": true}'
        default:
          return 'Answer.'
      }
    }
    // graph-reader reads the pages it found.
    const read = await laconic([...modelFlags(backend), '--corpus', corpus, '-s', 'graph-reader', 'q'])
    expect(read.stderr).toMatch(/^\[page\] file:\/\/\S*\/x\.md \(1 char\)$/m)
    const notes = await laconic([...modelFlags(backend), '--corpus', corpus, 'q'])
    expect(notes.stderr).toContain('\n[notes] iteration 1: 1 char\n')
    // Results the sources rules left out, and none at all.
    const filtered = await laconic([...cliFlags(backend), '--deny', 'a.example,b.example', 'q'])
    expect(filtered.stderr).toMatch(/^\[result q1\] 0 results \(3 left out by the sources rules\)$/m)
    const none = await laconic([...modelFlags(backend), '--corpus', corpus, '-s', 'graph-reader', 'nothing'])
    expect(none.stderr).toMatch(/^\[result q1\] 0 results$/m)
  })
})
