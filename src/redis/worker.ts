/**
 * The worker side: a BullMQ worker whose jobs are research runs. Each job runs
 * `agent.research` and appends every event to the run's log; a cancellation (pub/sub, or the
 * flag for a job taken later) aborts the run and every request in flight; a job whose worker
 * died is taken by another worker, which continues the log (see log-join.ts).
 */
import { Worker, type WorkerOptions } from 'bullmq'
import type { Redis } from 'ioredis'
import type { CheckpointStore } from '../core/contracts/checkpoint.js'
import type { ResearchEvent } from '../core/contracts/events.js'
import { describeError, LaconicError } from '../core/contracts/laconic-error.js'
import type { ResearchResult } from '../core/contracts/result.js'
import { zeroCost } from '../core/contracts/run-cost.js'
import type { ResearchOptions, ResumeOptions } from '../core/contracts/strategy-types.js'
import { sleep } from '../core/run/abortable-sleep.js'
import type { ResearchRun } from '../core/run/run.js'
import { redisCheckpoints } from './checkpoints.js'
import { openConnection, withDeadline, type RedisConnection } from './redis-connection.js'
import { EventLogError } from './redis-errors.js'
import { createEventLog, type RedisEventLogOptions } from './event-log.js'
import { cancelChannel, DEFAULT_PREFIX, runKeys } from './keys.js'
import { joinLog } from './log-join.js'
import { DEFAULT_QUEUE_NAME, type ResearchJobData } from './queue.js'
import { resultOfEvents } from '../core/run/result-fold.js'

/** What the worker needs of an agent: `createAgent(...)` fits. Without `resume`, a run whose worker died starts again. */
export interface WorkerAgent {
  research(question: string, options?: ResearchOptions): ResearchRun
  resume?(runId: string, options: ResumeOptions): ResearchRun
}

/** Options of `createResearchWorker()`: the Redis connection, the agent for each job, and how many jobs run at once. */
export interface ResearchWorkerOptions {
  connection: RedisConnection
  /**
   * The agent that runs every job, or a function giving the agent for a job's strategy
   * (`strategy` is undefined when the job named none). A single agent refuses jobs that name a
   * strategy: it cannot honour them.
   */
  agent: WorkerAgent | ((strategy: string | undefined) => WorkerAgent)
  /** Runs at once in this worker. @defaultValue 1 */
  concurrency?: number
  /** The BullMQ queue name; the same as the queue's. @defaultValue 'laconic-research' */
  name?: string
  /** Prefix of laconic's own keys; the same as the queue's. @defaultValue 'laconic:' */
  prefix?: string
  log?: RedisEventLogOptions
  /**
   * Where runs save their checkpoints, so a run whose worker died resumes from its last step on
   * another worker instead of starting again; `false` turns them off. @defaultValue `redisCheckpoints` on the same Redis, its
   * lock expiring after BullMQ's `lockDuration`
   */
  checkpoints?: CheckpointStore | false
  /**
   * BullMQ worker settings. `lockDuration` and `stalledInterval` say how soon a dead worker's
   * runs move to another worker: its job locks lapse `lockDuration` after their last renewal
   * (renewed every `lockDuration / 4` to `/ 2`: BullMQ's `lockRenewTime` is half of it and its
   * timer ticks twice as often), and a stall check, run every `stalledInterval` by some worker
   * (at most one per interval), moves them on: within `lockDuration + 2 × stalledInterval`, 4 to
   * 7 s with the defaults (BullMQ's own, 30 s each, took about a minute). A shorter
   * lock costs more renewals, and a worker whose event loop stalls past its lock loses its runs to
   * another (it stops them; nothing is logged twice).
   * @defaultValue `{ lockDuration: 5000, stalledInterval: 1000 }`
   */
  bullmq?: Omit<WorkerOptions, 'connection' | 'concurrency' | 'autorun'>
}

/** Fast takeover by default (see `bullmq` above): a reader sees a run freeze for seconds, not a minute. */
const TAKEOVER = { lockDuration: 5_000, stalledInterval: 1_000 }

/** Runs queued research jobs with an agent, publishing their events to Redis. */
export interface ResearchWorker {
  /** Resolves when the worker is connected and taking jobs. */
  ready(): Promise<void>
  /** Runs in progress in this worker. */
  readonly running: number
  /** Stops taking jobs and waits for the running ones to end (`force`: abandon them to other workers). */
  close(options?: { force?: boolean }): Promise<void>
  /** The BullMQ worker, for its events (`completed`, `failed`, `error`). */
  readonly bullmq: Worker<ResearchJobData, ResearchResult>
}

