/**
 * Laconic researching with laconic as a tool: a `react` run whose `mcpTools` start `laconic mcp`
 * (the CLI as a child process over stdio, on a loopback OpenAI-compatible server and a local
 * corpus) and call its `research` tool. And `--mcp` parsed into the servers the CLI gives react.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent, type ResearchEvent } from '../../src/index.js'
import { mcpTools } from '../../src/mcp/index.js'
import { assertEventInvariants, scriptedLLM } from '../../src/testing/index.js'
import { cliFlags, startFakeBackend, type FakeBackend } from './fake-backend.js'
import { laconic as laconicCommand, USAGE } from './laconic.js'
import { REPO } from './run-cli.js'
import { roleOf } from '../support/roles.js'

const ANSWER = 'The sky looks blue because air molecules scatter blue sunlight far more than red [1].'
let backend: FakeBackend
let folder: string

beforeAll(async () => {
  // The inner laconic's graph-reader steps: one search, one fact from source [1], the answer citing it.
  backend = await startFakeBackend({
    reply: (turn) => {
      if (roleOf(turn.system) === 'graph-reader planner')
        return JSON.stringify({ goal: 'explain', steps: ['find'], key_elements: ['scattering'], queries: ['why is the sky blue'] })
      if (roleOf(turn.system) === 'graph-reader extractor') return JSON.stringify({ facts: [{ text: 'Air scatters blue light most', source: 1 }] })
      if (roleOf(turn.system) === 'graph-reader neighbor') return '{"answerable": true, "missing": "", "queries": []}'
      if (roleOf(turn.system) === 'graph-reader finalizer') return ANSWER
      return '{}'
    },
  })
  folder = await mkdtemp(join(tmpdir(), 'laconic-mcp-tools-e2e-'))
  await writeFile(join(folder, 'sky.md'), '# Why the sky is blue\n\nSunlight is scattered by the molecules of the air, and blue light is scattered most.\n')
})

afterAll(async () => {
  await backend.close()
  await rm(folder, { recursive: true, force: true })
})

describe('laconic with laconic mcp as a tool', { timeout: 60_000 }, () => {
  it("calls laconic mcp's research tool and answers from what it returned", async () => {
    const laconic = mcpTools({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'mcp',
        '--backend',
        'openai',
        '--endpoint',
        backend.url,
        '--model',
        'fake-model',
        '--corpus',
        folder,
        '--strategy',
        'graph-reader',
      ],
      cwd: REPO,
      env: { NO_COLOR: '1' },
    })
    const llm = scriptedLLM({
      replies: [
        { text: '', toolCalls: [{ name: 'research', args: { question: 'Why is the sky blue?', strategy: 'graph-reader' } }] },
        'Air scatters blue light most.',
      ],
    })
    const agent = createAgent({ llm, strategy: 'react', react: { tools: [laconic], toolCalls: 'native', resultChars: 4000, finalAnswer: () => true } })
    const events: ResearchEvent[] = []
    for await (const event of agent.research('Why is the sky blue?')) events.push(event)
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    expect(events.find((event) => event.type === 'tool-result')).toMatchObject({ ok: true })
    // The inner laconic's cited answer reached the outer model.
    expect(JSON.stringify(llm.calls[1]?.turns)).toContain('air molecules scatter blue sunlight')
  })
})

describe('--mcp', { timeout: 60_000 }, () => {
  it('splits a command line as a shell would (quotes, escapes), takes a URL as Streamable HTTP, and implies react', async () => {
    // A "server" that records the arguments it was started with, beside itself, and exits.
    const recorder = join(folder, 'record-argv.mjs')
    await writeFile(
      recorder,
      "import { writeFileSync } from 'node:fs'\nwriteFileSync(new URL('./argv.json', import.meta.url), JSON.stringify(process.argv.slice(2)))\n",
    )
    const requests: string[] = []
    const http = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`)
      res.writeHead(500).end()
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
      const line = `${process.execPath} ${recorder} -y "server with space" 'it''s' a\\ b`
      const { code, stdout } = await laconicCommand([...cliFlags(backend), '-f', 'ndjson', '--mcp', line, '--mcp', url, 'q'])
      expect(code).toBe(0)
      expect(JSON.parse(stdout.split('\n')[0] as string)).toMatchObject({ type: 'run-start', strategy: 'react' })
      expect(JSON.parse(await readFile(join(folder, 'argv.json'), 'utf8'))).toEqual(['-y', 'server with space', 'its', 'a b'])
      expect(requests[0]).toBe('POST /mcp')
    } finally {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    }
    for (const [argv, message] of [
      [['--mcp', 'node x', '-s', 'deep', 'q'], /react strategy/],
      [['--mcp', '"unclosed', 'q'], /unclosed quote/],
    ] as const) {
      const refused = await laconicCommand(argv)
      expect(refused.code).toBe(USAGE)
      expect(refused.stderr).toMatch(message)
    }
  })
})
