/**
 * The scale-out on Redis (docs/scale-out.md), with a real `redis-server` on loopback:
 * - throughput: 200 scripted runs (model calls 50 ms, searches 30 ms) through 1, 2 and 4 worker
 *   processes of 4 runs each; runs per minute and the ratio to one worker;
 * - relay latency: an event made by a worker process → received by an SSE client of a
 *   `laconic serve` web node (a third process), p50/p99 over every event of 20 runs;
 * - takeover: `laconic worker` processes with their default lock and stall check, the one in a
 *   run's model call SIGKILLed; time from its exit to the run resuming on the next worker (its
 *   `resumed` warning in the log), 5 kills.
 */
import { loadavg } from 'node:os'
import { QueueEvents } from 'bullmq'
import { Redis } from 'ioredis'
import { createResearchQueue } from '../src/redis/index.js'
import type { ResearchEvent } from '../src/core/contracts/events.js'
import { fromSSE } from '../src/streams/index.js'
import { startWebNode, startWorker, submit, type Child } from '../test/redis/processes.js'
import { REDIS_SERVER, startRedis } from '../test/redis/redis-server.js'
import { cliFlags, startFakeBackend, type ChatTurn, type ScriptedReply } from '../test/cli/fake-backend.js'
import { finalizerSystem, plannerSystem, synthesizerSystem } from '../src/strategies/scratchpad/prompts.js'
import { redisEventLog } from '../src/redis/index.js'
import { startChild } from '../test/redis/processes.js'
import { max, median, percentile } from './stats.js'

const RUNS = 200
const PER_WORKER = 4

async function throughput(url: string, workers: number): Promise<{ runsPerMinute: number; seconds: number }> {
  const name = `bench-${workers}`
  const children: Child[] = []
  const queue = createResearchQueue({ connection: url, name })
  const connection = new Redis(url, { maxRetriesPerRequest: null })
  const events = new QueueEvents(name, { connection })
  try {
    for (let i = 0; i < workers; i++) {
      children.push(startWorker(url, name, { LATENCY_MS: '50', SEARCH_LATENCY_MS: '30', CONCURRENCY: String(PER_WORKER) }))
    }
    await Promise.all(children.map((child) => child.waitFor(/^ready$/m)))
    await events.waitUntilReady()
    let completed = 0
    const allDone = new Promise<void>((resolve) =>
      events.on('completed', () => {
        if (++completed === RUNS) resolve()
      }),
    )
    const started = performance.now()
    await Promise.all(Array.from({ length: RUNS }, (_, i) => queue.submit(`Why is the sky blue? (${i})`)))
    await allDone
    const seconds = (performance.now() - started) / 1000
    return { runsPerMinute: Math.round((RUNS / seconds) * 60), seconds: Math.round(seconds * 10) / 10 }
  } finally {
    await Promise.all(children.map((child) => child.kill()))
    await events.close()
    connection.disconnect()
    await queue.close()
  }
}

async function relay(url: string): Promise<number[]> {
  const name = 'bench-relay'
  const worker = startWorker(url, name, { LATENCY_MS: '5', CONCURRENCY: '4' })
  const node = await startWebNode(url, name)
  const latencies: number[] = []
  try {
    await worker.waitFor(/^ready$/m)
    for (let i = 0; i < 20; i++) {
      const runId = await submit(node, `Why is the sky blue? (${i})`)
      const response = await fetch(`${node.url}/runs/${runId}/events`)
      for await (const event of fromSSE(response.body!)) latencies.push(Date.now() - event.time)
    }
    return latencies
  } finally {
    await Promise.all([worker.kill(), node.kill()])
  }
}

const KILLS = 5
const TAKEOVER_TARGET_MS = 10_000

/**
 * Each round: the worker holding a run is stuck in its answer (the backend stops after two
 * tokens); a fresh worker starts, the stuck one is SIGKILLed, and the clock runs from its exit
 * to the `resumed` warning the fresh one logs. The fresh worker holds the next round's run.
 */
