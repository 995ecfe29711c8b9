/**
 * Crash recovery as an operator meets it: `laconic worker` processes with their default lock and
 * stall check, one SIGKILLed in the middle of a model call, on an OpenAI-compatible backend and a
 * SearXNG instance (a loopback fake that counts every call).
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { createResearchQueue, redisEventLog, type ResearchQueue } from '../../src/redis/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { cliFlags, startFakeBackend, type ChatTurn, type FakeBackend, type ScriptedReply } from '../cli/fake-backend.js'
import { runCli } from '../cli/run-cli.js'
import { startChild, type Child } from './processes.js'
import { redisAvailable, startRedis, type RedisServer } from './redis-server.js'
import { roleOf } from '../support/roles.js'

const ANSWER = 'Because air scatters blue light most (https://sky.example/).'
/**
 * A generous bound on takeover with the default lock (5 s) and stall check (1 s), which move a
 * dead worker's runs on within 7 s: twice the 10 s target, so a loaded machine cannot fail it,
 * and under BullMQ's own defaults (30 s each: about a minute), which it catches coming back. The
 * time itself is measured by `npm run bench -- redis`.
 */
const TAKEOVER_BOUND_MS = 20_000

/** The role of a model call, from its system prompt. */
function role(turn: ChatTurn): string {
  return roleOf(turn.system) === 'scratchpad planner'
    ? 'planner'
    : roleOf(turn.system) === 'scratchpad synthesizer'
      ? 'synthesizer'
      : roleOf(turn.system) === 'scratchpad finalizer'
        ? 'finalizer'
        : 'other'
}

describe.skipIf(!redisAvailable())('a SIGKILLed laconic worker', () => {
  let server: RedisServer
  let backend: FakeBackend
  let redis: Redis
  let queue: ResearchQueue
  const children: Child[] = []
  /** Questions whose first answer has stalled already: each stalls once, in its first worker. */
  const stalled = new Set<string>()

  function reply(turn: ChatTurn): string | ScriptedReply {
    if (roleOf(turn.system) === 'scratchpad planner')
      return turn.prompt.includes('Air scatters') ? 'Action: Answer' : 'Action: Search\nQuery: why is the sky blue'
    if (roleOf(turn.system) === 'scratchpad synthesizer') return 'Air scatters blue light most (https://sky.example/).'
    if (roleOf(turn.system) !== 'scratchpad finalizer') return ''
    const question = /\(run \d+\)/.exec(turn.prompt)?.[0] ?? ''
    if (stalled.has(question)) return ANSWER
    stalled.add(question)
    return { text: ANSWER, stallAfterTokens: 2 }
  }

  beforeAll(async () => {
    server = await startRedis()
    redis = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null })
    backend = await startFakeBackend({
      reply,
      results: () => [{ title: 'Sky', url: 'https://sky.example/', snippet: 'The sky is blue because air scatters blue light most.' }],
    })
  }, 60_000)

  afterAll(async () => {
    await Promise.all(children.map((child) => child.kill()))
    await queue?.close()
    redis?.disconnect()
    await backend?.close()
    await server?.close()
  })

  async function startWorker(queueName: string, flags: string[] = []): Promise<Child> {
    const child = startChild(['src/cli/main.ts', 'worker', '--redis', server.url, '--queue', queueName, ...flags, ...cliFlags(backend)])
    children.push(child)
    await child.waitFor(/worker on redis:/)
    return child
  }

  /** Reads a run's log until `until` says stop (or run-end). */
  async function readLog(runId: string, until: (event: ResearchEvent) => boolean = () => false): Promise<ResearchEvent[]> {
    const seen: ResearchEvent[] = []
    for await (const event of redisEventLog(redis).read(runId)) {
      seen.push(event)
      if (until(event)) break
    }
    return seen
  }

  it('resumes its run on another worker from the last checkpoint, redoing only the step in flight', { timeout: 90_000 }, async () => {
    queue = createResearchQueue({ connection: server.url, name: 'takeover' })
    const a = await startWorker('takeover')
    const { runId } = await queue.submit('Why is the sky blue? (run 1)')
    // A is in its answer's model call, which the backend holds open after two tokens.
    await readLog(runId, (event) => event.type === 'answer-token')
    const b = await startWorker('takeover')
    const beforeKill = backend.turns.map(role)
    const searchesBeforeKill = backend.searches.length
    await a.kill('SIGKILL')

    let timer: ReturnType<typeof setTimeout> | undefined
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the run did not resume within ${TAKEOVER_BOUND_MS / 1000} s of the kill:\n${b.output()}`)), TAKEOVER_BOUND_MS)
    })
    const log = await Promise.race([readLog(runId, (event) => event.type === 'warning' && event.code === 'resumed'), bound]).finally(() => clearTimeout(timer))
    expect(log.at(-1)).toMatchObject({ type: 'warning', code: 'resumed', message: expect.stringContaining('resumed it from its last checkpoint') })

    const events = await readLog(runId)
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: ANSWER })
    expect(events.filter((e) => e.type === 'run-start')).toHaveLength(1)
    // A searched, rewrote its notes (the checkpoint), decided to answer and was killed answering.
    expect(beforeKill).toEqual(['planner', 'synthesizer', 'planner', 'finalizer'])
    // B repeated that last step only: the decision and the answer; no search, no rewrite.
    expect(backend.turns.map(role).slice(beforeKill.length)).toEqual(['planner', 'finalizer'])
    expect(backend.searches).toHaveLength(searchesBeforeKill)
    expect(searchesBeforeKill).toBe(1)
    await b.kill('SIGTERM')
  })

  it('--lock-ms and --stall-ms reach BullMQ: the job lock and the stall check last what they say', { timeout: 60_000 }, async () => {
    const name = 'takeover-flags'
    const q = createResearchQueue({ connection: server.url, name })
    try {
      // Both above the defaults (5 s and 1 s), so the TTLs read back can only come from the flags.
      const worker = await startWorker(name, ['--lock-ms', '60000', '--stall-ms', '45000'])
      const { runId } = await q.submit('Why is the sky blue? (run 2)')
      await readLog(runId, (event) => event.type === 'answer-token')
      const [lock, stallCheck] = await Promise.all([redis.pttl(`bull:${name}:${runId}:lock`), redis.pttl(`bull:${name}:stalled-check`)])
      expect(lock).toBeGreaterThan(5_000)
      expect(lock).toBeLessThanOrEqual(60_000)
      expect(stallCheck).toBeGreaterThan(1_000)
      expect(stallCheck).toBeLessThanOrEqual(45_000)
      await worker.kill('SIGKILL')
    } finally {
      await q.close()
    }
  })

  it('bad --lock-ms and --stall-ms are usage errors; laconic serve refuses them', { timeout: 60_000 }, async () => {
    const [low, word, serve] = await Promise.all([
      runCli(['worker', '--redis', server.url, '--lock-ms', '50', '-m', 'x']),
      runCli(['worker', '--redis', server.url, '--stall-ms', 'soon', '-m', 'x']),
      runCli(['serve', '--redis', server.url, '--lock-ms', '2000']),
    ])
    expect(low.code).toBe(2)
    expect(low.stderr).toContain('--lock-ms must be a whole number from 1000 to 3600000; got "50"')
    expect(word.code).toBe(2)
    expect(word.stderr).toContain('--stall-ms must be a whole number')
    expect(serve.code).toBe(2)
    expect(serve.stderr).toContain('--lock-ms and --stall-ms are for laconic worker')
  })
})