/** Starts a `ResearchWorker` that takes queued research jobs and runs them with your agent. */
export function createResearchWorker(options: ResearchWorkerOptions): ResearchWorker {
  const concurrency = options.concurrency ?? 1
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new TypeError(`\`concurrency\` must be a whole number >= 1, got ${concurrency}`)
  const { redis, owned } = openConnection(options.connection)
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const log = createEventLog(redis, { ...options.log, prefix })
  const unavailableMs = options.log?.unavailableMs ?? 30_000
  const ownerSeconds = options.log?.idleTtlSeconds ?? 604_800
  const running = new Map<string, AbortController>()
  const lockMs = options.bullmq?.lockDuration ?? TAKEOVER.lockDuration
  const bullmq = { ...options.bullmq, lockDuration: lockMs, stalledInterval: options.bullmq?.stalledInterval ?? TAKEOVER.stalledInterval }
  const checkpoints = options.checkpoints === false ? undefined : (options.checkpoints ?? redisCheckpoints(redis, { prefix, lockMs }))

  // Cancellations reach every worker on one channel; the worker running that run aborts it.
  const subscriber: Redis = redis.duplicate()
  subscriber.on('error', () => {})
  subscriber.on('message', (_channel: string, runId: string) => {
    running.get(runId)?.abort(new DOMException('the run was cancelled', 'AbortError'))
  })
  const subscribed = subscriber.subscribe(cancelChannel(prefix))

  const agentFor = (strategy: string | undefined): WorkerAgent => {
    if (typeof options.agent === 'function') return options.agent(strategy)
    if (strategy !== undefined) {
      throw new LaconicError(`this worker runs its agent's strategy only, and the run asks for "${strategy}"`, {
        code: 'config',
        hint: 'pass `agent` as a function of the strategy name to serve runs that choose one',
      })
    }
    return options.agent
  }

  /** The agent's id of the run, when an earlier attempt left a checkpoint to resume from. */
  async function resumable(agentRunKey: string, store: CheckpointStore): Promise<string | undefined> {
    const agentRunId = await redis.get(agentRunKey)
    if (!agentRunId) return undefined
    return (await store.load(agentRunId)) ? agentRunId : undefined
  }

  async function runJob(runId: string, data: ResearchJobData, jobSignal: AbortSignal | undefined): Promise<ResearchResult> {
    const keys = runKeys(prefix, runId)
    // This attempt owns the log from now on: an earlier attempt still writing (a worker thought
    // dead) is fenced off instead of interleaving its events.
    const fence = crypto.randomUUID()
    const bounded = <T>(promise: Promise<T>) => withDeadline(promise, unavailableMs, `run ${runId}`)
    await bounded(redis.set(keys.owner, fence, 'EX', ownerSeconds))
    const [logged, cancelled] = await bounded(Promise.all([log.history(runId), redis.exists(keys.cancelled)]))
    if (logged.at(-1)?.type === 'run-end') return resultOfEvents(logged)

    const controller = new AbortController()
    // An earlier attempt at this run in this process lost the job (its lock lapsed) and the job
    // came back here: this attempt supersedes it.
    running.get(runId)?.abort(lostLock(runId))
    running.set(runId, controller)
    const stop = (reason: unknown) => controller.abort(reason)
    jobSignal?.addEventListener('abort', () => stop(jobSignal.reason), { once: true })
    if (cancelled) stop(new DOMException('the run was cancelled', 'AbortError'))
    let lastSeq = logged.at(-1)?.seq ?? -1

    const append = async (event: ResearchEvent) => {
      // A run this worker lost logs nothing more, not even its own `run-end`: the taker owns the log.
      if (isFenced(controller.signal.reason)) throw controller.signal.reason
      await log.appendFenced(event, fence)
      lastSeq = event.seq
    }
    let join = joinLog(runId, logged, 'restarted it from the start')
    try {
      let started: Started
      try {
        const agent = agentFor(data.strategy)
        const from = logged.length > 0 && checkpoints && agent.resume ? await bounded(resumable(keys.agentRun, checkpoints)) : undefined
        if (from && checkpoints) {
          join = joinLog(runId, logged, 'resumed it from its last checkpoint')
          started = await resumeWhenUnlocked(agent, from, checkpoints, controller.signal, lockMs)
        } else {
          const run = agent.research(data.question, { ...data.options, signal: controller.signal, ...(checkpoints ? { checkpoints } : {}) })
          await bounded(redis.set(keys.agentRun, run.runId, 'EX', ownerSeconds))
          started = await begin(run)
        }
      } catch (error) {
        // A job that cannot start (a bad strategy, an unreadable checkpoint) still ends in the log.
        await endWithError(logged, data, runId, error, append)
        throw error
      }
      const { run, events } = started
      for (let step = started.first; !step.done; step = await events.next()) {
        for (const out of join.map(step.value)) {
          try {
            await append(out)
          } catch (error) {
            // Nobody can see this run any more (Redis is gone, or another attempt owns it): stop spending.
            stop(error)
            await events.return?.()
            throw error
          }
        }
      }
      const result = await run.result
      return { ...result, cost: join.cost(result.cost) }
    } catch (error) {
      if (lastSeq >= 0 && !isFenced(error)) {
        await endWithError(await log.history(runId).catch(() => logged), data, runId, error, append).catch(() => undefined)
      }
      throw error
    } finally {
      if (running.get(runId) === controller) running.delete(runId)
    }
  }

  const worker = new Worker<ResearchJobData, ResearchResult>(
    options.name ?? DEFAULT_QUEUE_NAME,
    (job, _token, signal) => runJob(job.id as string, job.data, signal),
    { ...bullmq, connection: redis, concurrency, autorun: true },
  )
  worker.on('error', () => {}) // reconnections are ioredis's; a job's own failure fails the job
  // A job whose lock could not be renewed (this process stalled past it, or Redis was away) goes
  // to another worker: stop spending on it now, and free its checkpoint lock for the taker,
  // instead of running on until the next append finds the log fenced.
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const runId of jobIds) running.get(runId)?.abort(lostLock(runId))
  })

  return {
    async ready() {
      await Promise.all([worker.waitUntilReady(), subscribed])
    },
    get running() {
      return running.size
    },
    async close({ force = false } = {}) {
      await worker.close(force)
      subscriber.disconnect()
      if (owned) redis.disconnect()
    },
    bullmq: worker,
  }
}