async function takeover(url: string): Promise<number[]> {
  const name = 'bench-takeover'
  const stalled = new Set<string>()
  const reply = (turn: ChatTurn): string | ScriptedReply => {
    if (turn.system === plannerSystem) return turn.prompt.includes('Air scatters') ? 'Action: Answer' : 'Action: Search\nQuery: why is the sky blue'
    if (turn.system === synthesizerSystem) return 'Air scatters blue light most (https://sky.example/).'
    if (turn.system !== finalizerSystem) return ''
    const round = /\(round \d+\)/.exec(turn.prompt)?.[0] ?? ''
    if (stalled.has(round)) return 'Because air scatters blue light most (https://sky.example/).'
    stalled.add(round)
    return { text: 'Because air scatters blue light most (https://sky.example/).', stallAfterTokens: 2 }
  }
  const backend = await startFakeBackend({ reply, results: () => [{ title: 'Sky', url: 'https://sky.example/', snippet: 'Air scatters blue light most.' }] })
  const queue = createResearchQueue({ connection: url, name })
  const redis = new Redis(url, { maxRetriesPerRequest: null })
  const log = redisEventLog(redis)
  const startWorker = async () => {
    const child = startChild(['src/cli/main.ts', 'worker', '--redis', url, '--queue', name, ...cliFlags(backend)])
    await child.waitFor(/worker on redis:/)
    return child
  }
  const readUntil = async (runId: string, until: (event: ResearchEvent) => boolean) => {
    for await (const event of log.read(runId)) if (until(event)) return
  }
  const times: number[] = []
  let holder = await startWorker()
  try {
    for (let round = 0; round < KILLS; round++) {
      const { runId } = await queue.submit(`Why is the sky blue? (round ${round})`)
      await readUntil(runId, (event) => event.type === 'answer-token')
      const next = await startWorker()
      await holder.kill('SIGKILL')
      const killed = performance.now()
      holder = next
      await readUntil(runId, (event) => event.type === 'warning' && event.code === 'resumed')
      times.push(Math.round(performance.now() - killed))
      await readUntil(runId, (event) => event.type === 'run-end')
    }
    return times
  } finally {
    await holder.kill()
    redis.disconnect()
    await queue.close()
    await backend.close()
  }
}

export async function run() {
  const server = await startRedis()
  try {
    const rows: Record<string, string | number | boolean>[] = []
    const base = await throughput(server.url, 1)
    rows.push({ measure: 'throughput, 1 worker', value: `${base.runsPerMinute} runs/min`, seconds: base.seconds, target: '', met: '' })
    for (const workers of [2, 4]) {
      const result = await throughput(server.url, workers)
      const ratio = Math.round((result.runsPerMinute / base.runsPerMinute) * 100) / 100
      const target = workers === 2 ? 1.6 : 2.5
      rows.push({
        measure: `throughput, ${workers} workers`,
        value: `${result.runsPerMinute} runs/min (x${ratio})`,
        seconds: result.seconds,
        target: `>= x${target}`,
        met: ratio >= target,
      })
    }
    const latencies = await relay(server.url)
    const p50 = percentile(latencies, 50)
    const p99 = percentile(latencies, 99)
    rows.push({ measure: 'relay worker → SSE client, p50', value: `${p50} ms`, seconds: '', target: '<= 20 ms', met: p50 <= 20 })
    rows.push({ measure: 'relay worker → SSE client, p99', value: `${p99} ms`, seconds: '', target: '<= 100 ms', met: p99 <= 100 })
    const takeovers = await takeover(server.url)
    rows.push({
      measure: `takeover after SIGKILL (default lock and stall check), median / max of ${KILLS}`,
      value: `${(median(takeovers) / 1000).toFixed(1)} / ${(max(takeovers) / 1000).toFixed(1)} s`,
      seconds: '',
      target: `<= ${TAKEOVER_TARGET_MS / 1000} s`,
      met: max(takeovers) <= TAKEOVER_TARGET_MS,
    })
    // Worker processes are CPU-bound past the core count: the load average says how busy the machine was.
    return {
      name: 'redis',
      rows,
      details: { redisServer: REDIS_SERVER, runs: RUNS, perWorker: PER_WORKER, relayEvents: latencies.length, takeoverMs: takeovers, loadAverage: loadavg() },
    }
  } finally {
    await server.close()
  }
}
