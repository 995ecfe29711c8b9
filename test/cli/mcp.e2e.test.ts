/**
 * `laconic mcp` driven by the MCP SDK's real `Client`: the CLI runs as a child process (stdio,
 * then Streamable HTTP) against a loopback OpenAI-compatible server and a local corpus.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeBackend, type ChatTurn, type FakeBackend, type ScriptedReply } from './fake-backend.js'
import { REPO, runCli } from './run-cli.js'
import { roleOf } from '../support/roles.js'

const ANSWER = 'The sky looks blue because air molecules scatter blue sunlight far more than red [1].'

/** The graph-reader's steps, by system prompt: one search, one fact from source [1], then the answer citing it. */
function researcher(stallAnswer = false): (turn: ChatTurn) => string | ScriptedReply {
  return (turn) => {
    if (roleOf(turn.system) === 'graph-reader planner')
      return JSON.stringify({ goal: 'explain the colour', steps: ['find the cause'], key_elements: ['scattering'], queries: ['why is the sky blue'] })
    if (roleOf(turn.system) === 'graph-reader extractor') return JSON.stringify({ facts: [{ text: 'Air scatters blue light most', source: 1 }] })
    if (roleOf(turn.system) === 'graph-reader neighbor') return '{"answerable": true, "missing": "", "queries": []}'
    if (roleOf(turn.system) === 'graph-reader finalizer') return stallAnswer ? { text: ANSWER, stallAfterTokens: 3 } : ANSWER
    return '{}'
  }
}

let backend: FakeBackend
let stalling: FakeBackend
let folder: string

beforeAll(async () => {
  backend = await startFakeBackend({ reply: researcher() })
  stalling = await startFakeBackend({ reply: researcher(true) })
  folder = await mkdtemp(join(tmpdir(), 'laconic-mcp-'))
  await writeFile(join(folder, 'sky.md'), '# Why the sky is blue\n\nSunlight is scattered by the molecules of the air, and blue light is scattered most.\n')
})

afterAll(async () => {
  await Promise.all([backend.close(), stalling.close()])
  await rm(folder, { recursive: true, force: true })
})

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' }
const cliArgs = (b: FakeBackend, ...extra: string[]) => [
  '--import',
  'tsx',
  'src/cli/main.ts',
  'mcp',
  ...extra,
  '--backend',
  'openai',
  '--endpoint',
  b.url,
  '--model',
  'fake-model',
  '--corpus',
  folder,
  '--strategy',
  'graph-reader',
]

/** Resolves when the text seen so far satisfies `done`; fed by a stream's data events. */
function watch(stream: Readable | null): { text: () => string; until: (done: (all: string) => boolean) => Promise<string> } {
  let all = ''
  const waiters: { done: (all: string) => boolean; resolve: (all: string) => void }[] = []
  stream?.setEncoding('utf8')
  stream?.on('data', (chunk: string) => {
    all += chunk
    for (const waiter of [...waiters]) {
      if (waiter.done(all)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(all)
      }
    }
  })
  return {
    text: () => all,
    until: (done) => (done(all) ? Promise.resolve(all) : new Promise((resolve) => waiters.push({ done, resolve }))),
  }
}

