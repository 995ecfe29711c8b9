/**
 * Redis goes away mid-run. Restarted (with its append-only file, as production should run it):
 * workers and web nodes reconnect and every run finishes. Gone for good: every wait ends with
 * a clear error within the configured bound, and the runs stop spending.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { createResearchQueue, createResearchWorker, redisEventLog, type ResearchQueue } from '../../src/redis/index.js'
import { fromSSE } from '../../src/streams/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { SKY_ANSWER, SKY_QUESTION, skyAgent } from './fixtures/sky-agent.js'
import { startWebNode, startWorker, submit, type Child } from './processes.js'
import { redisAvailable, startRedis } from './redis-server.js'

describe.skipIf(!redisAvailable())('Redis restarted or gone', () => {
  const cleanups: (() => Promise<void> | void)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('restarted mid-run: workers and web nodes reconnect, every run finishes and its log stays valid', { timeout: 120_000 }, async () => {
    const server = await startRedis({ persistent: true })
    cleanups.push(() => server.close())
    const children: Child[] = []
    cleanups.push(() => Promise.all(children.map((child) => child.kill())).then(() => undefined))
    const node = await startWebNode(server.url, 'restart')
    const worker = startWorker(server.url, 'restart', { LATENCY_MS: '20', CONCURRENCY: '3' })
    children.push(node, worker)
    await worker.waitFor(/^ready$/m)

    const runIds: string[] = []
    for (let i = 0; i < 6; i++) runIds.push(await submit(node, `${SKY_QUESTION} (${i})`))
    // A browser follows the first run through the web node across the restart.
    const response = await fetch(`${node.url}/runs/${runIds[0]}/events`)
    const seen: ResearchEvent[] = []
    const following = (async () => {
      for await (const event of fromSSE(response.body!)) seen.push(event)
    })()
    await worker.waitFor(/^active /m)
    const redis = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null })
    redis.on('error', () => {})
    cleanups.push(() => redis.disconnect())
    for await (const event of redisEventLog(redis).read(runIds[0]!)) if (event.seq >= 2) break

    await server.stop('SIGKILL')
    await server.start()

    await following
    const queue = createResearchQueue({ connection: server.url, name: 'restart' })
    cleanups.push(() => queue.close())
    for (const runId of runIds) {
      for await (const _ of queue.researchEvents(runId));
      let status = await queue.get(runId)
      while (status?.state === 'running' || status?.state === 'queued') status = await queue.get(runId)
      expect(
        status,
        JSON.stringify({ status, log: (await redisEventLog(redis).history(runId)).map((e) => [e.seq, e.type, (e as { code?: string }).code]) }),
      ).toMatchObject({ state: 'done', result: { reason: 'answered', answer: SKY_ANSWER } })
      assertEventInvariants(await redisEventLog(redis).history(runId))
    }
    expect(seen).toEqual(await redisEventLog(redis).history(runIds[0]!))
  })

  it('gone for good: the worker aborts the run, get() and readers fail clearly, nothing hangs', { timeout: 60_000 }, async () => {
    const server = await startRedis()
    cleanups.push(() => server.close())
    const signals: (AbortSignal | undefined)[] = []
    let callMade: () => void = () => {}
    // The second model call waits until Redis is gone, so the run is still going when it dies.
    let redisGone: () => void = () => {}
    const gone = new Promise<void>((resolve) => (redisGone = resolve))
    const agent = skyAgent({
      onCall: (signal) => {
        signals.push(signal)
        callMade()
        return signals.length === 2 ? gone : undefined
      },
    })
    const log = { unavailableMs: 1500 }
    const queue: ResearchQueue = createResearchQueue({ connection: server.url, name: 'gone', log })
    const worker = createResearchWorker({ connection: server.url, name: 'gone', agent, log })
    cleanups.push(
      () => worker.close({ force: true }),
      () => queue.close(),
    )
    await worker.ready()
    const secondCall = new Promise<void>((resolve) => (callMade = () => signals.length >= 2 && resolve()))
    const { runId } = await queue.submit(SKY_QUESTION)
    const reader = queue.researchEvents(runId)
    // Settles (with the reader's error) whenever it does; asserted at the end.
    const reading = (async () => {
      for await (const _ of reader);
    })().then(
      () => undefined,
      (error: unknown) => error,
    )
    await secondCall

    await server.stop('SIGKILL')
    redisGone()

    // The worker cannot log any more events: it stops the run, and with it the model call.
    const last = signals.at(-1) as AbortSignal
    await new Promise<void>((resolve) => (last.aborted ? resolve() : last.addEventListener('abort', () => resolve(), { once: true })))
    await expect(queue.get(runId)).rejects.toThrow(/Redis did not answer/)
    await expect(queue.submit(SKY_QUESTION)).rejects.toThrow(/Redis did not answer/)
    expect(await reading).toMatchObject({ code: 'network', message: expect.stringMatching(/Redis did not answer/) })
  })
})
