/**
 * The deployment picture for real: worker processes and `laconic serve` web nodes on one Redis,
 * a worker SIGKILLed mid-run, an SSE client moving between web nodes, a cancel from a web node.
 */
import { get } from 'node:http'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { createResearchQueue, redisEventLog, type ResearchQueue } from '../../src/redis/index.js'
import { fromSSE } from '../../src/streams/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { SKY_ANSWER, SKY_QUESTION } from './fixtures/sky-agent.js'
import { startWebNode, startWorker, submit, type Child, type WebNode } from './processes.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'

const QUEUE = 'scale-out'

describe.skipIf(!redisAvailable())('two workers and two web nodes on one Redis', () => {
  let server: RedisServer
  let redis: Redis
  let queue: ResearchQueue
  const children: Child[] = []
  let nodes: [WebNode, WebNode]

  beforeAll(async () => {
    server = await startRedis()
    redis = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null })
    queue = createResearchQueue({ connection: server.url, name: QUEUE })
    // Behind one load balancer the nodes share a token: a page from one node may post to the other.
    const env = { LACONIC_WEB_TOKEN: crypto.randomUUID() }
    nodes = await Promise.all([startWebNode(server.url, QUEUE, env), startWebNode(server.url, QUEUE, env)])
    expect(nodes[0].token).toBe(env.LACONIC_WEB_TOKEN)
    children.push(...nodes)
  }, 60_000)

  afterAll(async () => {
    await Promise.all(children.map((child) => child.kill()))
    await queue?.close()
    redis?.disconnect()
    await server?.close()
  })

  /** Reads a run's log until `until` says stop (or run-end); returns what it read. */
  async function readLog(runId: string, until: (event: ResearchEvent) => boolean = () => false): Promise<ResearchEvent[]> {
    const seen: ResearchEvent[] = []
    for await (const event of redisEventLog(redis).read(runId)) {
      seen.push(event)
      if (until(event)) break
    }
    return seen
  }

  async function finalStatus(runId: string) {
    let status = await queue.get(runId)
    while (status && (status.state === 'queued' || status.state === 'running')) {
      await readLog(runId) // returns at run-end; the job is marked done right after
      status = await queue.get(runId)
    }
    return status
  }

  it('20 runs all end answered after one worker is SIGKILLed mid-run; an SSE client switching node sees every event once', { timeout: 120_000 }, async () => {
    // Worker A takes two runs and gets stuck in their answers; B does the rest.
    const a = startWorker(server.url, QUEUE, { HANG_IN_ANSWER: '1', CONCURRENCY: '2' })
    children.push(a)
    await a.waitFor(/^ready$/m)
    const runIds: string[] = []
    for (let i = 0; i < 20; i++) runIds.push(await submit(nodes[i % 2]!, `${SKY_QUESTION} (${i})`))
    const [, stuck] = (await a.waitFor(/^active (\S+)$/m)) as [string, string]
    await readLog(stuck, (event) => event.type === 'answer-token')

    // A browser follows the stuck run on web node 0 ...
    const first = await fetch(`${nodes[0].url}/runs/${stuck}/events`)
    const seen: ResearchEvent[] = []
    const reader = fromSSE(first.body!)
    for await (const event of reader) {
      seen.push(event)
      if (event.type === 'answer-token') break
    }

    const b = startWorker(server.url, QUEUE, { LATENCY_MS: '2', CONCURRENCY: '4' })
    children.push(b)
    await b.waitFor(/^active /m)
    await a.kill('SIGKILL')

    // ... and, its connection gone, reconnects to web node 1 with Last-Event-ID.
    const resumed = await fetch(`${nodes[1].url}/runs/${stuck}/events`, { headers: { 'last-event-id': String(seen.at(-1)!.seq) } })
    for await (const event of fromSSE(resumed.body!)) seen.push(event)
    const log = await redisEventLog(redis).history(stuck)
    expect(seen.map((e) => e.seq)).toEqual(log.map((_, i) => i))
    expect(seen).toEqual(log)

    for (const runId of runIds) {
      const status = await finalStatus(runId)
      expect(status, runId).toMatchObject({ state: 'done', result: { reason: 'answered', answer: SKY_ANSWER } })
      const events = await redisEventLog(redis).history(runId)
      assertEventInvariants(events)
      expect(events.filter((e) => e.type === 'run-start')).toHaveLength(1)
      expect(events.filter((e) => e.type === 'run-end')).toHaveLength(1)
    }
    // The stuck run was taken over from its last checkpoint: its log says where, and the search
    // the dead worker had done before it was not run again.
    const joined = log.findIndex((e) => e.type === 'warning' && e.code === 'resumed')
    expect(log[joined]).toMatchObject({ message: expect.stringContaining('resumed it from its last checkpoint') })
    expect(log.slice(0, joined).filter((e) => e.type === 'query')).toHaveLength(1)
    expect(log.slice(joined).filter((e) => e.type === 'query')).toHaveLength(0)
    expect(log.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: SKY_ANSWER })
    await b.kill('SIGTERM') // the next test wants a worker of its own
  })

  it('DELETE on a web node cancels a run stuck in a model call on a worker', { timeout: 60_000 }, async () => {
    const c = startWorker(server.url, QUEUE, { HANG_IN_ANSWER: '1', CONCURRENCY: '1' })
    children.push(c)
    await c.waitFor(/^ready$/m)
    const runId = await submit(nodes[1], SKY_QUESTION)
    await readLog(runId, (event) => event.type === 'answer-token')
    const cancelled = await fetch(`${nodes[0].url}/runs/${runId}`, { method: 'DELETE', headers: { 'x-laconic-token': nodes[0].token } })
    expect(cancelled.status).toBe(202)
    const events = await readLog(runId)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    const status = await finalStatus(runId)
    expect(status).toMatchObject({ state: 'done', cancelled: true, result: { reason: 'aborted' } })
  })

  it('refuses cross-site requests to start or cancel runs, and requests without the page token', async () => {
    const [node] = nodes
    const body = JSON.stringify({ question: SKY_QUESTION })
    const crossSite = await fetch(`${node.url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-laconic-token': node.token, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      body,
    })
    expect(crossSite.status).toBe(403)
    const otherOrigin = await fetch(`${node.url}/runs`, { method: 'POST', headers: { 'x-laconic-token': node.token, origin: 'https://evil.example' }, body })
    expect(otherOrigin.status).toBe(403)
    const noToken = await fetch(`${node.url}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(noToken.status).toBe(403)
    const cancel = await fetch(`${node.url}/runs/x`, { method: 'DELETE', headers: { 'sec-fetch-site': 'same-site', 'x-laconic-token': node.token } })
    expect(cancel.status).toBe(403)
    // fetch will not send another Host: node:http does, as a DNS-rebinding page's browser would.
    const rebinding = await new Promise<number | undefined>((resolve, reject) =>
      get(`${node.url}/`, { headers: { host: 'evil.example' } }, (res) => resolve(res.resume().statusCode)).on('error', reject),
    )
    expect(rebinding).toBe(403)
    const crossSiteRead = await fetch(`${node.url}/runs/no-such-run/events`, { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(crossSiteRead.status).toBe(403)
    expect((await fetch(`${node.url}/runs/no-such-run`)).status).toBe(404)
    expect((await fetch(`${node.url}/runs/no-such-run/events`)).status).toBe(404)
  })
})