interface Started {
  run: ResearchRun
  events: AsyncIterator<ResearchEvent>
  /** The run's first event, read to learn whether it could start (a resume may find its lock held). */
  first: IteratorResult<ResearchEvent>
}

async function begin(run: ResearchRun): Promise<Started> {
  const events = run[Symbol.asyncIterator]()
  return { run, events, first: await events.next() }
}

/**
 * Resumes the run, waiting while its lock is held: the dead worker's lock lives on until it
 * expires (`lockMs`), and a worker thought dead but alive gives it back once it finds itself
 * fenced off the log.
 */
async function resumeWhenUnlocked(agent: WorkerAgent, agentRunId: string, checkpoints: CheckpointStore, signal: AbortSignal, lockMs: number): Promise<Started> {
  const giveUp = Date.now() + 2 * lockMs
  for (;;) {
    try {
      return await begin((agent.resume as NonNullable<WorkerAgent['resume']>)(agentRunId, { checkpoints, signal }))
    } catch (error) {
      if (!(error instanceof LaconicError && error.code === 'locked') || Date.now() > giveUp) throw error
      await sleep(Math.min(500, lockMs / 4), signal)
    }
  }
}

function lostLock(runId: string): EventLogError {
  return new EventLogError(`run ${runId} lost its lock and moved to another attempt`, { code: 'fenced' })
}

/** Another attempt owns the run (or is about to): this one must stop without logging. */
function isFenced(error: unknown): boolean {
  return error instanceof EventLogError && error.code === 'fenced'
}

/** Logs a `run-end` with the error, unless the log already ended: readers must not wait forever. */
async function endWithError(
  logged: readonly ResearchEvent[],
  data: ResearchJobData,
  runId: string,
  error: unknown,
  append: (event: ResearchEvent) => Promise<void>,
): Promise<void> {
  const last = logged.at(-1)
  if (last?.type === 'run-end') return
  const time = Date.now()
  let cost = zeroCost()
  for (const event of logged) if (event.type === 'cost') cost = event.total
  let seq = last ? last.seq + 1 : 0
  if (!last) await append({ type: 'run-start', question: data.question, strategy: data.strategy ?? '', runId, seq: seq++, time })
  await append({ type: 'run-end', reason: 'error', cost, error: describeError(error), runId, seq, time })
}
