import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import type { LLMChunk, LLMProvider, LLMRequest, ResearchEvent } from '../../src/index.js'
import { createResearchQueue, createResearchWorker, redisEventLog, type ResearchQueue, type ResearchWorker } from '../../src/redis/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'

const SCRIPT = ['Action: Search\nQuery: why is the sky blue', 'Air scatters blue light most.', 'Action: Answer', 'Because air scatters blue light most.']
const CORPUS = [{ title: 'Sky', url: 'https://sky.example/', snippet: 'The sky is blue because air scatters blue light most.' }]
const skyAgent = () => createAgent({ llm: scriptedLLM({ replies: SCRIPT }), search: mockSearch({ corpus: CORPUS }) })

async function collect(iterable: AsyncIterable<ResearchEvent>): Promise<ResearchEvent[]> {
  const out: ResearchEvent[] = []
  for await (const event of iterable) out.push(event)
  return out
}

/** A model whose calls hang until aborted; `started` resolves with each call's signal. */
function hangingLLM() {
  const signals: AbortSignal[] = []
  let onCall: (signal: AbortSignal) => void = () => {}
  const llm: LLMProvider = {
    async *stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
      const signal = req.signal as AbortSignal
      signals.push(signal)
      onCall(signal)
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
    },
  }
  const started = () => new Promise<AbortSignal>((resolve) => (onCall = resolve))
  return { llm, signals, started }
}

