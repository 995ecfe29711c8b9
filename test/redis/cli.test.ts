/**
 * `laconic worker` and `laconic serve` as a user runs them: a worker on an OpenAI-compatible
 * backend and a SearXNG instance (both a loopback fake), a web node, one Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { fromSSE } from '../../src/streams/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { startFakeBackend, type ChatTurn, type FakeBackend } from '../cli/fake-backend.js'
import { runCli } from '../cli/run-cli.js'
import { startChild, startWebNode, submit, type Child, type WebNode } from './processes.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'
import { roleOf } from '../support/roles.js'

const ANSWER = 'Because air scatters blue light most (https://sky.example/).'

function reply(turn: ChatTurn): string {
  if (roleOf(turn.system) === 'scratchpad planner')
    return turn.prompt.includes('Air scatters') ? 'Action: Answer' : 'Action: Search\nQuery: why is the sky blue'
  if (roleOf(turn.system) === 'scratchpad synthesizer') return 'Air scatters blue light most (https://sky.example/).'
  if (roleOf(turn.system) === 'scratchpad finalizer') return ANSWER
  return ''
}

async function events(url: string): Promise<ResearchEvent[]> {
  const out: ResearchEvent[] = []
  for await (const event of fromSSE((await fetch(url)).body!)) out.push(event)
  return out
}

describe.skipIf(!redisAvailable())('laconic worker and laconic serve', () => {
  let server: RedisServer
  let backend: FakeBackend
  let worker: Child
  let node: WebNode

  beforeAll(async () => {
    server = await startRedis()
    backend = await startFakeBackend({
      reply,
      results: () => [{ title: 'Sky', url: 'https://sky.example/', snippet: 'The sky is blue because air scatters blue light most.' }],
    })
    const agentFlags = [
      '--backend',
      'openai',
      '--endpoint',
      `${backend.url}/v1`,
      '-m',
      'fake-model',
      '--search',
      'searxng',
      '--searxng-url',
      backend.url,
      '--no-fetch',
    ]
    worker = startChild(['src/cli/main.ts', 'worker', '--redis', server.url, '--concurrency', '2', '--queue', 'cli', ...agentFlags])
    await worker.waitFor(/worker on redis:\/\/127\.0\.0\.1:\d+\/?, 2 runs at once/)
    node = await startWebNode(server.url, 'cli')
  }, 60_000)

  afterAll(async () => {
    await node?.kill()
    await worker?.kill()
    await backend?.close()
    await server?.close()
  })

  it('a run posted to the web node is researched by the worker and streamed back', async () => {
    const runId = await submit(node, 'Why is the sky blue?')
    const streamed = await events(`${node.url}/runs/${runId}/events`)
    assertEventInvariants(streamed)
    expect(streamed.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: ANSWER })
    expect(backend.searches).toContain('why is the sky blue')
    let status = await (await fetch(`${node.url}/runs/${runId}`)).json()
    while (status.state !== 'done') status = await (await fetch(`${node.url}/runs/${runId}`)).json()
    expect(status).toMatchObject({ runId, state: 'done', result: { reason: 'answered', answer: ANSWER } })
  })

  it('a run asking for a strategy the worker does not know ends with an error that names it', async () => {
    const response = await fetch(`${node.url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-laconic-token': node.token },
      body: JSON.stringify({ question: 'Why is the sky blue?', strategy: 'no-such-strategy' }),
    })
    const { runId } = (await response.json()) as { runId: string }
    const streamed = await events(`${node.url}/runs/${runId}/events`)
    expect(streamed.at(-1)).toMatchObject({ type: 'run-end', reason: 'error', error: { message: expect.stringContaining('no-such-strategy') } })
  })

  it('a bad request to the web node is a JSON 400 that says what to send', async () => {
    const headers = { 'x-laconic-token': node.token, 'content-type': 'application/json' }
    const response = await fetch(`${node.url}/runs`, { method: 'POST', headers, body: '{"question": ""}' })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'bad-request', message: expect.stringContaining('"question"') })
  })

  it('usage errors exit 2 with one line', async () => {
    const missing = await runCli(['worker', '-m', 'x'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('laconic worker needs --redis URL')
    const notRedis = await runCli(['serve', '--redis', 'http://127.0.0.1:1'])
    expect(notRedis.code).toBe(2)
    expect(notRedis.stderr).toContain('--redis must be a redis:// or rediss:// URL')
    const port = await runCli(['worker', '--redis', server.url, '--port', '1'])
    expect(port.code).toBe(2)
  })

  it('Ctrl-C stops a worker cleanly', async () => {
    const other = startChild([
      'src/cli/main.ts',
      'worker',
      '--redis',
      server.url,
      '--queue',
      'cli-stop',
      '--backend',
      'openai',
      '--endpoint',
      `${backend.url}/v1`,
      '-m',
      'x',
      '--search',
      'searxng',
      '--searxng-url',
      backend.url,
    ])
    await other.waitFor(/worker on/)
    const exited = new Promise<number | null>((resolve) => other.process.once('exit', resolve))
    other.process.kill('SIGINT')
    expect(await exited).toBe(130)
    expect(other.output()).toContain('stopping; waiting for 0 runs to end')
  })
})
