/**
 * `mcpTools()` against real MCP server processes: a small stdio server written for this test, and
 * `laconic mcp` itself (laconic researching with laconic as a tool).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createAgent, memoryCheckpoints, type LLMRequest, type ResearchEvent } from '../../src/index.js'
import { mcpTools } from '../../src/mcp/index.js'
import { assertEventInvariants, scriptedLLM } from '../../src/testing/index.js'

const SERVER = fileURLToPath(new URL('./tiny-mcp-server.mjs', import.meta.url))
let folder: string

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'laconic-mcp-tools-'))
})
afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

async function collect(run: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

/** The calls the tiny server ran, from the file it appends one to per call. */
async function ranCalls(file: string): Promise<{ name: string; args: Record<string, unknown> }[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

/** Tool results the model has been given so far. */
const toolTurns = (req: LLMRequest) => req.turns?.filter((turn) => turn.role === 'tool').length ?? 0

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('mcpTools', () => {
  it("gives react a stdio server's tools, redacts, bounds and reports their results, and stops the server when the run ends", async () => {
    const pidFile = join(folder, 'pid-1')
    const tools = mcpTools({ command: process.execPath, args: [SERVER], env: { TINY_MCP_PID_FILE: pidFile } }, { sensitive: { lookup: ['token'] } })
    const llm = scriptedLLM({
      replies: [
        {
          text: '',
          toolCalls: [
            { name: 'add', args: { a: 2, b: 3 } },
            { name: 'lookup', args: { key: 'k', token: 'tok-secret-42' } },
            { name: 'broken', args: {} },
          ],
        },
        'The sum is 5.',
      ],
    })
    const agent = createAgent({ llm, strategy: 'react', react: { tools: [tools], toolCalls: 'native', resultChars: 500, finalAnswer: () => true } })
    const events = await collect(agent.research('What is 2 + 3?'))
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    // The model was offered the server's tools, with their schemas.
    expect(llm.calls[0]?.tools?.map((tool) => tool.name)).toEqual(expect.arrayContaining(['add', 'lookup', 'broken']))
    const calls = events.filter((event) => event.type === 'tool-call')
    expect(calls.find((call) => call.name === 'lookup')).toMatchObject({ args: { key: 'k', token: '[redacted]' } })
    const results = events.filter((event) => event.type === 'tool-result')
    const byName = (name: string) => results.find((result) => result.callId === calls.find((call) => call.name === name)?.callId)
    expect(byName('add')).toMatchObject({ ok: true })
    expect(byName('broken')).toMatchObject({ ok: false })
    // react's bound on what the model sees applies to the server's 10 kB result.
    expect(byName('lookup')?.chars).toBeLessThanOrEqual(600)
    const turns = JSON.stringify(llm.calls[1]?.turns)
    expect(turns).toContain('The sum is 5.')
    expect(turns).toContain('the disk is on fire')
    // The run closed the server: its process is gone.
    const pid = Number(await readFile(pidFile, 'utf8'))
    expect(pid).toBeGreaterThan(0)
    expect(alive(pid)).toBe(false)
  })

  it('stops the server when the consumer leaves the run mid-call', async () => {
    const pidFile = join(folder, 'pid-2')
    const tools = mcpTools({ command: process.execPath, args: [SERVER], env: { TINY_MCP_PID_FILE: pidFile } })
    let asked!: () => void
    const modelAsked = new Promise<void>((resolve) => (asked = resolve))
    // The model is asked once the server is open, and never answers: the consumer leaves first.
    const llm = scriptedLLM({
      replies: (req) =>
        new Promise<string>((_resolve, reject) => {
          req.signal?.addEventListener('abort', () => reject(req.signal?.reason))
          if (req.tools?.some((tool) => tool.name === 'add')) asked()
        }),
    })
    const agent = createAgent({ llm, strategy: 'react', react: { tools: [tools] } })
    const run = agent.research('q')[Symbol.asyncIterator]()
    expect((await run.next()).value).toMatchObject({ type: 'run-start' })
    // Pulling the next event drives the run into the model call, where it waits.
    const pending = run.next().catch(() => undefined)
    await modelAsked
    const pid = Number(await readFile(pidFile, 'utf8'))
    expect(alive(pid)).toBe(true)
    await run.return?.(undefined)
    await pending
    // The run's end reaches the strategy once its cut call settles; the server then exits (it is not our child to wait on).
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 10_000, interval: 20 })
  })

  it('a server that cannot start is a warning, and the run goes on without its tools', async () => {
    const tools = mcpTools({ command: join(folder, 'no-such-server') }, { timeoutMs: 5000 })
    const llm = scriptedLLM({ replies: ['Nothing to look up.'] })
    const agent = createAgent({ llm, strategy: 'react', react: { tools: [tools], finalAnswer: () => true } })
    const events = await collect(agent.research('q'))
    expect(events.find((event) => event.type === 'warning' && event.code === 'tool-source-failed')?.type).toBe('warning')
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
  })

  it('include: the model is offered only the chosen tools, and a call to another never reaches the server', async () => {
    const callsFile = join(folder, 'calls-include')
    const tools = mcpTools({ command: process.execPath, args: [SERVER], env: { TINY_MCP_CALLS_FILE: callsFile } }, { include: ['add', 'broken'] })
    const llm = scriptedLLM({
      replies: (req) => {
        if (toolTurns(req) === 0) return { text: '', toolCalls: [{ id: 'l', name: 'lookup', args: { key: 'k', token: 't' } }] }
        if (toolTurns(req) === 1) return { text: '', toolCalls: [{ id: 'a', name: 'add', args: { a: 1, b: 1 } }] }
        return 'Two.'
      },
    })
    const agent = createAgent({ llm, strategy: 'react', react: { tools: [tools], toolCalls: 'native', finalAnswer: () => true } })
    const events = await collect(agent.research('What is 1 + 1?'))
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    const offered = llm.calls[0]?.tools?.map((tool) => tool.name) ?? []
    expect(offered).toEqual(expect.arrayContaining(['add', 'broken']))
    expect(offered).not.toContain('lookup')
    // The model named a tool it was not given: a failed call, and the server never saw it.
    expect(events.find((event) => event.type === 'tool-result' && event.callId === 'l')).toMatchObject({ ok: false })
    expect(events.find((event) => event.type === 'tool-result' && event.callId === 'a')).toMatchObject({ ok: true })
    expect(await ranCalls(callsFile)).toEqual([{ name: 'add', args: { a: 1, b: 1 } }])
  })

  it('needsApproval by name: the run pauses with the call as its request before the server runs it, and runs it once approved', async () => {
    const callsFile = join(folder, 'calls-approval')
    const pidFile = join(folder, 'pid-approval')
    const tools = mcpTools(
      { command: process.execPath, args: [SERVER], env: { TINY_MCP_CALLS_FILE: callsFile, TINY_MCP_PID_FILE: pidFile } },
      { needsApproval: ['add'] },
    )
    const llm = scriptedLLM({
      replies: (req) => {
        if (toolTurns(req) === 0) return { text: '', toolCalls: [{ id: 'l', name: 'lookup', args: { key: 'k', token: 't' } }] }
        if (toolTurns(req) === 1) return { text: '', toolCalls: [{ id: 'a', name: 'add', args: { a: 2, b: 3 } }] }
        return 'The sum is 5.'
      },
    })
    const checkpoints = memoryCheckpoints()
    const agent = createAgent({ llm, strategy: 'react', react: { tools: [tools], toolCalls: 'native', finalAnswer: () => true } })
    const first = agent.research('What is 2 + 3?', { checkpoints })
    const paused = await collect(first)
    // `lookup` needs no approval and ran; `add` waits, unrun, and the paused run closed the server.
    expect(paused.at(-1)).toMatchObject({ type: 'run-end', reason: 'paused', request: { kind: 'tool-call', callId: 'a', name: 'add', args: { a: 2, b: 3 } } })
    expect(await ranCalls(callsFile)).toEqual([{ name: 'lookup', args: { key: 'k' } }])
    const firstPid = Number(await readFile(pidFile, 'utf8'))
    await vi.waitFor(() => expect(alive(firstPid)).toBe(false), { timeout: 10_000, interval: 20 })

    const resumed = agent.resume(first.runId, { checkpoints, decision: { action: 'approve' } })
    await collect(resumed)
    expect((await resumed.result).answer).toBe('The sum is 5.')
    expect(await ranCalls(callsFile)).toEqual([
      { name: 'lookup', args: { key: 'k' } },
      { name: 'add', args: { a: 2, b: 3 } },
    ])
  })

  it('needsApproval: true holds every tool of the server', async () => {
    const callsFile = join(folder, 'calls-approval-all')
    const tools = mcpTools({ command: process.execPath, args: [SERVER], env: { TINY_MCP_CALLS_FILE: callsFile } }, { needsApproval: true })
    const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ id: 'l', name: 'lookup', args: { key: 'k', token: 't' } }] }, 'done'] })
    const agent = createAgent({ llm, strategy: 'react', react: { tools: [tools], toolCalls: 'native', finalAnswer: () => true } })
    const run = agent.research('q', { checkpoints: memoryCheckpoints() })
    const events = await collect(run)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'paused', request: { kind: 'tool-call', name: 'lookup' } })
    expect(await ranCalls(callsFile)).toEqual([])
  })

  it('connects to a Streamable HTTP server and sends its headers with every request', async () => {
    const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js')
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js')
    const { z } = await import('zod')
    const tinyServer = () => {
      const mcp = new McpServer({ name: 'tiny-http', version: '1.0.0' })
      mcp.registerTool('shout', { description: 'Upper-cases a word.', inputSchema: { word: z.string() } }, async ({ word }) => ({
        content: [{ type: 'text', text: word.toUpperCase() }],
      }))
      return mcp
    }
    // Stateless: a server and a transport per request, as the SDK's stateless example does.
    const seen: { method?: string; auth?: string }[] = []
    const server = createServer(async (req, res) => {
      seen.push({ method: req.method ?? '', auth: String(req.headers.authorization ?? '') })
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => void transport.close())
      await tinyServer().connect(transport)
      await transport.handleRequest(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const llm = scriptedLLM({ replies: [{ text: '', toolCalls: [{ name: 'shout', args: { word: 'lyon' } }] }, 'LYON.'] })
      const agent = createAgent({
        llm,
        strategy: 'react',
        react: { tools: [mcpTools({ url, headers: { authorization: 'Bearer t0k' } })], toolCalls: 'native', finalAnswer: () => true },
      })
      const events = await collect(agent.research('Shout lyon'))
      expect(events.find((event) => event.type === 'tool-result')).toMatchObject({ ok: true })
      expect(JSON.stringify(llm.calls[1]?.turns)).toContain('LYON')
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((request) => request.auth === 'Bearer t0k')).toBe(true)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('refuses a server it cannot reach as configured', () => {
    expect(() => mcpTools({ url: 'ftp://example.com/mcp' })).toThrow(/not an http\(s\) URL/)
    expect(() => mcpTools({ command: ' ' })).toThrow(/command/)
  })
})
