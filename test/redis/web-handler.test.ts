/**
 * The research handler over `redisRuns`, called with Web Requests as Hono or Deno would: a run
 * started through it is researched by a worker and streamed from the log; a reader that comes
 * back at or past the run-end gets the end frame at once instead of reconnecting forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { createResearchWorker, redisRuns, type ResearchWorker } from '../../src/redis/index.js'
import { createResearchHandler, type ResearchHandler } from '../../src/server/index.js'
import { fromSSE } from '../../src/streams/index.js'
import { SKY_ANSWER, SKY_QUESTION, skyAgent } from './fixtures/sky-agent.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'

type RedisRuns = Awaited<ReturnType<typeof redisRuns>>

const BASE = 'http://127.0.0.1:8787'
const TOKEN = 'a-shared-token-of-enough-length'

describe.skipIf(!redisAvailable())('the research handler on Redis', () => {
  let server: RedisServer
  let worker: ResearchWorker
  let runs: RedisRuns
  let handle: ResearchHandler

  beforeAll(async () => {
    server = await startRedis()
    worker = createResearchWorker({ connection: server.url, name: 'handler', agent: skyAgent() })
    await worker.ready()
    runs = redisRuns({ connection: server.url, name: 'handler' })
    handle = createResearchHandler({ runs, token: TOKEN })
  }, 60_000)

  afterAll(async () => {
    await runs?.close()
    await worker?.close({ force: true })
    await server?.close()
  })

  async function research(): Promise<{ runId: string; events: ResearchEvent[] }> {
    const started = await handle(
      new Request(`${BASE}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-laconic-token': TOKEN },
        body: JSON.stringify({ question: SKY_QUESTION }),
      }),
    )
    expect(started.status).toBe(201)
    const { runId } = (await started.json()) as { runId: string }
    const events: ResearchEvent[] = []
    for await (const event of fromSSE((await handle(new Request(`${BASE}/runs/${runId}/events`))).body!)) events.push(event)
    return { runId, events }
  }

  it('a run posted through the handler is researched by a worker and streamed from the log, ending with the end frame', async () => {
    const { runId, events } = await research()
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: SKY_ANSWER })
    const replay = await (await handle(new Request(`${BASE}/runs/${runId}/events`))).text()
    expect(replay.endsWith('event: end\ndata: [DONE]\n\n')).toBe(true)
    let status = await (await handle(new Request(`${BASE}/runs/${runId}`))).json()
    while (status.state !== 'done') status = await (await handle(new Request(`${BASE}/runs/${runId}`))).json()
    expect(status).toMatchObject({ runId, state: 'done', cancelled: false, result: { reason: 'answered', answer: SKY_ANSWER } })
  })

  it('a reconnection with Last-Event-ID at or past the run-end gets the end frame at once', async () => {
    const { runId, events } = await research()
    const end = events.at(-1)!.seq
    for (const last of [end, end + 5]) {
      const response = await handle(new Request(`${BASE}/runs/${runId}/events`, { headers: { 'last-event-id': String(last) } }))
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
      expect(await response.text()).toBe('retry: 3000\n\nevent: end\ndata: [DONE]\n\n')
    }
    // One before the end: the run-end itself, then the end frame.
    const before = await handle(new Request(`${BASE}/runs/${runId}/events`, { headers: { 'last-event-id': String(end - 1) } }))
    const rest: ResearchEvent[] = []
    for await (const event of fromSSE(before.body!)) rest.push(event)
    expect(rest).toEqual([events.at(-1)])
  })

  it('an unknown run is a JSON 404 with a code', async () => {
    const response = await handle(new Request(`${BASE}/runs/no-such-run/events`))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ code: 'not-found' })
  })
})