describe.skipIf(!redisAvailable())('createResearchQueue and createResearchWorker', () => {
  let server: RedisServer
  let queue: ResearchQueue
  const workers: ResearchWorker[] = []
  let n = 0
  let name = ''

  beforeAll(async () => {
    server = await startRedis()
  })
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.close({ force: true })))
    await queue?.close()
  })
  afterAll(async () => {
    await server?.close()
  })

  /** A queue and workers on a queue name of their own, so tests never share jobs. */
  async function setup(agent: Parameters<typeof createResearchWorker>[0]['agent'], count = 1) {
    name = `q${++n}`
    queue = createResearchQueue({ connection: server.url, name })
    for (let i = 0; i < count; i++) {
      const worker = createResearchWorker({ connection: server.url, name, agent, concurrency: 2 })
      workers.push(worker)
      await worker.ready()
    }
  }

  it('runs a submitted question on a worker; the log is the run and get() gives the result', async () => {
    await setup(skyAgent())
    const { runId } = await queue.submit('Why is the sky blue?')
    const events = await collect(queue.researchEvents(runId))
    assertEventInvariants(events)
    expect(events.every((e) => e.runId === runId)).toBe(true)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: 'Because air scatters blue light most.' })
    let status = await queue.get(runId)
    // The log ends before BullMQ marks the job done.
    while (status?.state !== 'done') status = await queue.get(runId)
    expect(status).toMatchObject({ runId, state: 'done', question: 'Why is the sky blue?', cancelled: false })
    expect(status.result).toMatchObject({ reason: 'answered', answer: 'Because air scatters blue light most.' })
    expect(status.result?.cost).toEqual(events.at(-1)?.type === 'run-end' ? (events.at(-1) as { cost: unknown }).cost : undefined)
    // Resuming after a seq replays the rest only.
    expect(await collect(queue.researchEvents(runId, { lastEventId: '3' }))).toEqual(events.slice(4))
    expect(await queue.get('no-such-run')).toBeUndefined()
  })

  it('honours the strategy a run asks for when the agent is a function of it', async () => {
    const asked: (string | undefined)[] = []
    await setup((strategy) => {
      asked.push(strategy)
      return skyAgent()
    })
    const { runId } = await queue.submit('Why is the sky blue?', { strategy: 'scratchpad' })
    const events = await collect(queue.researchEvents(runId))
    expect(events[0]).toMatchObject({ type: 'run-start', strategy: 'scratchpad' })
    expect(asked).toEqual(['scratchpad'])
  })

  it('a single agent refuses a run that names a strategy, and the log says why', async () => {
    await setup(skyAgent())
    const { runId } = await queue.submit('Why is the sky blue?', { strategy: 'deep' })
    const events = await collect(queue.researchEvents(runId))
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'error', error: { code: 'config' } })
    let status = await queue.get(runId)
    while (status?.state !== 'failed') status = await queue.get(runId)
    expect(status.error).toMatch(/asks for "deep"/)
  })

  it('cancel reaches the worker running the run and aborts its in-flight request', async () => {
    const model = hangingLLM()
    await setup(createAgent({ llm: model.llm, search: mockSearch({ corpus: CORPUS }) }))
    const started = model.started()
    const { runId } = await queue.submit('Why is the sky blue?')
    const signal = await started
    expect(await queue.cancel(runId)).toBe(true)
    const events = await collect(queue.researchEvents(runId))
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    expect(signal.aborted).toBe(true)
    let status = await queue.get(runId)
    while (status?.state !== 'done') status = await queue.get(runId)
    expect(status).toMatchObject({ cancelled: true, result: { reason: 'aborted' } })
    expect(await queue.cancel('no-such-run')).toBe(false)
  })

  it('a run cancelled before any worker took it ends at once when one does', async () => {
    name = `q${++n}`
    queue = createResearchQueue({ connection: server.url, name })
    const model = hangingLLM()
    const { runId } = await queue.submit('Why is the sky blue?')
    expect(await queue.get(runId)).toMatchObject({ state: 'queued' })
    await queue.cancel(runId)
    const worker = createResearchWorker({ connection: server.url, name, agent: createAgent({ llm: model.llm }) })
    workers.push(worker)
    const events = await collect(queue.researchEvents(runId))
    expect(events.map((e) => e.type)).toEqual(['run-start', 'run-end'])
    expect(events.at(-1)).toMatchObject({ reason: 'aborted' })
    expect(model.signals).toEqual([])
  })

  it("a worker that loses a run's lock stops it at once, logs nothing more, and the run is taken again", async () => {
    // The first model call hangs until aborted; the calls after it follow the script.
    const script = scriptedLLM({ replies: SCRIPT })
    let firstCall: ((signal: AbortSignal) => void) | undefined
    const firstSignal = new Promise<AbortSignal>((resolve) => (firstCall = resolve))
    const llm: LLMProvider = {
      async *stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
        const hang = firstCall
        firstCall = undefined
        if (!hang) return yield* script.stream(req)
        const signal = req.signal as AbortSignal
        hang(signal)
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
      },
    }
    await setup(createAgent({ llm, search: mockSearch({ corpus: CORPUS }) }))
    const { runId } = await queue.submit('Why is the sky blue?')
    const signal = await firstSignal
    // What a worker stalled past its lock finds: the lock gone (BullMQ's key for the job).
    const redis = new Redis(server.port, '127.0.0.1')
    try {
      expect(await redis.del(`bull:${name}:${runId}:lock`)).toBe(1)
    } finally {
      redis.disconnect()
    }
    const reason = await new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }))
    expect(reason).toMatchObject({ code: 'fenced' })
    const events = await collect(queue.researchEvents(runId))
    assertEventInvariants(events)
    const resumed = events.findIndex((e) => e.type === 'warning' && e.code === 'resumed')
    expect(resumed).toBeGreaterThan(0)
    // The first attempt logged no run-end of its own (an `aborted` one would have ended the run).
    expect(events.filter((e) => e.type === 'run-end')).toEqual([expect.objectContaining({ reason: 'answered' })])
    expect(events.filter((e) => e.type === 'run-start')).toHaveLength(1)
  })

  it('a later attempt continues the log a dead one left: one run-start, seq goes on, cost adds up', async () => {
    name = `q${++n}`
    queue = createResearchQueue({ connection: server.url, name })
    const { runId } = await queue.submit('Why is the sky blue?')
    // What a worker that died mid-run left behind: the first events of a run, no run-end.
    const dead: ResearchEvent[] = []
    for await (const event of skyAgent().research('Why is the sky blue?')) {
      if (event.type === 'run-end') break
      dead.push({ ...event, runId })
      if (dead.length === 6) break
    }
    const redis = new Redis(server.port, '127.0.0.1')
    try {
      const log = redisEventLog(redis)
      for (const event of dead) await log.append(event)
    } finally {
      redis.disconnect()
    }
    const worker = createResearchWorker({ connection: server.url, name, agent: skyAgent() })
    workers.push(worker)
    const events = await collect(queue.researchEvents(runId))
    assertEventInvariants(events)
    expect(events.slice(0, 6)).toEqual(dead)
    expect(events.filter((e) => e.type === 'run-start')).toHaveLength(1)
    expect(events[6]).toMatchObject({ type: 'warning', code: 'resumed', seq: 6 })
    const lastDeadCost = dead.filter((e) => e.type === 'cost').at(-1)
    const end = events.at(-1)
    expect(end).toMatchObject({ type: 'run-end', reason: 'answered' })
    if (end?.type === 'run-end' && lastDeadCost?.type === 'cost') {
      expect(end.cost.llmCalls).toBeGreaterThan(lastDeadCost.total.llmCalls)
    }
  })
})