async function stdioClient(b: FakeBackend, ...extra: string[]) {
  const transport = new StdioClientTransport({ command: process.execPath, args: cliArgs(b, ...extra), cwd: REPO, env: ENV, stderr: 'pipe' })
  const stderr = watch(transport.stderr as Readable | null)
  const client = new Client({ name: 'laconic-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, stderr }
}

type Content = { type: string; text?: string; uri?: string; name?: string }

describe('laconic mcp over stdio', { timeout: 60_000 }, () => {
  it('lists the research tool, runs it with progress notifications, returns the cited answer with resource links', async () => {
    const { client, stderr } = await stdioClient(backend)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['research'])
      const schema = tools[0]?.inputSchema as { properties: Record<string, { enum?: string[] }>; required?: string[] }
      expect(schema.required).toEqual(['question'])
      expect(schema.properties.strategy?.enum).toContain('scratchpad')

      const progress: Progress[] = []
      const result = await client.callTool({ name: 'research', arguments: { question: 'Why is the sky blue?', strategy: 'graph-reader' } }, undefined, {
        onprogress: (p) => progress.push(p),
      })
      const content = result.content as Content[]
      expect(result.isError).toBeFalsy()
      expect(content[0]?.type).toBe('text')
      expect(content[0]?.text).toMatch(new RegExp(`^${ANSWER.replace(/[.[\]]/g, '\\$&')}\n\nSources:\n\\[1\\] `))
      const links = content.filter((c) => c.type === 'resource_link')
      expect(links).toHaveLength(1)
      expect(links[0]?.uri).toMatch(/^file:\/\/.*\/sky\.md(#|$)/)
      expect(content[0]?.text).toContain(`[1] ${links[0]?.name === links[0]?.uri ? '' : `${links[0]?.name} `}${links[0]?.uri}`)

      const messages = progress.map((p) => p.message)
      expect(messages[0]).toBe('researching with graph-reader')
      expect(messages).toContain('fact: Air scatters blue light most')
      expect(messages).toContain('searching: why is the sky blue')
      // The last notification ('answer written') may reach the client in the same read as the result:
      // the SDK's client settles the call first and drops progress that comes after, so it is not asserted.
      expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1))
      await stderr.until((all) => all.includes('"Why is the sky blue?" answered'))
    } finally {
      await client.close()
    }
  })

  it('a question that is empty is refused by the schema', async () => {
    const { client } = await stdioClient(backend)
    try {
      const result = await client.callTool({ name: 'research', arguments: { question: '   ' } })
      expect(result.isError).toBe(true)
    } finally {
      await client.close()
    }
  })

  it('cancelling a call aborts the run (the model stream is held open until then), and the server serves the next one', async () => {
    const { client, stderr } = await stdioClient(stalling)
    try {
      const controller = new AbortController()
      const call = client.callTool({ name: 'research', arguments: { question: 'Why is the sky blue, really?' } }, undefined, {
        signal: controller.signal,
        onprogress: (p) => {
          // The finalizer is reached after the search's facts: from there the model stalls.
          if (p.message === '1 result' || p.message?.startsWith('searching')) controller.abort(new Error('the user gave up'))
        },
      })
      await expect(call).rejects.toThrow(/gave up|abort/i)
      const log = await stderr.until((all) => /"Why is the sky blue, really\?" aborted/.test(all))
      expect(log).toMatch(/aborted .*· \d+ model calls?/)
      const { tools } = await client.listTools()
      expect(tools).toHaveLength(1)
    } finally {
      await client.close()
    }
  })
})

describe('laconic mcp --sessions DIR', { timeout: 60_000 }, () => {
  it('a second server process goes on with a conversation the first one held, through DIR', async () => {
    const dir = join(folder, 'chats')
    const first = await stdioClient(backend, '--sessions', dir)
    try {
      const result = await first.client.callTool({ name: 'research', arguments: { question: 'Why is the sky blue?', conversationId: 'sky' } })
      expect((result.content as Content[])[0]?.text).toContain(ANSWER)
    } finally {
      await first.client.close()
    }
    const stored = JSON.parse(await readFile(join(dir, 'sky.json'), 'utf8')) as { priorAnswers: { query: string }[] }
    expect(stored.priorAnswers.map((p) => p.query)).toEqual(['Why is the sky blue?'])

    // A new process: only DIR links the two turns.
    const before = backend.turns.length
    const second = await stdioClient(backend, '--sessions', dir)
    try {
      await second.client.callTool({ name: 'research', arguments: { question: 'And at sunset?', conversationId: 'sky' } })
    } finally {
      await second.client.close()
    }
    const planner = backend.turns.slice(before).find((turn) => roleOf(turn.system) === 'graph-reader planner')
    expect(planner?.prompt).toContain('And at sunset?')
    expect(planner?.prompt).toContain('Air scatters blue light most')
    const after = JSON.parse(await readFile(join(dir, 'sky.json'), 'utf8')) as { priorAnswers: { query: string }[] }
    expect(after.priorAnswers.map((p) => p.query)).toEqual(['Why is the sky blue?', 'And at sunset?'])
  })
})

describe('laconic mcp --http', { timeout: 60_000 }, () => {
  let base = ''
  let stop: () => Promise<void> = async () => {}

  beforeAll(async () => {
    const { spawn } = await import('node:child_process')
    const child = spawn(process.execPath, cliArgs(backend, '--http', '0'), { cwd: REPO, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] })
    const stderr = watch(child.stderr)
    const line = await stderr.until((all) => /Streamable HTTP on (\S+)/.test(all))
    base = /Streamable HTTP on (\S+)/.exec(line)?.[1] ?? ''
    stop = () =>
      new Promise<void>((resolve) => {
        child.once('close', () => resolve())
        child.kill('SIGINT')
      })
  })
  afterAll(() => stop())

  it('a Streamable HTTP client lists the tool and gets the answer with progress', async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const client = new Client({ name: 'laconic-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(base)))
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['research'])
      const progress: Progress[] = []
      const result = await client.callTool({ name: 'research', arguments: { question: 'Why is the sky blue?' } }, undefined, {
        onprogress: (p) => progress.push(p),
      })
      expect((result.content as Content[])[0]?.text).toContain(ANSWER)
      expect(progress.map((p) => p.message)).toContain('searching: why is the sky blue')
    } finally {
      await client.close()
    }
  })

  it('refuses a cross-site request and one addressed to another host', async () => {
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    })
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const crossSite = await fetch(base, { method: 'POST', body: init, headers: { ...headers, origin: 'https://evil.example' } })
    expect(crossSite.status).toBe(403)
    const rebound = await new Promise<number>((resolve, reject) =>
      request(base, { method: 'POST', headers: { ...headers, host: `evil.example:${new URL(base).port}` } }, (res) => resolve(res.resume().statusCode ?? 0))
        .on('error', reject)
        .end(init),
    )
    expect(rebound).toBe(403)
    const marked = await new Promise<number>((resolve, reject) =>
      request(base, { method: 'POST', headers: { ...headers, 'sec-fetch-site': 'cross-site' } }, (res) => resolve(res.resume().statusCode ?? 0))
        .on('error', reject)
        .end(init),
    )
    expect(marked).toBe(403)
    // The same request from the server's own origin is served.
    const own = await fetch(base, { method: 'POST', body: init, headers: { ...headers, origin: new URL(base).origin } })
    expect(own.status).toBe(200)
    await own.body?.cancel()
  })
})

describe('laconic mcp --http --idle-ms', { timeout: 60_000 }, () => {
  it('closes a session left idle: the server says so, and the session is gone (404)', async () => {
    const { spawn } = await import('node:child_process')
    const child = spawn(process.execPath, cliArgs(backend, '--http', '0', '--idle-ms', '200'), { cwd: REPO, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] })
    try {
      const stderr = watch(child.stderr)
      const url = /Streamable HTTP on (\S+)/.exec(await stderr.until((all) => /Streamable HTTP on (\S+)/.test(all)))?.[1] ?? ''
      const client = new Client({ name: 'laconic-test', version: '1.0.0' })
      const transport = new StreamableHTTPClientTransport(new URL(url))
      await client.connect(transport)
      const sessionId = transport.sessionId ?? ''
      expect(sessionId).not.toBe('')
      await stderr.until((all) => all.includes(`closed session ${sessionId} after 200 ms without a request`))
      const again = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
      })
      expect(again.status).toBe(404)
      await again.body?.cancel()
      await client.close().catch(() => undefined)
    } finally {
      await new Promise<void>((resolve) => {
        child.once('close', () => resolve())
        child.kill('SIGINT')
      })
    }
  })
})

describe('laconic mcp usage errors', { timeout: 30_000 }, () => {
  it.each([
    [['mcp', 'what', 'is', 'it'], 'laconic: laconic mcp takes no question (the client asks them); got "what is it"\n'],
    [['mcp', '--http', 'abc'], 'laconic: --http takes a port from 0 to 65535 (0 picks a free one); got "abc"\n'],
    [['mcp', '--serve', '8080'], 'laconic: laconic mcp and --serve are two servers: choose one\n'],
    [['mcp', '--sessions'], 'laconic: --sessions takes the folder to keep conversations in; got nothing\n'],
    [['mcp', '--http', '0', '--idle-ms', '0'], 'laconic: --idle-ms takes the milliseconds a session may stay idle (a whole number >= 1); got "0"\n'],
    [['mcp', '--idle-ms', '1000'], 'laconic: --idle-ms closes idle HTTP sessions: give it with --http PORT\n'],
  ])('%j exits 2 with one line', async (args, line) => {
    const out = await runCli(args)
    expect(out).toMatchObject({ code: 2, stdout: '', stderr: line })
  })
})
